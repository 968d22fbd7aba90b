/*
 * smmulab-lockups: where every CPU was at each soft lockup of a console log
 *
 *   smmulab-lockups [--dwarf FILE] [--json] [--all] LOG...
 *
 * Reads guest console logs (a runner's NN-variant-repN.log, boot.sh's
 * -l LOG) and prints, for each, the CPUs at its soft lockups grouped by
 * place (shared lock, queue space, CMD_SYNC, ...): the stuck CPU's, and
 * every CPU's where the guest ran with softlockup_all_cpu_backtrace=1.
 * The waits are inlined into arm_smmu_cmdq_issue_cmdlist(): --dwarf, the
 * driver's object with DWARF that scripts/build-kernel.sh leaves beside the
 * kernel (or a vmlinux with DWARF), tells them apart (default: BUILD/guest/
 * arm-smmu-v3.debug.o of the build this program is part of).
 *
 * Exit status: 0, 1 when a log cannot be read, 2 for bad usage.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

#include "lockup.h"

int main(int argc, char **argv)
{
    g_autofree char *dwarf = NULL;
    gboolean as_json = FALSE, every = FALSE;
    GOptionEntry entries[] = {
        { "dwarf", 0, 0, G_OPTION_ARG_FILENAME, &dwarf,
          "the driver's debug object, or a vmlinux with DWARF, of the "
          "kernel that ran", "FILE" },
        { "json", 0, 0, G_OPTION_ARG_NONE, &as_json,
          "one JSON object per log (as in runs.json)", NULL },
        { "all", 0, 0, G_OPTION_ARG_NONE, &every,
          "print every lockup kept CPU by CPU (up to 8; default: the first 3)", NULL },
        { NULL }
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("LOG... - where every CPU was at each soft lockup");
    g_autoptr(GError) err = NULL;
    int i, rc = 0;

    g_option_context_add_main_entries(ctx, entries, NULL);
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "smmulab-lockups: %s\n", err->message);
        return 2;
    }
    if (argc < 2) {
        fprintf(stderr, "smmulab-lockups: no console log given (usage: "
                "smmulab-lockups [--dwarf FILE] LOG...)\n");
        return 2;
    }
    if (!dwarf) {
        dwarf = g_strdup(SMMULAB_BUILD_ROOT "/guest/arm-smmu-v3.debug.o");
    }
    for (i = 1; i < argc; i++) {
        g_autoptr(SmmulabLockups) lk = smmulab_lockups_new();
        g_autoptr(JsonBuilder) b = json_builder_new();
        g_autoptr(JsonNode) root = NULL;
        g_autoptr(GString) t = g_string_new(NULL);
        g_autofree char *text = NULL;
        g_auto(GStrv) lines = NULL;
        guint j;

        if (!g_file_get_contents(argv[i], &text, NULL, &err)) {
            fprintf(stderr, "smmulab-lockups: %s\n", err->message);
            g_clear_error(&err);
            rc = 1;
            continue;
        }
        lines = g_strsplit(text, "\n", -1);
        for (j = 0; lines[j]; j++) {
            g_strchomp(lines[j]);
            smmulab_lockups_scan(lk, lines[j]);
        }
        smmulab_lockups_resolve(lk, dwarf);
        smmulab_lockups_to_json(lk, b);
        root = json_builder_get_root(b);
        if (as_json) {
            g_autofree char *s = json_to_string(root, FALSE);

            printf("%s\n", s);
            continue;
        }
        if (!smmulab_lockups_count(lk)) {
            printf("%s: no soft lockup\n", argv[i]);
            continue;
        }
        smmulab_lockups_text(json_node_get_object(root), t, "  ",
                             every ? G_MAXUINT : 3);
        printf("%s:\n%s", argv[i], t->str);
    }
    return rc;
}
