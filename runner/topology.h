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

#endif
