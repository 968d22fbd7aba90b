/* SPDX-License-Identifier: GPL-2.0-only */
/* smmulab guest init: shared declarations. */
#ifndef SMMULAB_GUEST_H
#define SMMULAB_GUEST_H

#include <stddef.h>
#include <stdint.h>

#define PCI_DEVICES "/sys/bus/pci/devices"

struct workload {
	const char *name;
	const char *help;
	void (*run)(void);
};

/* kernel command line (init.c) */
const char *param_str(const char *key);
unsigned long param_ulong(const char *key, unsigned long dflt,
			  unsigned long min, unsigned long max);
/* a size in bytes, with an optional K, M or G suffix */
uint64_t param_size(const char *key, uint64_t dflt, uint64_t min, uint64_t max);
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t now_ns(void);

/* sysfs helpers (sysfs.c) */
int sysfs_write(const char *path, const char *val);
int sysfs_read(const char *path, char *buf, size_t len);

/* PCI (pci.c) */
int pci_iommu_group(const char *bdf);
const char *pci_find_vendor(const char *vendor_id);
void pci_bind(const char *bdf, const char *driver);
const char *pci_bench_device(const char *driver);

/* kernel log (klog.c) */
void watchdog_setup(void);
void kernel_log_report(void);
/* RESULT kernel-counters[WHEN]: the kit kernel's CMDQ and probe lock counters */
void kernel_counters_report(const char *when);

/* workloads */
void workload_dma_bench(void);
void workload_map_unmap(void);
void workload_unmap_storm(void);
void workload_asid_flush(void);
void workload_probe_storm(void);
void workload_group_storm(void);

#endif
