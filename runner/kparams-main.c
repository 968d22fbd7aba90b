/*
 * smmulab-kparams: the parameters a kernel knows, from its vmlinux
 *
 *   smmulab-kparams VMLINUX [OUT]
 *   smmulab-kparams --check LIST 'COMMAND LINE'
 *
 * The first form writes the list the runner checks kernel command lines
 * against (scripts/build-kernel.sh leaves it beside each Image as
 * Image.params): every module and core parameter with its type, its value
 * in force and, for the kit's choices, the values it takes, and every
 * __setup() and early_param() name.  Without OUT it prints the list.
 * The second checks a command line against a list as the runner does
 * before a boot.
 *
 * Exit status: 0; 1 when the kernel or list cannot be read, or the command
 * line is refused; 2 for bad usage.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

#include "kparams.h"

int main(int argc, char **argv)
{
    gboolean check = FALSE, version = FALSE;
    GOptionEntry entries[] = {
        { "check", 0, 0, G_OPTION_ARG_NONE, &check,
          "check COMMAND LINE against the list LIST", NULL },
        { "version", 0, 0, G_OPTION_ARG_NONE, &version,
          "print the version and exit", NULL },
        { NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(
        "VMLINUX [OUT] | --check LIST 'COMMAND LINE' - a kernel's parameters");
    g_autoptr(GError) err = NULL;
    g_autoptr(SmmulabKParams) kp = NULL;

    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_description(ctx, "Exit status: 0; 1 when the kernel "
        "or list cannot be read, or the command line is refused; 2 for bad "
        "usage.");
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "smmulab-kparams: %s\n", err->message);
        return 2;
    }
    if (version) {
        printf("smmulab-kparams %s\n", SMMULAB_VERSION);
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
