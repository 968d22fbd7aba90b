// SPDX-License-Identifier: GPL-2.0-only
/*
 * smmulab guest init: lockup detector set-up and the kernel log summary that
 * closes every run (soft lockups, CMDQ and CMD_SYNC timeouts), and the kit
 * kernel's own counters of CMDQ and probe lock waits, which are complete
 * where the kernel log is rate limited.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>

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

/* "name value" lines of a debugfs counter file, as " name=value" */
static void print_counters(const char *path)
{
	char name[64];
	unsigned long long v;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fscanf(f, "%63s %llu", name, &v) == 2)
		printf(" %s=%llu", name, v);
	fclose(f);
}

void kernel_counters_report(const char *when)
{
	/*
	 * Patches 0005 and 0006 create these files: a kernel with neither
	 * (a stock kernel, a tree the series does not apply to) is said to be
	 * one, once, at the end of the run, so that a report says so instead
	 * of showing empty driver rows unexplained.
	 */
	if (access("/sys/kernel/debug/arm-smmu-v3-cmdq", R_OK) &&
	    access("/sys/kernel/debug/iommu-probe-lock", R_OK)) {
		if (!*when) {
			printf("SMMULAB: kernel without the kit's series: no driver counters\n");
			printf("RESULT kit-series=absent\n");
		}
		return;
	}
	printf("RESULT kernel-counters%s", when);
	print_counters("/sys/kernel/debug/arm-smmu-v3-cmdq");
	print_counters("/sys/kernel/debug/iommu-probe-lock");
	printf("\n");
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
	kernel_counters_report("");
}
