/* SPDX-License-Identifier: GPL-2.0-only */
/* smmulab guest init: shared declarations. */
#ifndef SMMULAB_GUEST_H
#define SMMULAB_GUEST_H

struct workload {
	const char *name;
	const char *help;
	void (*run)(void);
};

const char *param_str(const char *key);
unsigned long param_ulong(const char *key, unsigned long dflt,
			  unsigned long min, unsigned long max);
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* sysfs helpers (sysfs.c) */
int sysfs_write(const char *path, const char *val);
int sysfs_read(const char *path, char *buf, size_t len);

/* kernel log (klog.c) */
void watchdog_setup(void);
void kernel_log_report(void);

/* workloads */
void workload_dma_bench(void);

#endif
