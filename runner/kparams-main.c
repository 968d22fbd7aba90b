/*
 * smmulab-kparams: the parameters a kernel knows, from its vmlinux
 *
 *   smmulab-kparams VMLINUX [OUT]
 *   smmulab-kparams --check LIST 'COMMAND LINE'
 *   smmulab-kparams --verify CONSOLE.log 'COMMAND LINE'
 *
 * The first form writes the list the runner checks kernel command lines
 * against (scripts/build-kernel.sh leaves it beside each Image as
 * Image.params): every module and core parameter with its type, its value
 * in force and, for the kit's choices, the values it takes, and every
 * __setup() and early_param() name.  Without OUT it prints the list.
 * The second checks a command line against a list as the runner does
 * before a boot; the third, after a boot, the kernel's own word on it in
 * the console (the kernel's command line, its refusals, what the kit
 * printed it runs), as the runner does (scripts/boot.sh calls both).
 *
 * Exit status: 0; 1 when the kernel, list or log cannot be read, or the
 * command line is refused (or did not run as asked); 2 for bad usage.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

#include "kparams.h"

int main(int argc, char **argv)
{
    gboolean check = FALSE, verify = FALSE, version = FALSE;
    GOptionEntry entries[] = {
        { "check", 0, 0, G_OPTION_ARG_NONE, &check,
          "check COMMAND LINE against the list LIST", NULL },
        { "verify", 0, 0, G_OPTION_ARG_NONE, &verify,
          "whether the boot whose console is LOG ran COMMAND LINE as asked",
          NULL },
        { "version", 0, 0, G_OPTION_ARG_NONE, &version,
          "print the version and exit", NULL },
        { NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(
        "VMLINUX [OUT] | --check LIST 'COMMAND LINE' | --verify LOG "
        "'COMMAND LINE' - a kernel's parameters");
    g_autoptr(GError) err = NULL;
    g_autoptr(SmmulabKParams) kp = NULL;

    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_description(ctx, "Exit status: 0; 1 when the kernel, "
        "list or log cannot be read, or the command line is refused (or did "
        "not run as asked); 2 for bad usage.");
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "smmulab-kparams: %s\n", err->message);
        return 2;
    }
    if (version) {
        printf("smmulab-kparams %s\n", SMMULAB_VERSION);
        return 0;
    }
    if (verify) {
        g_autofree char *log = NULL;
        g_autoptr(SmmulabRan) ran = smmulab_ran_new();
        g_autofree char *bad = NULL;
        g_auto(GStrv) lines = NULL;
        guint i;

        if (argc != 3 || check) {
            fprintf(stderr, "smmulab-kparams: usage: smmulab-kparams --verify "
                    "LOG 'COMMAND LINE'\n");
            return 2;
        }
        if (!g_file_get_contents(argv[1], &log, NULL, &err)) {
            fprintf(stderr, "smmulab-kparams: %s\n", err->message);
            return 1;
        }
        lines = g_strsplit(log, "\n", -1);
        for (i = 0; lines[i]; i++) {
            g_strchomp(lines[i]);
            smmulab_ran_scan(ran, lines[i]);
        }
        bad = smmulab_kparams_verify(ran, argv[2]);
        if (bad) {
            fprintf(stderr, "smmulab-kparams: %s\n", bad);
            return 1;
        }
        printf("ok: ran %s\n", argv[2]);
        return 0;
    }
    if (check) {
        if (argc != 3) {
            fprintf(stderr, "smmulab-kparams: usage: smmulab-kparams --check "
                    "LIST 'COMMAND LINE'\n");
            return 2;
        }
        kp = smmulab_kparams_load(argv[1], &err);
        if (!kp || !smmulab_kparams_check(kp, argv[2], &err)) {
            fprintf(stderr, "smmulab-kparams: %s\n", err->message);
            return 1;
        }
        printf("ok: %s\n", argv[2]);
        return 0;
    }
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "smmulab-kparams: usage: smmulab-kparams VMLINUX "
                "[OUT] (--help)\n");
        return 2;
    }
    kp = smmulab_kparams_from_vmlinux(argv[1], &err);
    if (!kp) {
        fprintf(stderr, "smmulab-kparams: %s\n", err->message);
        return 1;
    }
    if (argc == 3) {
        if (!smmulab_kparams_save(kp, argv[2], &err)) {
            fprintf(stderr, "smmulab-kparams: %s\n", err->message);
            return 1;
        }
        return 0;
    }
    {
        g_autofree char *text = smmulab_kparams_format(kp);

        fputs(text, stdout);
    }
    return 0;
}
