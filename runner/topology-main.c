/*
 * smmulab-topology: print the QEMU arguments of a workload's topology
 *
 *   smmulab-topology [--file configs/topologies.ini] WORKLOAD [KEY=VALUE...]
 *
 * One argument per line, then nothing else; with --append, the workload's
 * kernel command line instead (console options first, as every smmulab boot
 * has them); with --info, KEY=VALUE lines; with --machine [--icount SHIFT
 * [--quantum NS]],
 * the whole machine smmulab boots, the same arguments the runner uses.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

#include "topology.h"

int main(int argc, char **argv)
{
    g_autofree char *file = NULL;
    gboolean append = FALSE, info = FALSE, machine = FALSE;
    gint icount = -1;
    gint64 quantum = 0;
    GOptionEntry entries[] = {
        { "file", 0, 0, G_OPTION_ARG_FILENAME, &file,
          "topology file (default configs/topologies.ini)", "FILE" },
        { "append", 0, 0, G_OPTION_ARG_NONE, &append,
          "print the workload's kernel command line", NULL },
        { "info", 0, 0, G_OPTION_ARG_NONE, &info,
          "print cpus, memory, pfs, needs-module as KEY=VALUE", NULL },
        { "machine", 0, 0, G_OPTION_ARG_NONE, &machine,
          "print the whole machine smmulab boots, one argument per line",
          NULL },
        { "icount", 0, 0, G_OPTION_ARG_INT, &icount,
          "with --machine: deterministic, -icount shift=SHIFT", "SHIFT" },
        { "quantum", 0, 0, G_OPTION_ARG_INT64, &quantum,
          "with --icount: icount's lock-step quanta of NS ns of virtual "
          "time (the vCPUs run in parallel in virtual time)", "NS" },
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
        printf(SMMULAB_GUEST_CMDLINE " smmulab.workload=%s%s%s\n",
               t->workload, t->append ? " " : "", t->append ? t->append : "");
        return 0;
    }
    if (info) {
        printf("cpus=%u\nmemory=%s\npfs=%u\nneeds-module=%s\n", t->cpus,
               t->memory, t->pfs, t->needs_module ? "true" : "false");
        return 0;
    }
    if (icount > 10 || (icount >= 0 && !machine)) {
        fprintf(stderr, "smmulab-topology: --icount %d: 0..10, with --machine\n",
                icount);
        return 2;
    }
    if (quantum < 0 || quantum > 1000000000 || (quantum && icount < 0)) {
        fprintf(stderr, "smmulab-topology: --quantum %" G_GINT64_FORMAT
                ": 0..1000000000 ns, with --icount\n", quantum);
        return 2;
    }
    args = machine ? smmulab_machine_args(t, icount, quantum, NULL, 0) :
                     smmulab_topology_qemu_args(t);
    for (i = 0; i < args->len; i++) {
        printf("%s\n", (char *)g_ptr_array_index(args, i));
    }
    return 0;
}
