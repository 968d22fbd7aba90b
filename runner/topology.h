/*
 * smmulab: workload topologies (configs/topologies.ini)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_TOPOLOGY_H
#define SMMULAB_TOPOLOGY_H

#include <glib.h>

typedef struct SmmulabTopology {
    char *workload;
    char *description;
    guint cpus;
    char *memory;
    char *cpu;                  /* -cpu model (default cortex-a57) */
    guint pfs;
    GPtrArray *devices;         /* expanded -device values */
    gboolean needs_module;
    char *append;               /* kernel command line for the workload */
} SmmulabTopology;

/*
 * Load [@workload] from @file; @overrides ("key=value" strings, may be
 * NULL) replace keys of the file.  Errors name the file, group and key.
 */
SmmulabTopology *smmulab_topology_load(const char *file, const char *workload,
                                       char **overrides, GError **err);
void smmulab_topology_free(SmmulabTopology *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmmulabTopology, smmulab_topology_free)

/* QEMU arguments: -smp N -m MEM -device ... */
GPtrArray *smmulab_topology_qemu_args(const SmmulabTopology *t);

/* The guest's kernel command line starts so, on every boot */
#define SMMULAB_GUEST_CMDLINE "console=ttyAMA0 panic=-1 loglevel=7"

/*
 * The machine every smmulab boot runs, in one place for the runner and
 * scripts/boot.sh (smmulab-topology --machine): virt with its SMMUv3, the
 * topology's vCPUs, memory and devices, TCG (multi-threaded, or with
 * @icount_shift >= 0 single-threaded under -icount with a VM clock, and
 * with @quantum_ns > 0 in icount's lock-step quanta of that many ns: the
 * vCPUs run in parallel in virtual time; @quantum_yield continue, forfeit
 * or NULL for QEMU's default; @line_ns > 0, a contended cache line's
 * transfer costs that many ns), the console on stdio, nothing
 * else attached, no reboot.  Kernel, initrd, command line, model
 * properties and monitor are the caller's.
 */
GPtrArray *smmulab_machine_args(const SmmulabTopology *t, int icount_shift,
                                guint64 quantum_ns, const char *quantum_yield,
                                guint64 line_ns);

#endif
