// SPDX-License-Identifier: GPL-2.0-only
/*
 * smmulab guest init: PID 1 of the guest's initramfs.
 *
 * Mounts proc, sysfs and debugfs, reads the workload and its parameters from
 * the kernel command line (smmulab.workload=NAME smmulab.KEY=VALUE ...), runs
 * it, prints machine-readable "RESULT key=value ..." lines on the console and
 * always powers the guest off, also after an error (printing why first).
 *
 * Static and dependency-free: built with aarch64-linux-gnu-gcc -static.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <time.h>

#include "smmulab-guest.h"

static char cmdline[4096];

/* Value of smmulab.KEY on the kernel command line, or NULL. */
const char *param_str(const char *key)
{
	static char val[256];
	char want[96];
	const char *p = cmdline;
	size_t n;

	snprintf(want, sizeof(want), "smmulab.%s=", key);
	n = strlen(want);
	while (p && *p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, want, n)) {
			size_t len = strcspn(p + n, " \n");

			if (len >= sizeof(val))
				len = sizeof(val) - 1;
			memcpy(val, p + n, len);
			val[len] = '\0';
			return val;
		}
		p = strchr(p, ' ');
	}
	return NULL;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* smmulab.KEY as an unsigned number in [min, max], or dflt when absent. */
unsigned long param_ulong(const char *key, unsigned long dflt,
			  unsigned long min, unsigned long max)
{
	const char *s = param_str(key);
	unsigned long v;
	char *end;

	if (!s)
		return dflt;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-')
		fail("smmulab.%s=%s is not a number", key, s);
	if (v < min || v > max)
		fail("smmulab.%s=%s is out of range %lu..%lu", key, s, min, max);
	return v;
}

uint64_t param_size(const char *key, uint64_t dflt, uint64_t min, uint64_t max)
{
	const char *s = param_str(key);
	unsigned long long v;
	char *end;

	if (!s)
		return dflt;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || s[0] == '-')
		fail("smmulab.%s=%s is not a size", key, s);
	switch (*end) {
	case 'G': case 'g':
		v <<= 10;
		/* fall through */
	case 'M': case 'm':
		v <<= 10;
		/* fall through */
	case 'K': case 'k':
		v <<= 10;
		end++;
		break;
	}
	if (*end)
		fail("smmulab.%s=%s is not a size (suffixes: K, M, G)", key, s);
	if (v < min || v > max)
		fail("smmulab.%s=%s is out of range %llu..%llu bytes", key, s,
		     (unsigned long long)min, (unsigned long long)max);
	return v;
}

static void __attribute__((noreturn)) poweroff(void)
{
	fflush(stdout);
	fflush(stderr);
	sync();
	reboot(RB_POWER_OFF);
	/* Only reached when the kernel refused: nothing left but to wait. */
	for (;;)
		pause();
}

void fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	printf("SMMULAB: error: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	kernel_log_report();
	printf("RESULT status=error\n");
	poweroff();
}

/* The workload cannot run here: say why, and power off. */
void skip(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	printf("SMMULAB: skipped: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	kernel_log_report();
	printf("RESULT status=skipped\n");
	poweroff();
}

void info(const char *fmt, ...)
{
	va_list ap;

	printf("SMMULAB: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void mount_fs(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		fail("mount %s on %s: %s", type, dir, strerror(errno));
}

/*
 * smmulab.selftest=panic|hang|flood, for testing the harness: instead of
 * the workload, make the kernel panic, hang, or flood the console.
 */
static void selftest(const char *what)
{
	unsigned long n = 0;

	if (!strcmp(what, "panic")) {
		info("selftest: PID 1 exits, the kernel panics");
		fflush(stdout);
		exit(1);
	} else if (!strcmp(what, "hang")) {
		info("selftest: hanging until the host's timeout");
		for (;;)
			pause();
	} else if (!strcmp(what, "flood")) {
		info("selftest: flooding the console until the host's timeout");
		for (;;)
			printf("SMMULAB: flood %lu ........................................................................\n",
			       n++);
	}
	fail("smmulab.selftest=%s: not panic, hang or flood", what);
}

static const struct workload workloads[] = {
	{ "dma-bench", "kernel dma_map_benchmark on a PCI device behind the SMMU",
	  workload_dma_bench },
	{ "map-unmap", "threads mapping and unmapping DMA buffers (smmulab_bench)",
	  workload_map_unmap },
	{ "unmap-storm", "every CPU maps then unmaps large buffers in chunks (smmulab_bench)",
	  workload_unmap_storm },
	{ "asid-flush", "every CPU flushes the device's whole IOTLB in a loop (smmulab_bench)",
	  workload_asid_flush },
	{ "probe-storm", "SR-IOV PFs enable their VFs at once; VF IOMMU probe time",
	  workload_probe_storm },
	{ "probe-storm-nvme", "probe-storm on the nvme topology (4 PFs x 127 VFs)",
	  workload_probe_storm },
	{ "group-storm", "functions of multifunction devices probed at once, many rounds; IOMMU groups checked",
	  workload_group_storm },
	{ "none", "boot, report and power off", NULL },
};

int main(void)
{
	const struct workload *w = NULL;
	const char *name;
	FILE *f;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mount_fs("proc", "/proc", "proc");
	mount_fs("sysfs", "/sys", "sysfs");
	mount_fs("debugfs", "/sys/kernel/debug", "debugfs");

	f = fopen("/proc/cmdline", "r");
	if (!f || !fgets(cmdline, sizeof(cmdline), f))
		fail("cannot read /proc/cmdline");
	fclose(f);

	name = param_str("workload");
	if (!name)
		name = "dma-bench";
	for (i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
		if (!strcmp(workloads[i].name, name))
			w = &workloads[i];
	}
	if (!w) {
		printf("SMMULAB: known workloads:");
		for (i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
			printf(" %s", workloads[i].name);
		printf("\n");
		fail("unknown workload smmulab.workload=%s", name);
	}

	watchdog_setup();
	if (param_str("selftest"))
		selftest(param_str("selftest"));
	info("workload %s: %s", w->name, w->help);
	if (w->run)
		w->run();
	kernel_log_report();
	printf("RESULT status=ok workload=%s\n", w->name);
	poweroff();
	return 0;
}
