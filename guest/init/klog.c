// SPDX-License-Identifier: GPL-2.0-only
/*
 * smmulab guest init: lockup detector set-up and the kernel log summary that
 * closes every run (soft lockups, CMDQ and CMD_SYNC timeouts).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#include "smmulab-guest.h"

#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_BUFFER 10

void watchdog_setup(void)
{
	const char *thresh = param_str("watchdog_thresh");
	char cur[32];
	int err;

	if (thresh) {
		param_ulong("watchdog_thresh", 0, 0, 60);
		err = sysfs_write("/proc/sys/kernel/watchdog_thresh", thresh);
		if (err)
			fail("cannot set watchdog_thresh=%s: %s", thresh,
			     strerror(-err));
	}
	if (sysfs_read("/proc/sys/kernel/watchdog_thresh", cur, sizeof(cur)))
		strcpy(cur, "none");
	printf("RESULT kernel watchdog_thresh=%s\n", cur);
}

static unsigned int count(const char *log, const char *what)
{
	unsigned int n = 0;
	const char *p = log;

	while ((p = strstr(p, what))) {
		n++;
		p += strlen(what);
	}
	return n;
}

void kernel_log_report(void)
{
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	char *log;
	int n;

	if (size <= 0)
		size = 1 << 17;
	log = calloc(1, size + 1);
	if (!log)
		return;
	n = klogctl(SYSLOG_ACTION_READ_ALL, log, size);
	if (n < 0)
		n = 0;
	log[n] = '\0';
	printf("RESULT kernel soft_lockups=%u cmdq_timeouts=%u cmd_sync_timeouts=%u\n",
	       count(log, "soft lockup"), count(log, "CMDQ timeout"),
	       count(log, "CMD_SYNC timeout"));
	free(log);
}
