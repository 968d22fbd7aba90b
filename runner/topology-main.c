/*
 * smmulab-topology: print the QEMU arguments of a workload's topology
 *
 *   smmulab-topology [--file configs/topologies.ini] WORKLOAD [KEY=VALUE...]
 *
 * One argument per line, then nothing else; with --append, the workload's
 * kernel command line instead; with --info, KEY=VALUE lines.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

#include "topology.h"

int main(int argc, char **argv)
{
    g_autofree char *file = NULL;
    gboolean append = FALSE, info = FALSE;
    GOptionEntry entries[] = {
        { "file", 0, 0, G_OPTION_ARG_FILENAME, &file,
          "topology file (default configs/topologies.ini)", "FILE" },
        { "append", 0, 0, G_OPTION_ARG_NONE, &append,
          "print the workload's kernel command line", NULL },
        { "info", 0, 0, G_OPTION_ARG_NONE, &info,
          "print cpus, memory, pfs, needs-module as KEY=VALUE", NULL },
        { NULL }
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("WORKLOAD [KEY=VALUE...] - QEMU arguments of a workload");
    g_autoptr(GError) err = NULL;
    g_autoptr(SmmulabTopology) t = NULL;
    g_autoptr(GPtrArray) args = NULL;
    guint i;

    g_option_context_add_main_entries(ctx, entries, NULL);
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "smmulab-topology: %s\n", err->message);
        return 2;
    }
    if (argc < 2) {
        fprintf(stderr, "smmulab-topology: usage: smmulab-topology [--file FILE] WORKLOAD [KEY=VALUE...]\n");
        return 2;
    }
    t = smmulab_topology_load(file ? file : "configs/topologies.ini", argv[1],
                              argv + 2, &err);
    if (!t) {
        fprintf(stderr, "smmulab-topology: %s\n", err->message);
        return 1;
    }
    if (append) {
        printf("smmulab.workload=%s%s%s\n", t->workload,
               t->append ? " " : "", t->append ? t->append : "");
        return 0;
    }
    if (info) {
        printf("cpus=%u\nmemory=%s\npfs=%u\nneeds-module=%s\n", t->cpus,
               t->memory, t->pfs, t->needs_module ? "true" : "false");
        return 0;
    }
    args = smmulab_topology_qemu_args(t);
    for (i = 0; i < args->len; i++) {
        printf("%s\n", (char *)g_ptr_array_index(args, i));
    }
    return 0;
}
