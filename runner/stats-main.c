/*
 * smmulab-stats: read the SMMU model's x-cmdq-stats counters over QMP
 *
 *   smmulab-stats --qmp SOCKET [--wait-shutdown SECONDS] [--quit]
 *
 * Prints the counters as one JSON object.  With --wait-shutdown it first
 * waits for the guest to power off (QEMU started with -no-shutdown keeps the
 * device alive for this read); with --quit it then ends QEMU.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>

#include "qmp.h"

int main(int argc, char **argv)
{
    g_autofree char *sock = NULL;
    gint wait_shutdown = -1;
    gboolean quit = FALSE;
    GOptionEntry entries[] = {
        { "qmp", 0, 0, G_OPTION_ARG_FILENAME, &sock,
          "QEMU's QMP unix socket", "SOCKET" },
        { "wait-shutdown", 0, 0, G_OPTION_ARG_INT, &wait_shutdown,
          "wait up to SECONDS for the guest to power off first", "SECONDS" },
        { "quit", 0, 0, G_OPTION_ARG_NONE, &quit,
          "end QEMU after reading", NULL },
        { NULL }
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("- print the SMMU model's x-cmdq-stats");
    g_autoptr(GError) err = NULL;
    g_autoptr(JsonNode) stats = NULL;
    g_autofree char *path = NULL;
    g_autofree char *text = NULL;
    SmmulabQmp *q;

    g_option_context_add_main_entries(ctx, entries, NULL);
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "smmulab-stats: %s\n", err->message);
        return 2;
    }
    if (!sock) {
        fprintf(stderr, "smmulab-stats: --qmp SOCKET is required\n");
        return 2;
    }
    q = smmulab_qmp_connect(sock, 30000, &err);
    if (!q) {
        fprintf(stderr, "smmulab-stats: %s\n", err->message);
        return 1;
    }
    if (wait_shutdown >= 0 &&
        !smmulab_qmp_wait_event(q, "SHUTDOWN", wait_shutdown * 1000, &err)) {
        fprintf(stderr, "smmulab-stats: %s\n", err->message);
        g_clear_error(&err);
    }
    path = smmulab_qmp_find_smmu(q, &err);
    if (path) {
        stats = smmulab_qmp_cmdq_stats(q, path, &err);
    }
    if (stats) {
        text = json_to_string(stats, TRUE);
        printf("%s\n", text);
    } else {
        fprintf(stderr, "smmulab-stats: %s\n", err->message);
    }
    if (quit) {
        g_autoptr(GError) qerr = NULL;
        g_autoptr(JsonNode) r = smmulab_qmp_execute(q, "quit", NULL, &qerr);
    }
    smmulab_qmp_close(q);
    return stats ? 0 : 1;
}
