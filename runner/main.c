/*
 * smmulab-run: run a scenario and write its report
 *
 *   smmulab-run [--build DIR] [--out DIR] SCENARIO.ini
 *   smmulab-run --check SCENARIO.ini      validate and print the plan
 *   smmulab-run --report DIR              remake DIR's report from runs.json
 *
 * Every variant (and sweep point) is booted REPEAT times, then, unless the
 * scenario says control=off, each variant once more on fast hardware.
 * Each run's console log and QEMU command line are kept under the output
 * directory, runs.json is rewritten after every run, and report.txt,
 * report.json and report.svg are written at the end.
 *
 * Exit status: 0 all runs ok; 3 some run failed (the report says which);
 * 128 + N after signal N (the running QEMU is killed, the report written);
 * 2 bad scenario or usage; 1 anything else.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "provenance.h"
#include "report.h"
#include "run.h"
#include "scenario.h"
#include "topology.h"

typedef struct Plan {
    guint index;                /* 1-based, in the whole plan */
    const char *variant;
    const char *append;
    const char *kernel;         /* the variant's own, or NULL */
    const char *initrd;
    const char *point;          /* sweep value or NULL */
    gboolean control;
    guint rep;
} Plan;

static void add_string_member(JsonBuilder *b, const char *name,
                              const char *value)
{
    json_builder_set_member_name(b, name);
    if (value) {
        json_builder_add_string_value(b, value);
    } else {
        json_builder_add_null_value(b);
    }
}

static JsonNode *scenario_json(const SmmulabScenario *sc, const char *topologies)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(SmmulabTopology) topo = smmulab_topology_load(topologies,
                                                            sc->workload,
                                                            NULL, NULL);
    g_autofree char *smmu = NULL, *machine = NULL, *cpus = NULL;
    guint i;

    if (sc->smmu->len) {
        GString *all = g_string_new(NULL);

        for (i = 0; i < sc->smmu->len; i++) {
            g_string_append_printf(all, "%s%s", i ? " " : "",
                                   (char *)g_ptr_array_index(sc->smmu, i));
        }
        smmu = g_string_free(all, FALSE);
    } else {
        smmu = g_strdup("upstream defaults (fast)");
    }
    if (sc->sweep_group && !strcmp(sc->sweep_group, "machine") &&
        !strcmp(sc->sweep_key, "cpus")) {
        cpus = g_strdup("swept");
    } else {
        cpus = g_strdup_printf("%u", sc->cpus ? sc->cpus :
                               (topo ? topo->cpus : 0));
    }
    machine = g_strdup_printf("%s vCPUs, %s memory, icount %s", cpus,
                              sc->memory ? sc->memory :
                              (topo ? topo->memory : "?"),
                              sc->icount ? "on (deterministic)" : "off");
    json_builder_begin_object(b);
    add_string_member(b, "file", sc->file);
    add_string_member(b, "name", sc->name);
    if (sc->description) {
        add_string_member(b, "description", sc->description);
    }
    add_string_member(b, "workload", sc->workload);
    json_builder_set_member_name(b, "repeat");
    json_builder_add_int_value(b, sc->repeat);
    json_builder_set_member_name(b, "icount");
    json_builder_add_boolean_value(b, sc->icount);
    json_builder_set_member_name(b, "control");
    json_builder_add_boolean_value(b, sc->control);
    add_string_member(b, "smmu", smmu);
    add_string_member(b, "machine", machine);
    add_string_member(b, "baseline", sc->baseline ? sc->baseline :
                      ((SmmulabVariant *)g_ptr_array_index(sc->variants,
                                                           0))->name);
    json_builder_set_member_name(b, "variants");
    json_builder_begin_array(b);
    for (i = 0; i < sc->variants->len; i++) {
        SmmulabVariant *v = g_ptr_array_index(sc->variants, i);

        json_builder_begin_object(b);
        add_string_member(b, "name", v->name);
        add_string_member(b, "append", v->append);
        if (v->kernel) {
            add_string_member(b, "kernel", v->kernel);
        }
        if (v->initrd) {
            add_string_member(b, "initrd", v->initrd);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    if (sc->sweep_group) {
        g_autofree char *key = g_strdup_printf("%s.%s", sc->sweep_group,
                                               sc->sweep_key);

        add_string_member(b, "sweep_key", key);
        json_builder_set_member_name(b, "sweep_values");
        json_builder_begin_array(b);
        for (i = 0; i < sc->sweep_values->len; i++) {
            json_builder_add_string_value(b,
                g_ptr_array_index(sc->sweep_values, i));
        }
        json_builder_end_array(b);
    }
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

/* The workload's summary RESULT line: workload=K with threads= or pfs= */
static const char *summary_line(GPtrArray *results)
{
    const char *found = NULL;
    guint i;

    for (i = 0; i < results->len; i++) {
        const char *l = g_ptr_array_index(results, i);

        if (g_str_has_prefix(l, "workload=") &&
            (strstr(l, " threads=") || strstr(l, " pfs="))) {
            found = l;
        }
    }
    return found;
}

static JsonNode *run_json(const Plan *pl, const SmmulabRun *r,
                          const char *log, const char *cmdline)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    const char *sum = summary_line(r->results);
    guint i;

    json_builder_begin_object(b);
    add_string_member(b, "variant", pl->variant);
    if (pl->point) {
        add_string_member(b, "point", pl->point);
    }
    json_builder_set_member_name(b, "control");
    json_builder_add_boolean_value(b, pl->control);
    json_builder_set_member_name(b, "index");
    json_builder_add_int_value(b, pl->index);
    json_builder_set_member_name(b, "rep");
    json_builder_add_int_value(b, pl->rep);
    add_string_member(b, "verdict", r->verdict);
    if (r->detail) {
        add_string_member(b, "detail", r->detail);
    }
    json_builder_set_member_name(b, "wall_s");
    json_builder_add_double_value(b, r->wall_s);
    add_string_member(b, "log", log);
    add_string_member(b, "cmdline", cmdline);
    add_string_member(b, "kernel_version", r->kernel_version);
    if (pl->kernel) {
        add_string_member(b, "kernel", pl->kernel);
    }
    if (pl->initrd) {
        add_string_member(b, "initrd", pl->initrd);
    }
    json_builder_set_member_name(b, "soft_lockups");
    json_builder_add_int_value(b, r->soft_lockups);
    json_builder_set_member_name(b, "cmdq_timeouts");
    json_builder_add_int_value(b, r->cmdq_timeouts);
    json_builder_set_member_name(b, "cmd_sync_timeouts");
    json_builder_add_int_value(b, r->cmd_sync_timeouts);
    json_builder_set_member_name(b, "timeouts_exact");
    json_builder_add_boolean_value(b, r->timeouts_exact);
    json_builder_set_member_name(b, "cmdq_timeouts_printed");
    json_builder_add_int_value(b, r->cmdq_timeouts_printed);
    json_builder_set_member_name(b, "cmd_sync_timeouts_printed");
    json_builder_add_int_value(b, r->cmd_sync_timeouts_printed);
    json_builder_set_member_name(b, "suppressed");
    json_builder_add_int_value(b, r->suppressed);
    json_builder_set_member_name(b, "lockup_cpus");
    json_builder_begin_object(b);
    for (i = 0; i < r->lockup_cpus->len; i++) {
        guint k = g_array_index(r->lockup_cpus, guint, i);

        if (k) {
            g_autofree char *cpu = g_strdup_printf("%u", i);

            json_builder_set_member_name(b, cpu);
            json_builder_add_int_value(b, k);
        }
    }
    json_builder_end_object(b);
    if (r->first_lockup) {
        add_string_member(b, "first_lockup", r->first_lockup);
    }
    if (r->first_lockup_fn) {
        add_string_member(b, "first_lockup_fn", r->first_lockup_fn);
    }
    json_builder_set_member_name(b, "console_flood");
    json_builder_add_boolean_value(b, r->flood);
    json_builder_set_member_name(b, "console_bytes");
    json_builder_add_int_value(b, r->console_bytes);
    json_builder_set_member_name(b, "summary");
    json_builder_begin_object(b);
    if (sum) {
        g_auto(GStrv) kv = g_strsplit(sum, " ", -1);

        for (i = 0; kv[i]; i++) {
            char *eq = strchr(kv[i], '=');

            if (eq) {
                *eq = '\0';
                add_string_member(b, kv[i], eq + 1);
            }
        }
    }
    json_builder_end_object(b);
    /* The model's counters each second, and the console's moments */
    json_builder_set_member_name(b, "timeline");
    json_builder_begin_array(b);
    for (i = 0; i < r->samples->len; i++) {
        SmmulabSample *sm = &g_array_index(r->samples, SmmulabSample, i);

        json_builder_begin_array(b);
        json_builder_add_double_value(b, round(sm->t * 10) / 10);
        json_builder_add_int_value(b, sm->retired);
        json_builder_add_int_value(b, sm->full);
        json_builder_add_int_value(b, sm->pending);
        json_builder_add_int_value(b, sm->cons_reads_busy);
        json_builder_end_array(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "events");
    json_builder_begin_array(b);
    for (i = 0; i < r->events->len; i++) {
        SmmulabEvent *ev = &g_array_index(r->events, SmmulabEvent, i);

        json_builder_begin_array(b);
        json_builder_add_double_value(b, round(ev->t * 10) / 10);
        json_builder_add_string_value(b, ev->kind);
        json_builder_end_array(b);
    }
    json_builder_end_array(b);
    /* The kit kernel's counters at the end of the run */
    json_builder_set_member_name(b, "kernel");
    json_builder_begin_object(b);
    for (i = 0; i < r->results->len; i++) {
        const char *l = g_ptr_array_index(r->results, i);

        if (g_str_has_prefix(l, "kernel-counters ")) {
            g_auto(GStrv) kv = g_strsplit(l + 16, " ", -1);
            guint j;

            for (j = 0; kv[j]; j++) {
                char *eq = strchr(kv[j], '=');

                if (eq) {
                    *eq = '\0';
                    json_builder_set_member_name(b, kv[j]);
                    json_builder_add_int_value(b,
                        g_ascii_strtoll(eq + 1, NULL, 10));
                }
            }
        }
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "result_lines");
    json_builder_begin_array(b);
    for (i = 0; i < r->results->len; i++) {
        json_builder_add_string_value(b, g_ptr_array_index(r->results, i));
    }
    json_builder_end_array(b);
    if (r->stats) {
        json_builder_set_member_name(b, "stats");
        json_builder_add_value(b, json_node_copy(r->stats));
    }
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

static void on_signal(int sig)
{
    smmulab_run_interrupted = sig;
}

/*
 * SIGTERM, SIGINT and SIGHUP stop the runner cleanly: the QEMU running is
 * killed, and runs.json and the report of what ran are written.
 */
static void catch_signals(void)
{
    struct sigaction sa = { .sa_handler = on_signal };
    int sigs[] = { SIGTERM, SIGINT, SIGHUP };
    guint i;

    sigemptyset(&sa.sa_mask);
    for (i = 0; i < G_N_ELEMENTS(sigs); i++) {
        sigaction(sigs[i], &sa, NULL);
    }
}

static gboolean save_runs(const char *dir, JsonNode *scenario,
                          JsonNode *provenance, JsonArray *runs, GError **err)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonGenerator) gen = json_generator_new();
    g_autoptr(JsonNode) root = NULL;
    g_autofree char *path = g_build_filename(dir, "runs.json", NULL);
    g_autofree char *text = NULL;

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "scenario");
    json_builder_add_value(b, json_node_copy(scenario));
    json_builder_set_member_name(b, "provenance");
    json_builder_add_value(b, json_node_copy(provenance));
    json_builder_set_member_name(b, "runs");
    json_builder_add_value(b, json_node_init_array(json_node_alloc(),
                                                   runs));
    json_builder_end_object(b);
    root = json_builder_get_root(b);
    json_generator_set_root(gen, root);
    json_generator_set_pretty(gen, TRUE);
    text = json_generator_to_data(gen, NULL);
    return g_file_set_contents(path, text, -1, err);
}

/* A runs.json: its scenario and runs, or NULL with @err */
static JsonNode *load_runs(const char *dir, GError **err)
{
    g_autofree char *path = g_build_filename(dir, "runs.json", NULL);
    g_autoptr(JsonParser) parser = json_parser_new();
    JsonNode *root;

    if (!json_parser_load_from_file(parser, path, err)) {
        g_prefix_error(err, "%s: ", path);
        return NULL;
    }
    root = json_parser_get_root(parser);
    if (!root || !JSON_NODE_HOLDS_OBJECT(root) ||
        !json_object_has_member(json_node_get_object(root), "scenario") ||
        !json_object_has_member(json_node_get_object(root), "runs")) {
        g_set_error(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    "%s: not a runs.json of smmulab-run", path);
        return NULL;
    }
    return json_node_copy(root);
}

static gint by_index(gconstpointer a, gconstpointer b)
{
    JsonObject *x = json_node_get_object(*(JsonNode **)a);
    JsonObject *y = json_node_get_object(*(JsonNode **)b);

    return json_object_get_int_member_with_default(x, "index", 0) -
           json_object_get_int_member_with_default(y, "index", 0);
}

/* Copy DIR/NAME to OUT/NAME */
static gboolean copy_into(const char *dir, const char *name, const char *out,
                          GError **err)
{
    g_autofree char *from = g_build_filename(dir, name, NULL);
    g_autofree char *to = g_build_filename(out, name, NULL);
    g_autoptr(GFile) f = g_file_new_for_path(from);
    g_autoptr(GFile) t = g_file_new_for_path(to);

    return g_file_copy(f, t, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, err);
}

/*
 * --merge: the runs of shards of one plan (each a runs.json directory) in
 * one output directory, in plan order, with their logs, and its report.
 */
static int merge(char **dirs, int n, const char *out)
{
    g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(
        (GDestroyNotify)json_node_unref);
    g_autoptr(JsonNode) first = NULL;
    g_autoptr(JsonGenerator) gen = json_generator_new();
    g_autofree char *sc_text = NULL;
    g_autoptr(JsonArray) runs = json_array_new();
    g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash,
                                                  g_direct_equal);
    g_autoptr(GError) err = NULL;
    g_autofree char *text = NULL;
    JsonObject *root0;
    int d;
    guint i;

    if (g_mkdir_with_parents(out, 0755)) {
        fprintf(stderr, "smmulab-run: cannot create %s: %s\n", out,
                g_strerror(errno));
        return 1;
    }
    for (d = 0; d < n; d++) {
        g_autoptr(JsonNode) doc = load_runs(dirs[d], &err);
        g_autofree char *this_sc = NULL;
        JsonArray *r;

        if (!doc) {
            fprintf(stderr, "smmulab-run: %s\n", err->message);
            return 1;
        }
        json_generator_set_root(gen, json_object_get_member(
            json_node_get_object(doc), "scenario"));
        this_sc = json_generator_to_data(gen, NULL);
        if (!first) {
            first = json_node_ref(doc);
            sc_text = g_strdup(this_sc);
        } else if (strcmp(sc_text, this_sc)) {
            fprintf(stderr, "smmulab-run: %s: another scenario than %s's: "
                    "only shards of one plan merge\n", dirs[d], dirs[0]);
            return 2;
        }
        r = json_object_get_array_member(json_node_get_object(doc), "runs");
        for (i = 0; i < json_array_get_length(r); i++) {
            JsonNode *run = json_array_get_element(r, i);
            JsonObject *o = json_node_get_object(run);
            gint64 k = json_object_get_int_member_with_default(o, "index", 0);
            const char *files[] = {
                json_object_get_string_member_with_default(o, "log", NULL),
                json_object_get_string_member_with_default(o, "cmdline", NULL),
            };
            guint f;

            if (k <= 0 || g_hash_table_contains(seen, GINT_TO_POINTER(k))) {
                fprintf(stderr, "smmulab-run: %s: run %u has %s plan index "
                        "%" G_GINT64_FORMAT "\n", dirs[d], i + 1,
                        k <= 0 ? "no" : "an already merged", k);
                return 2;
            }
            g_hash_table_add(seen, GINT_TO_POINTER(k));
            for (f = 0; f < G_N_ELEMENTS(files); f++) {
                if (files[f] && !strchr(files[f], '/') &&
                    !copy_into(dirs[d], files[f], out, &err)) {
                    fprintf(stderr, "smmulab-run: %s\n", err->message);
                    return 1;
                }
            }
            g_ptr_array_add(all, json_node_copy(run));
        }
    }
    g_ptr_array_sort(all, by_index);
    for (i = 0; i < all->len; i++) {
        json_array_add_element(runs, json_node_copy(all->pdata[i]));
    }
    root0 = json_node_get_object(first);
    if (!save_runs(out, json_object_get_member(root0, "scenario"),
                   json_object_get_member(root0, "provenance"), runs, &err)) {
        fprintf(stderr, "smmulab-run: %s\n", err->message);
        return 1;
    }
    text = smmulab_report_from_dir(out, &err);
    if (!text) {
        fprintf(stderr, "smmulab-run: %s\n", err->message);
        return 1;
    }
    fputs(text, stdout);
    printf("report: %s/report.html, report.txt, report.json, report.svg (%u runs from %d "
           "director%s)\n", out, all->len, n, n == 1 ? "y" : "ies");
    return 0;
}

/* "I/N" with 1 <= I <= N */
static gboolean parse_shard(const char *s, guint *i, guint *n)
{
    char *end;
    guint64 a, b;

    a = g_ascii_strtoull(s, &end, 10);
    if (end == s || *end != '/') {
        return FALSE;
    }
    b = g_ascii_strtoull(end + 1, &end, 10);
    if (*end || !b || !a || a > b || b > 100000) {
        return FALSE;
    }
    *i = a;
    *n = b;
    return TRUE;
}

int main(int argc, char **argv)
{
    g_autofree char *build = NULL, *out = NULL, *report_dir = NULL;
    g_autofree char *topologies = NULL;
    gboolean check = FALSE, no_control = FALSE, list = FALSE;
    gboolean do_merge = FALSE;
    g_autofree char *shard = NULL, *only = NULL;
    guint shard_i = 0, shard_n = 0;
    gint repeat = 0;
    gint64 console_cap = 64 << 20;
    GOptionEntry entries[] = {
        { "build", 0, 0, G_OPTION_ARG_FILENAME, &build,
          "build directory (default: build)", "DIR" },
        { "out", 0, 0, G_OPTION_ARG_FILENAME, &out,
          "output directory (default: BUILD/reports/NAME-TIME)", "DIR" },
        { "topologies", 0, 0, G_OPTION_ARG_FILENAME, &topologies,
          "workload topologies (default: configs/topologies.ini)", "FILE" },
        { "check", 0, 0, G_OPTION_ARG_NONE, &check,
          "validate the scenario and print the plan, run nothing", NULL },
        { "report", 0, 0, G_OPTION_ARG_FILENAME, &report_dir,
          "remake the report of DIR from its runs.json", "DIR" },
        { "repeat", 0, 0, G_OPTION_ARG_INT, &repeat,
          "runs per variant, instead of the scenario's", "N" },
        { "no-control", 0, 0, G_OPTION_ARG_NONE, &no_control,
          "skip the control runs", NULL },
        { "console-cap", 0, 0, G_OPTION_ARG_INT64, &console_cap,
          "bytes of each console kept in its log (default 64 MiB)", "N" },
        { "list", 0, 0, G_OPTION_ARG_NONE, &list,
          "print the plan, one JSON line per boot, run nothing", NULL },
        { "shard", 0, 0, G_OPTION_ARG_STRING, &shard,
          "run only boots I, I+N, I+2N... of the plan", "I/N" },
        { "only", 0, 0, G_OPTION_ARG_STRING, &only,
          "run only these boots of the plan", "K[,K...]" },
        { "merge", 0, 0, G_OPTION_ARG_NONE, &do_merge,
          "merge the runs.json of shard directories (the arguments) into "
          "--out, and report", NULL },
        { NULL }
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(
        "SCENARIO.ini - boot the variants of a scenario and report");
    g_autoptr(GError) err = NULL;
    g_autoptr(SmmulabScenario) sc = NULL;
    g_autoptr(GArray) plan = g_array_new(FALSE, TRUE, sizeof(Plan));
    g_autoptr(JsonNode) sc_json = NULL, prov = NULL;
    g_auto(GStrv) argv0 = g_strdupv(argv);
    int argc0 = argc;
    g_autoptr(JsonArray) runs = json_array_new();
    g_autofree char *qemu = NULL, *kernel = NULL, *initrd = NULL;
    g_autofree char *text = NULL;
    guint i, v, p, rep, failed = 0, npoints, total;

    setvbuf(stdout, NULL, _IOLBF, 0);
    g_option_context_add_main_entries(ctx, entries, NULL);
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "smmulab-run: %s\n", err->message);
        return 2;
    }
    if (do_merge) {
        if (argc < 2 || !out) {
            fprintf(stderr, "smmulab-run: usage: smmulab-run --merge --out "
                    "DIR SHARD_DIR...\n");
            return 2;
        }
        return merge(argv + 1, argc - 1, out);
    }
    if (shard && !parse_shard(shard, &shard_i, &shard_n)) {
        fprintf(stderr, "smmulab-run: --shard %s: not I/N with 1 <= I <= N\n",
                shard);
        return 2;
    }
    if (report_dir) {
        text = smmulab_report_from_dir(report_dir, &err);
        if (!text) {
            fprintf(stderr, "smmulab-run: %s\n", err->message);
            return 1;
        }
        fputs(text, stdout);
        printf("report: %s/report.html, report.txt, report.json, report.svg\n", report_dir);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "smmulab-run: usage: smmulab-run [OPTION...] SCENARIO.ini (--help)\n");
        return 2;
    }
    if (!build) {
        build = g_strdup("build");
    }
    if (!topologies) {
        topologies = g_strdup("configs/topologies.ini");
    }
    sc = smmulab_scenario_load(argv[1], topologies, &err);
    if (!sc) {
        fprintf(stderr, "smmulab-run: %s\n", err->message);
        return 2;
    }
    if (repeat > 0) {
        sc->repeat = repeat;
    }
    if (no_control) {
        sc->control = FALSE;
    }
    qemu = g_build_filename(build, "qemu-system-aarch64", NULL);
    kernel = sc->kernel ? g_strdup(sc->kernel) :
             g_build_filename(build, "guest", "Image", NULL);
    initrd = sc->initrd ? g_strdup(sc->initrd) :
             g_build_filename(build, "guest", "initramfs.cpio", NULL);
    {
        const char *need[] = { qemu, kernel, initrd };

        for (i = 0; i < G_N_ELEMENTS(need); i++) {
            if (!g_file_test(need[i], G_FILE_TEST_IS_REGULAR)) {
                fprintf(stderr, "smmulab-run: %s: %s is missing (build first: "
                        "make build)\n", argv[1], need[i]);
                return 2;
            }
        }
        for (v = 0; v < sc->variants->len; v++) {
            SmmulabVariant *var = g_ptr_array_index(sc->variants, v);
            const char *own[] = { var->kernel, var->initrd };

            for (i = 0; i < G_N_ELEMENTS(own); i++) {
                if (own[i] && !g_file_test(own[i], G_FILE_TEST_IS_REGULAR)) {
                    fprintf(stderr, "smmulab-run: %s: [variant.%s] %s=%s: "
                            "no such file\n", argv[1], var->name,
                            i ? "initrd" : "kernel", own[i]);
                    return 2;
                }
            }
        }
    }

    npoints = sc->sweep_group ? sc->sweep_values->len : 1;
    for (p = 0; p < npoints; p++) {
        for (v = 0; v < sc->variants->len; v++) {
            SmmulabVariant *var = g_ptr_array_index(sc->variants, v);

            for (rep = 1; rep <= sc->repeat; rep++) {
                Plan pl = { 0, var->name, var->append, var->kernel, var->initrd,
                            sc->sweep_group ?
                                g_ptr_array_index(sc->sweep_values, p) : NULL,
                            FALSE, rep };

                g_array_append_val(plan, pl);
            }
        }
    }
    if (sc->control) {
        /*
         * Fast hardware ignores a sweep of the model, but not a sweep of
         * the machine or workload: then each point has its control.
         */
        gboolean per_point = sc->sweep_group &&
                             strcmp(sc->sweep_group, "smmu") != 0;

        for (p = 0; p < (per_point ? npoints : 1); p++) {
            for (v = 0; v < sc->variants->len; v++) {
                SmmulabVariant *var = g_ptr_array_index(sc->variants, v);
                Plan pl = { 0, var->name, var->append, var->kernel, var->initrd,
                            per_point ? g_ptr_array_index(sc->sweep_values, p)
                                      : NULL,
                            TRUE, 1 };

                g_array_append_val(plan, pl);
            }
        }
    }

    for (i = 0; i < plan->len; i++) {
        g_array_index(plan, Plan, i).index = i + 1;
    }
    total = plan->len;
    if (list) {
        g_autoptr(SmmulabTopology) topo = smmulab_topology_load(
            topologies, sc->workload, NULL, NULL);

        for (i = 0; i < plan->len; i++) {
            Plan *pl = &g_array_index(plan, Plan, i);
            g_autoptr(SmmulabScenario) pt = smmulab_scenario_at_point(sc,
                pl->point, pl->control);
            g_autoptr(JsonBuilder) b = json_builder_new();
            g_autoptr(JsonGenerator) gen = json_generator_new();
            g_autoptr(JsonNode) node = NULL;
            g_autofree char *line = NULL;

            json_builder_begin_object(b);
            json_builder_set_member_name(b, "index");
            json_builder_add_int_value(b, pl->index);
            add_string_member(b, "variant", pl->variant);
            add_string_member(b, "point", pl->point);
            json_builder_set_member_name(b, "control");
            json_builder_add_boolean_value(b, pl->control);
            json_builder_set_member_name(b, "rep");
            json_builder_add_int_value(b, pl->rep);
            json_builder_set_member_name(b, "cpus");
            json_builder_add_int_value(b, pt->cpus ? pt->cpus :
                                       (topo ? topo->cpus : 0));
            add_string_member(b, "memory", pt->memory ? pt->memory :
                              (topo ? topo->memory : NULL));
            add_string_member(b, "append", pl->append);
            json_builder_end_object(b);
            node = json_builder_get_root(b);
            json_generator_set_root(gen, node);
            line = json_generator_to_data(gen, NULL);
            printf("%s\n", line);
        }
        return 0;
    }
    if (shard || only) {
        g_autoptr(GArray) keep = g_array_new(FALSE, TRUE, sizeof(Plan));
        g_auto(GStrv) ks = only ? g_strsplit(only, ",", -1) : NULL;
        g_autofree gboolean *pick = g_new0(gboolean, plan->len + 1);

        for (i = 0; ks && ks[i]; i++) {
            guint64 k;

            if (!g_ascii_string_to_unsigned(g_strstrip(ks[i]), 10, 1,
                                            plan->len, &k, NULL)) {
                fprintf(stderr, "smmulab-run: --only %s: %s is not a boot "
                        "of the plan (1..%u)\n", only, ks[i], plan->len);
                return 2;
            }
            pick[k] = TRUE;
        }
        for (i = 0; i < plan->len; i++) {
            Plan *pl = &g_array_index(plan, Plan, i);

            if ((!shard || i % shard_n == shard_i - 1) &&
                (!only || pick[pl->index])) {
                g_array_append_val(keep, *pl);
            }
        }
        g_array_set_size(plan, 0);
        g_array_append_vals(plan, keep->data, keep->len);
    }

    if (check) {
        printf("%s: ok: workload %s, %u variant(s), %u point(s), %u run(s) "
               "per variant%s; %u boots, at most %u s each\n", argv[1],
               sc->workload, sc->variants->len, npoints, sc->repeat,
               sc->control ? ", plus control" : "", plan->len, sc->timeout_s);
        for (i = 0; i < plan->len; i++) {
            Plan *pl = &g_array_index(plan, Plan, i);

            g_autofree char *files = g_strdup_printf("%s%s%s%s",
                pl->kernel ? " [kernel " : "", pl->kernel ? pl->kernel : "",
                pl->initrd ? " initrd " : "", pl->initrd ? pl->initrd : "");

            printf("  %2u. %s%s%s%s rep %u: %s%s%s\n", pl->index,
                   pl->control ? "control:" : "", pl->variant,
                   pl->point ? " at " : "", pl->point ? pl->point : "",
                   pl->rep, pl->append, files,
                   pl->kernel || pl->initrd ? "]" : "");
        }
        return 0;
    }

    if (!out) {
        g_autoptr(GDateTime) now = g_date_time_new_now_local();
        g_autofree char *stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");

        out = g_strdup_printf("%s/reports/%s-%s", build, sc->name, stamp);
    }
    if (g_mkdir_with_parents(out, 0755)) {
        fprintf(stderr, "smmulab-run: cannot create %s: %s\n", out,
                g_strerror(errno));
        return 1;
    }
    sc_json = scenario_json(sc, topologies);
    prov = smmulab_provenance(qemu, kernel, build, argc0, argv0);
    fprintf(stderr, "smmulab-run: %s: %u boots (%u variant(s) x %u point(s) "
            "x %u run(s)%s), output in %s\n", sc->name, plan->len,
            sc->variants->len, npoints, sc->repeat,
            sc->control ? " + control" : "", out);

    catch_signals();
    for (i = 0; i < plan->len && !smmulab_run_interrupted; i++) {
        Plan *pl = &g_array_index(plan, Plan, i);
        g_autoptr(SmmulabScenario) pt = smmulab_scenario_at_point(sc,
            pl->point, pl->control);
        g_autofree char *base = g_strdup_printf("%02u-%s%s%s%s-rep%u",
            pl->index,
            pl->control ? "control-" : "", pl->variant,
            pl->point ? "-" : "", pl->point ? pl->point : "", pl->rep);
        g_autofree char *log = g_strdup_printf("%s/%s.log", out, base);
        g_autofree char *cmd = g_strdup_printf("%s/%s.cmdline", out, base);
        /* runs.json names them relative to itself */
        g_autofree char *log_rel = g_strdup_printf("%s.log", base);
        g_autofree char *cmd_rel = g_strdup_printf("%s.cmdline", base);
        g_autofree char *label = g_strdup_printf("[%u/%u] %s%s%s%s rep %u",
            pl->index, total, pl->control ? "control:" : "", pl->variant,
            pl->point ? " " : "", pl->point ? pl->point : "", pl->rep);
        SmmulabRunSpec spec = {
            .qemu = qemu,
            .kernel = pl->kernel ? pl->kernel : kernel,
            .initrd = pl->initrd ? pl->initrd : initrd,
            .topologies = topologies, .sc = pt, .control = pl->control,
            .variant_append = pl->append, .log_path = log,
            .cmdline_path = cmd, .label = label,
            .console_cap = console_cap > 0 ? console_cap : 64 << 20,
        };
        g_autoptr(SmmulabRun) r = NULL;
        g_autoptr(GError) rerr = NULL;

        r = smmulab_run_boot(&spec, &rerr);
        if (!r) {
            fprintf(stderr, "smmulab-run: %s: %s\n", label, rerr->message);
            return 1;
        }
        if (strcmp(r->verdict, "ok")) {
            failed++;
            fprintf(stderr, "smmulab-run: %s: %s%s%s (log %s)\n", label,
                    r->verdict, r->detail ? ": " : "",
                    r->detail ? r->detail : "", log);
        }
        json_array_add_element(runs, run_json(pl, r, log_rel, cmd_rel));
        if (!save_runs(out, sc_json, prov, runs, &err)) {
            fprintf(stderr, "smmulab-run: %s\n", err->message);
            return 1;
        }
    }

    if (smmulab_run_interrupted && !json_array_get_length(runs)) {
        fprintf(stderr, "smmulab-run: interrupted (signal %d) before any "
                "run ended; nothing to report\n", (int)smmulab_run_interrupted);
        return 128 + smmulab_run_interrupted;
    }
    text = smmulab_report_from_dir(out, &err);
    if (!text) {
        fprintf(stderr, "smmulab-run: %s\n", err->message);
        return 1;
    }
    printf("\n%s", text);
    if (smmulab_run_interrupted) {
        fprintf(stderr, "smmulab-run: interrupted (signal %d) after %u of %u "
                "boots; the report covers those\n",
                (int)smmulab_run_interrupted, json_array_get_length(runs),
                plan->len);
        return 128 + smmulab_run_interrupted;
    }
    printf("report: %s/report.html, report.txt, report.json, report.svg (runs.json, "
           "console logs and QEMU command lines beside them)\n", out);
    return failed ? 3 : 0;
}
