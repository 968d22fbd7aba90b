/*
 * smmulab-run: run a scenario and write its report; one command with
 * subcommands, the way git and perf are used
 *
 *   smmulab-run [run] [OPTION...] SCENARIO.ini   boot it and report
 *   smmulab-run check SCENARIO.ini    validate, print the plan and its power
 *   smmulab-run list SCENARIO.ini     the plan, one JSON line per boot
 *   smmulab-run shard I/N SCENARIO.ini        boots I, I+N, ... of the plan
 *   smmulab-run report DIR            remake DIR's report from runs.json
 *   smmulab-run merge --out DIR SHARD_DIR...  shards into one result
 *   smmulab-run resume DIR            the boots DIR's runs.json lacks
 *   smmulab-run metrics               every metric id primary= takes
 *   smmulab-run lockups|stats|topology|kparams ...   the other tools
 *
 * The options of old (--check, --list, --report DIR, --merge, --resume
 * DIR, --metrics) still work.  Every subcommand has its own --help.
 *
 * Exit status (every command; docs/scenarios.md has the table): 0 ok; 3
 * some run failed (the report says which); 2 a bad command line, or a file
 * or directory it names refused; 1 anything else (a runs.json that cannot
 * be read or written); 128 + N after signal N (the running QEMU is killed,
 * the report written).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "report.h"
#include "report-internal.h"
#include "run-cmd.h"
#include "scenario.h"

#define EXIT_TEXT "Exit status (every command): 0 ok; 3 some run failed " \
    "(the report says which); 2 a bad command line, or a file or " \
    "directory it names refused (one line on stderr); 1 anything else (a " \
    "runs.json that cannot be read or written); 128 + N after signal N (the " \
    "running QEMU is killed, the report of what ended written: complete " \
    "it with resume).  docs/scenarios.md, \"Exit status\"."

/* Which options a command takes */
enum {
    O_BUILD = 1 << 0, O_OUT = 1 << 1, O_TOPO = 1 << 2, O_REPEAT = 1 << 3,
    O_SEED = 1 << 4, O_TRACE = 1 << 5, O_NOCTL = 1 << 6, O_CAP = 1 << 7,
    O_SHARD = 1 << 8, O_ONLY = 1 << 9, O_PARTIAL = 1 << 10,
    O_PLAN = O_BUILD | O_TOPO | O_REPEAT | O_SEED | O_NOCTL | O_SHARD | O_ONLY,
    O_RUN = O_PLAN | O_OUT | O_TRACE | O_CAP,
};

static GOptionEntry *entries_for(SmmulabOpts *o, guint mask)
{
    const struct {
        guint bit;
        GOptionEntry e;
    } all[] = {
        { O_BUILD, { "build", 0, 0, G_OPTION_ARG_FILENAME, &o->build,
          "build directory (default: ./build, else the runner's own)",
          "DIR" } },
        { O_OUT, { "out", 0, 0, G_OPTION_ARG_FILENAME, &o->out,
          "output directory, new or empty: one that holds anything (a "
          "result) is refused, never overwritten (default: "
          "BUILD/reports/NAME-TIME)", "DIR" } },
        { O_TOPO, { "topologies", 0, 0, G_OPTION_ARG_FILENAME, &o->topologies,
          "workload topologies (default: configs/topologies.ini)", "FILE" } },
        { O_REPEAT, { "repeat", 0, 0, G_OPTION_ARG_INT, &o->repeat,
          "runs per variant, instead of the scenario's (1..100)", "N" } },
        { O_SEED, { "seed", 0, 0, G_OPTION_ARG_STRING, &o->seed,
          "the scenario's seed, instead of its seed=", "N" } },
        { O_TRACE, { "trace", 0, 0, G_OPTION_ARG_NONE, &o->trace,
          "record each run's timeline for Perfetto's UI "
          "(NN-...trace.json: the model's queue and the guest's lockups)",
          NULL } },
        { O_NOCTL, { "no-control", 0, 0, G_OPTION_ARG_NONE, &o->no_control,
          "skip the control runs", NULL } },
        { O_CAP, { "console-cap", 0, 0, G_OPTION_ARG_INT64, &o->console_cap,
          "bytes of each console kept in its log (default 64 MiB, at least "
          "4096)", "BYTES" } },
        { O_SHARD, { "shard", 0, 0, G_OPTION_ARG_STRING, &o->shard,
          "only boots I, I+N, I+2N... of the plan", "I/N" } },
        { O_ONLY, { "only", 0, 0, G_OPTION_ARG_STRING, &o->only,
          "only these boots of the plan", "K[,K...]" } },
        { O_PARTIAL, { "partial", 0, 0, G_OPTION_ARG_NONE, &o->partial,
          "merge even when boots of the plan are in none of the "
          "directories (they are named on stderr)", NULL } },
    };
    GOptionEntry *e = g_new0(GOptionEntry, G_N_ELEMENTS(all) + 1);
    guint i, n = 0;

    for (i = 0; i < G_N_ELEMENTS(all); i++) {
        if (mask & all[i].bit) {
            e[n++] = all[i].e;
        }
    }
    return e;
}

/* Options are checked like the scenario keys they stand for */
static gboolean opts_valid(const SmmulabOpts *o)
{
    g_autoptr(GError) err = NULL;

    if (o->repeat != -1) {
        g_autofree char *v = g_strdup_printf("%d", o->repeat);

        if (!smmulab_scenario_check_value("--repeat", "scenario", "repeat",
                                          v, &err)) {
            fprintf(stderr, "smmulab-run: %s\n", err->message);
            return FALSE;
        }
    }
    if (o->console_cap < 4096) {
        fprintf(stderr, "smmulab-run: --console-cap=%" G_GINT64_FORMAT
                ": not a number of bytes of 4096 or more\n", o->console_cap);
        return FALSE;
    }
    return TRUE;
}

/* Parse @argv for command @cmd; FALSE (usage printed) on a bad option */
static gboolean parse(const char *cmd, const char *params,
                      const char *summary, guint mask, SmmulabOpts *o,
                      int *argc, char ***argv)
{
    g_autofree GOptionEntry *e = entries_for(o, mask);
    g_autofree char *what = g_strdup_printf("%s - %s", params, summary);
    g_autoptr(GOptionContext) ctx = g_option_context_new(what);
    g_autoptr(GError) err = NULL;
    g_autofree char *prg = g_strdup_printf("smmulab-run %s", cmd);

    g_set_prgname(prg);
    g_option_context_add_main_entries(ctx, e, NULL);
    g_option_context_set_description(ctx, EXIT_TEXT);
    if (!g_option_context_parse(ctx, argc, argv, &err)) {
        fprintf(stderr, "smmulab-run %s: %s\n", cmd, err->message);
        return FALSE;
    }
    return opts_valid(o);
}

static int usage(const char *cmd, const char *params)
{
    fprintf(stderr, "smmulab-run: usage: smmulab-run %s%s%s (--help)\n", cmd,
            *params ? " " : "", params);
    return 2;
}

static int cmd_report(const char *dir)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *text = NULL;

    /* as resume DIR: no directory 2, no readable runs.json 1 */
    if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
        fprintf(stderr, "smmulab-run: report %s: no such directory\n", dir);
        return 2;
    }
    text = smmulab_report_from_dir(dir, &err);
    if (!text) {
        fprintf(stderr, "smmulab-run: %s\n", err->message);
        return 1;
    }
    fputs(text, stdout);
    printf("report: %s/report.html, report.txt, report.json, report.svg\n",
           dir);
    return 0;
}

static int cmd_merge(const char *out, int n, char **dirs, gboolean partial)
{
    int rc = smmulab_record_merge(dirs, n, out, partial);
    g_autoptr(GError) err = NULL;
    g_autofree char *text = NULL;

    if (rc) {
        return rc;
    }
    text = smmulab_report_from_dir(out, &err);
    if (!text) {
        fprintf(stderr, "smmulab-run: %s\n", err->message);
        return 1;
    }
    fputs(text, stdout);
    printf("report: %s/report.html, report.txt, report.json, report.svg "
           "(the runs of %d director%s)\n", out, n, n == 1 ? "y" : "ies");
    return 0;
}

static int cmd_metrics(void)
{
    g_autofree char *md = report_metrics_markdown();

    fputs(md, stdout);
    return 0;
}

/* lockups, stats, topology, kparams: the program of that name beside us */
static int cmd_tool(const char *name, char **argv)
{
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    g_autofree char *dir = exe ? g_path_get_dirname(exe) : g_strdup(".");
    g_autofree char *prog = g_strdup_printf("%s/smmulab-%s", dir, name);

    argv[0] = prog;
    execv(prog, argv);
    fprintf(stderr, "smmulab-run %s: cannot run %s: %s\n", name, prog,
            g_strerror(errno));
    return 1;
}

static const struct {
    const char *name, *params, *summary;
} commands[] = {
    { "run", "SCENARIO.ini", "boot the variants of a scenario and report "
      "(the default command)" },
    { "check", "SCENARIO.ini", "validate the scenario and each variant's "
      "kernel parameters, print the plan and what its n can detect" },
    { "list", "SCENARIO.ini", "the plan, one JSON line per boot" },
    { "shard", "I/N SCENARIO.ini", "run boots I, I+N, I+2N... of the plan "
      "(merge the shards' directories later)" },
    { "report", "DIR", "remake DIR's report from its runs.json" },
    { "merge", "--out DIR [--partial] SHARD_DIR...", "the runs of shards "
      "of one plan into DIR, in plan order, and their report (refused "
      "when boots of the plan are missing, unless --partial)" },
    { "resume", "DIR", "complete an interrupted run: the boots DIR's "
      "runs.json lacks, with the scenario, seed, repeat and shard recorded "
      "there, then the report" },
    { "metrics", "", "every metric id a scenario's primary= takes" },
    /* the tools' own usage lines: tests/runner.sh holds them to each --help */
    { "lockups", "[--dwarf FILE] [--json] [--all] LOG...", "where every CPU "
      "was at each soft lockup of a console log (smmulab-lockups)" },
    { "stats", "--qmp SOCKET [--wait-shutdown SECONDS] [--quit]", "a "
      "running QEMU's model counters (smmulab-stats)" },
    { "topology", "[--file FILE] WORKLOAD [KEY=VALUE...]", "a workload's "
      "machine (smmulab-topology)" },
    { "kparams", "VMLINUX [OUT] | --check LIST 'COMMAND LINE' | --verify "
      "LOG 'COMMAND LINE'", "a kernel's parameters from its vmlinux; a "
      "command line checked against them, or against a boot's console "
      "(smmulab-kparams)" },
};

static int cmd_help(void)
{
    guint i;

    printf("usage: smmulab-run [COMMAND] [OPTION...] ARGS (COMMAND --help "
           "for its options)\n\ncommands:\n");
    for (i = 0; i < G_N_ELEMENTS(commands); i++) {
        printf("  %-9s %s\n            %s\n", commands[i].name,
               commands[i].params, commands[i].summary);
    }
    printf("\nWithout a command: run, with its options, and the old "
           "--check, --list,\n--report DIR, --merge, --resume DIR, "
           "--metrics and --version.\n\n%s\n", EXIT_TEXT);
    return 0;
}

/* The options of before the subcommands: run with mode flags */
static int legacy(SmmulabOpts *o, int argc, char **argv, int argc0,
                  char **argv0)
{
    gboolean check = FALSE, list = FALSE, merge = FALSE, metrics = FALSE;
    gboolean version = FALSE;
    g_autofree char *report = NULL, *resume = NULL;
    GOptionEntry modes[] = {
        { "check", 0, 0, G_OPTION_ARG_NONE, &check,
          "as the command check", NULL },
        { "list", 0, 0, G_OPTION_ARG_NONE, &list,
          "as the command list", NULL },
        { "report", 0, 0, G_OPTION_ARG_FILENAME, &report,
          "as the command report DIR", "DIR" },
        { "resume", 0, 0, G_OPTION_ARG_FILENAME, &resume,
          "as the command resume DIR", "DIR" },
        { "merge", 0, 0, G_OPTION_ARG_NONE, &merge,
          "as the command merge", NULL },
        { "metrics", 0, 0, G_OPTION_ARG_NONE, &metrics,
          "as the command metrics", NULL },
        { "version", 0, 0, G_OPTION_ARG_NONE, &version,
          "print the version and exit", NULL },
        { NULL }
    };
    g_autofree GOptionEntry *e = entries_for(o, O_RUN | O_PARTIAL);
    g_autoptr(GOptionContext) ctx = g_option_context_new(
        "SCENARIO.ini - boot the variants of a scenario and report "
        "(smmulab-run help: every command)");
    g_autoptr(GOptionGroup) g = g_option_group_new("modes", "Modes (the "
        "commands of the same names):", "the commands", NULL, NULL);
    g_autoptr(GError) err = NULL;

    g_option_group_add_entries(g, modes);
    g_option_context_add_main_entries(ctx, e, NULL);
    g_option_context_add_group(ctx, g_steal_pointer(&g));
    g_option_context_set_description(ctx, EXIT_TEXT);
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "smmulab-run: %s\n", err->message);
        return 2;
    }
    if (version) {
        printf("smmulab-run %s\n", SMMULAB_VERSION);
        return 0;
    }
    if (metrics) {
        return cmd_metrics();
    }
    if (!opts_valid(o)) {
        return 2;
    }
    if (o->partial && !merge) {
        return usage("merge", "--out DIR [--partial] SHARD_DIR...");
    }
    if (merge) {
        return argc < 2 || !o->out ?
               usage("merge", "--out DIR [--partial] SHARD_DIR...") :
               cmd_merge(o->out, argc - 1, argv + 1, o->partial);
    }
    if (report) {
        return cmd_report(report);
    }
    if (resume) {
        if (argc != 1 || o->out || o->seed || o->repeat != -1 ||
            o->no_control || o->shard || o->only || check || list) {
            return usage("resume", "[--build DIR] [--trace] DIR (the "
                         "scenario, its seed, repeat, control and shard are "
                         "DIR's)");
        }
        return smmulab_cmd_scenario(o, SMMULAB_MODE_RESUME, resume, argc0,
                                    argv0);
    }
    if (argc != 2) {
        return usage("[run]", "[OPTION...] SCENARIO.ini");
    }
    return smmulab_cmd_scenario(o, check ? SMMULAB_MODE_CHECK :
                                list ? SMMULAB_MODE_LIST : SMMULAB_MODE_RUN,
                                argv[1], argc0, argv0);
}

int main(int argc, char **argv)
{
    SmmulabOpts o = { .repeat = -1, .console_cap = 64 << 20 };
    g_auto(GStrv) argv0 = g_strdupv(argv);
    int argc0 = argc;
    const char *cmd = argc > 1 ? argv[1] : "";
    guint i;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = 0; i < G_N_ELEMENTS(commands); i++) {
        if (!strcmp(cmd, commands[i].name)) {
            break;
        }
    }
    if (!strcmp(cmd, "help")) {
        return cmd_help();
    }
    if (i == G_N_ELEMENTS(commands)) {
        return legacy(&o, argc, argv, argc0, argv0);
    }
    /* from here on argv[0] is the command */
    argc--;
    argv++;
    if (!strcmp(cmd, "lockups") || !strcmp(cmd, "stats") ||
        !strcmp(cmd, "topology") || !strcmp(cmd, "kparams")) {
        return cmd_tool(cmd, argv);
    }
    if (!parse(cmd, commands[i].params, commands[i].summary,
               !strcmp(cmd, "run") || !strcmp(cmd, "shard") ? O_RUN :
               !strcmp(cmd, "check") || !strcmp(cmd, "list") ? O_PLAN :
               !strcmp(cmd, "resume") ? O_BUILD | O_TRACE | O_CAP :
               !strcmp(cmd, "merge") ? O_OUT | O_PARTIAL : 0, &o, &argc,
               &argv)) {
        return 2;
    }
    if (!strcmp(cmd, "merge")) {
        return argc < 2 || !o.out ? usage(cmd, commands[i].params) :
               cmd_merge(o.out, argc - 1, argv + 1, o.partial);
    } else if (!strcmp(cmd, "metrics")) {
        return argc != 1 ? usage(cmd, "") : cmd_metrics();
    } else if (!strcmp(cmd, "shard")) {
        if (argc != 3 || o.shard) {
            return usage(cmd, commands[i].params);
        }
        o.shard = g_strdup(argv[1]);
        return smmulab_cmd_scenario(&o, SMMULAB_MODE_RUN, argv[2], argc0,
                                    argv0);
    } else if (argc != 2) {
        return usage(cmd, commands[i].params);
    } else if (!strcmp(cmd, "report")) {
        return cmd_report(argv[1]);
    }
    return smmulab_cmd_scenario(&o, !strcmp(cmd, "check") ?
                                SMMULAB_MODE_CHECK : !strcmp(cmd, "list") ?
                                SMMULAB_MODE_LIST : !strcmp(cmd, "resume") ?
                                SMMULAB_MODE_RESUME : SMMULAB_MODE_RUN,
                                argv[1], argc0, argv0);
}
