/*
 * smmulab: running a scenario — load it, check it, plan it, boot it, report
 * (see run-cmd.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "plan.h"
#include "preflight.h"
#include "provenance.h"
#include "record.h"
#include "report.h"
#include "run.h"
#include "run-cmd.h"
#include "scenario.h"
#include "trace.h"

/* Whether @dir exists with anything in it */
static gboolean dir_has_files(const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);

    return d && g_dir_read_name(d) != NULL;
}

/*
 * --resume DIR: the scenario of DIR's runs.json, as it was run (seed,
 * repeat and control as recorded; the file must still give the same
 * scenario), and the runs that ended, which are not run again
 */
static SmmulabScenario *resume_load(const char *dir, const char *topologies,
                                    JsonArray *runs, GHashTable *done,
                                    char **shard, char **only, GError **err)
{
    g_autoptr(JsonNode) prev = smmulab_runs_load(dir, err);
    g_autoptr(JsonGenerator) gen = json_generator_new();
    g_autoptr(JsonNode) now = NULL;
    g_autoptr(SmmulabScenario) sc = NULL;
    g_autofree char *was = NULL, *is = NULL;
    JsonObject *root, *rec, *prov;
    JsonArray *old;
    const char *seed;
    guint i;

    if (!prev) {
        return NULL;
    }
    root = json_node_get_object(prev);
    rec = json_object_get_object_member(root, "scenario");
    prov = json_object_get_object_member(root, "provenance");
    if (!json_object_get_string_member_with_default(rec, "file", NULL)) {
        g_set_error(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    "%s/runs.json names no scenario file", dir);
        return NULL;
    }
    {
        /*
         * The file as named when the run began (relative to where it began)
         * and its absolute path then: a resume from another directory
         * finds it
         */
        const char *file = json_object_get_string_member(rec, "file");
        const char *abs = prov ? json_object_get_string_member_with_default(
            prov, "scenario_path", NULL) : NULL;

        sc = smmulab_scenario_load(abs && g_file_test(abs,
                                   G_FILE_TEST_IS_REGULAR) ? abs : file,
                                   topologies, err);
        if (!sc) {
            g_prefix_error(err, "--resume %s: ", dir);
            return NULL;
        }
        g_free(sc->file);
        sc->file = g_strdup(file);
    }
    seed = json_object_get_string_member_with_default(rec, "seed", "0");
    sc->seed = g_ascii_strtoull(seed, NULL, 10);
    sc->repeat = json_object_get_int_member_with_default(rec, "repeat",
                                                         sc->repeat);
    sc->control = json_object_get_boolean_member_with_default(rec, "control",
                                                              sc->control);
    now = smmulab_record_scenario(sc, topologies);
    json_generator_set_root(gen, now);
    is = json_generator_to_data(gen, NULL);
    json_generator_set_root(gen, json_object_get_member(root, "scenario"));
    was = json_generator_to_data(gen, NULL);
    if (strcmp(was, is)) {
        g_set_error(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    "--resume %s: %s no longer gives the scenario that was "
                    "run (edited since?): its runs would not mix", dir,
                    sc->file);
        return NULL;
    }
    if (prov) {
        *shard = g_strdup(json_object_get_string_member_with_default(
            prov, "shard", NULL));
        *only = g_strdup(json_object_get_string_member_with_default(
            prov, "only", NULL));
    }
    old = json_object_get_array_member(root, "runs");
    for (i = 0; old && i < json_array_get_length(old); i++) {
        JsonObject *r = json_array_get_object_element(old, i);
        gint64 k = json_object_get_int_member_with_default(r, "index", 0);

        if (k > 0 && strcmp(json_object_get_string_member_with_default(
                                r, "verdict", "interrupted"),
                            "interrupted")) {
            json_array_add_element(runs,
                                   json_node_copy(json_array_get_element(old,
                                                                         i)));
            g_hash_table_add(done, GINT_TO_POINTER(k));
        }
    }
    return g_steal_pointer(&sc);
}

/*
 * The build directory: ./build when run from the source tree, else the one
 * this program was built in (BUILD/runner/smmulab-run), so that it works
 * from any directory
 */
static char *default_build(void)
{
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    g_autofree char *dir = exe ? g_path_get_dirname(exe) : NULL;

    if (g_file_test("build/qemu-system-aarch64", G_FILE_TEST_EXISTS) ||
        !dir || strcmp(strrchr(dir, '/') ? strrchr(dir, '/') : "",
                       "/runner")) {
        return g_strdup("build");
    }
    return g_path_get_dirname(dir);
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

int smmulab_cmd_scenario(SmmulabOpts *o, SmmulabMode mode, const char *arg,
                         int argc0, char **argv0)
{
    g_autofree char *build = g_strdup(o->build), *out = g_strdup(o->out);
    g_autofree char *topologies = g_strdup(o->topologies);
    g_autofree char *shard = g_strdup(o->shard), *only = g_strdup(o->only);
    const char *resume = mode == SMMULAB_MODE_RESUME ? arg : NULL;
    const char *seed = o->seed;
    gint repeat = o->repeat;
    gboolean no_control = o->no_control, trace = o->trace;
    gboolean check = mode == SMMULAB_MODE_CHECK;
    gboolean list = mode == SMMULAB_MODE_LIST;
    gint64 console_cap = o->console_cap;
    g_autoptr(GError) err = NULL;
    g_autoptr(SmmulabScenario) sc = NULL;
    g_autoptr(GArray) plan = NULL;
    g_autoptr(JsonNode) sc_json = NULL, prov = NULL;
    g_autoptr(JsonArray) runs = json_array_new();
    g_autoptr(GHashTable) done = g_hash_table_new(g_direct_hash,
                                                  g_direct_equal);
    const char *scenario_file = NULL;
    g_autofree char *qemu = NULL, *kernel = NULL, *initrd = NULL;
    g_autofree char *text = NULL;
    g_autoptr(GString) checked = NULL;
    g_autoptr(GHashTable) configs = g_hash_table_new_full(g_str_hash,
        g_str_equal, g_free, NULL);
    guint i, v, failed = 0, npoints, total;

    if (!build) {
        build = default_build();
    }
    if (!topologies) {
        topologies = g_file_test("configs/topologies.ini",
                                 G_FILE_TEST_IS_REGULAR) ?
            g_strdup("configs/topologies.ini") :
            g_strdup(SMMULAB_SOURCE_ROOT "/configs/topologies.ini");
    }
    if (resume) {
        g_autoptr(JsonNode) rec = NULL;

        /* as report DIR: no directory 2, no readable runs.json 1 */
        if (!g_file_test(resume, G_FILE_TEST_IS_DIR)) {
            fprintf(stderr, "smmulab-run: resume %s: no such directory\n",
                    resume);
            return 2;
        }
        rec = smmulab_runs_load(resume, &err);
        if (!rec) {
            fprintf(stderr, "smmulab-run: %s\n", err->message);
            return 1;
        }
        sc = resume_load(resume, topologies, runs, done, &shard, &only, &err);
        out = g_strdup(resume);
    } else {
        sc = smmulab_scenario_load(arg, topologies, &err);
    }
    if (!sc) {
        fprintf(stderr, "smmulab-run: %s\n", err->message);
        return 2;
    }
    scenario_file = sc->file;
    if (repeat != -1) {
        sc->repeat = repeat;
    }
    if (no_control) {
        sc->control = FALSE;
    }
    if (seed) {
        if (!smmulab_scenario_check_value("--seed", "scenario", "seed", seed,
                                          &err)) {
            fprintf(stderr, "smmulab-run: %s\n", err->message);
            return 2;
        }
        sc->seed = g_ascii_strtoull(seed, NULL, 10);
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
                        "make build)\n", scenario_file, need[i]);
                return 2;
            }
        }
        for (v = 0; v < sc->variants->len; v++) {
            SmmulabVariant *var = g_ptr_array_index(sc->variants, v);
            const char *own[] = { var->kernel, var->initrd };

            for (i = 0; i < G_N_ELEMENTS(own); i++) {
                if (own[i] && !g_file_test(own[i], G_FILE_TEST_IS_REGULAR)) {
                    fprintf(stderr, "smmulab-run: %s: [variant.%s] %s=%s: "
                            "no such file\n", scenario_file, var->name,
                            i ? "initrd" : "kernel", own[i]);
                    return 2;
                }
            }
        }
    }

    checked = g_string_new(NULL);
    if (!smmulab_preflight(sc, kernel, initrd, checked, &err)) {
        fprintf(stderr, "smmulab-run: %s\n", err->message);
        return 2;
    }

    plan = smmulab_plan_make(sc);
    total = plan->len;
    if (!smmulab_plan_select(plan, shard, only, &err)) {
        fprintf(stderr, "smmulab-run: %s\n", err->message);
        return 2;
    }
    if (list) {
        smmulab_plan_print_list(plan, sc, topologies);
        return 0;
    }
    if (check) {
        smmulab_plan_print_check(plan, sc, scenario_file);
        printf("kernel parameters, as each variant will run them:\n%s",
               checked->str);
        return 0;
    }
    if (!out) {
        g_autoptr(GDateTime) now = g_date_time_new_now_local();
        g_autofree char *stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");

        out = g_strdup_printf("%s/reports/%s-%s", build, sc->name, stamp);
    }
    /* a result is never overwritten, nor mixed with another's runs */
    if (!resume && g_file_test(out, G_FILE_TEST_EXISTS) &&
        !g_file_test(out, G_FILE_TEST_IS_DIR)) {
        fprintf(stderr, "smmulab-run: --out %s: not a directory: give a new "
                "or empty one\n", out);
        return 2;
    }
    if (!resume && dir_has_files(out)) {
        fprintf(stderr, "smmulab-run: --out %s: the directory holds files "
                "already (a result?): give a new or empty one, or complete "
                "an interrupted run with --resume %s\n", out, out);
        return 2;
    }
    if (g_mkdir_with_parents(out, 0755)) {
        fprintf(stderr, "smmulab-run: cannot create %s: %s\n", out,
                g_strerror(errno));
        return 1;
    }
    sc_json = smmulab_record_scenario(sc, topologies);
    prov = smmulab_provenance(qemu, kernel, build, argc0, argv0);
    for (v = 0; v < sc->variants->len; v++) {
        SmmulabVariant *var = g_ptr_array_index(sc->variants, v);

        if (var->kernel) {
            smmulab_provenance_add_kernel(prov, var->name, var->kernel);
        }
    }
    /* what --resume needs to complete the same part of the plan */
    if (!resume) {
        g_autofree char *abs = realpath(sc->file, NULL);

        if (abs) {
            json_object_set_string_member(json_node_get_object(prov),
                                          "scenario_path", abs);
        }
    } else {
        /* the first invocation's, which a resume from elsewhere needs */
        g_autoptr(JsonNode) was = smmulab_runs_load(resume, NULL);
        JsonObject *wp = was ? json_object_get_object_member(
            json_node_get_object(was), "provenance") : NULL;
        const char *abs = wp ? json_object_get_string_member_with_default(
            wp, "scenario_path", NULL) : NULL;

        if (abs) {
            json_object_set_string_member(json_node_get_object(prov),
                                          "scenario_path", abs);
        }
    }
    if (shard) {
        json_object_set_string_member(json_node_get_object(prov), "shard",
                                      shard);
    }
    if (only) {
        json_object_set_string_member(json_node_get_object(prov), "only",
                                      only);
    }
    npoints = sc->sweep_group ? sc->sweep_values->len : 1;
    fprintf(stderr, "smmulab-run: %s: %u boots (%u variant(s) x %u point(s) "
            "x %u run(s)%s), output in %s\n", sc->name, plan->len,
            sc->variants->len, npoints, sc->repeat,
            sc->control ? " + control" : "", out);
    if (resume) {
        fprintf(stderr, "smmulab-run: %s: resuming: %u of them ended "
                "already, %u to run\n", sc->name,
                g_hash_table_size(done),
                plan->len - MIN(plan->len, g_hash_table_size(done)));
    }
    {
        g_autofree char *pw = smmulab_plan_power(sc);

        fprintf(stderr, "smmulab-run: %s: %s\n", sc->name,
                pw ? pw : "no primary endpoint declared (primary=): no line "
                "of the report will be a verdict");
    }

    catch_signals();
    for (i = 0; i < plan->len && !smmulab_run_interrupted; i++) {
        SmmulabBoot *pl = &g_array_index(plan, SmmulabBoot, i);
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
        g_autofree char *qlog = trace ?
            g_strdup_printf("%s/%s.qemu-trace.log", out, base) : NULL;
        g_autofree char *tjson = g_strdup_printf("%s/%s.trace.json", out,
                                                 base);
        g_autofree char *tjson_rel = g_strdup_printf("%s.trace.json", base);
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
            .console_cap = console_cap,
            .seed = pl->seed,
            .trace_path = qlog,
        };
        g_autoptr(SmmulabRun) r = NULL;
        g_autoptr(GError) rerr = NULL;
        JsonNode *node;

        if (g_hash_table_contains(done, GUINT_TO_POINTER(pl->index))) {
            continue;
        }

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
        node = smmulab_record_run(pl, r, log_rel, cmd_rel);
        if (qlog) {
            g_autoptr(GError) terr = NULL;

            if (smmulab_trace_write(qlog, log, tjson, &terr)) {
                json_object_set_string_member(json_node_get_object(node),
                                              "trace", tjson_rel);
                g_unlink(qlog);
            } else {
                fprintf(stderr, "smmulab-run: %s: no timeline: %s\n", label,
                        terr->message);
            }
        }
        json_array_add_element(runs, node);
        if (!smmulab_record_save(out, sc_json, prov, runs, &err)) {
            fprintf(stderr, "smmulab-run: %s\n", err->message);
            return 1;
        }
        if (!pl->control && r->ran->cmdline &&
            strcmp(r->verdict, "misconfigured")) {
            g_autofree char *asked = smmulab_scenario_asked(sc, pl->append);
            g_autofree char *conf = smmulab_ran_signature(r->ran, asked);
            char *key = g_strdup_printf("%s\n%s\n%s\n%s", spec.kernel,
                                        spec.initrd, pl->point ? pl->point :
                                        "", conf);
            const char *other = g_hash_table_lookup(configs, key);

            if (other && strcmp(other, pl->variant)) {
                fprintf(stderr, "smmulab-run: %s: variants %s and %s ran "
                        "identically configured (%s): an A/A; stopped (runs "
                        "so far in %s)\n", scenario_file, other, pl->variant,
                        conf[0] ? conf : "the kernel's defaults", out);
                g_free(key);
                return 2;
            }
            g_hash_table_replace(configs, key, (gpointer)pl->variant);
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
                "boots; the report covers those: complete the plan with "
                "smmulab-run resume %s\n",
                (int)smmulab_run_interrupted, json_array_get_length(runs),
                plan->len, out);
        return 128 + smmulab_run_interrupted;
    }
    printf("report: %s/report.html, report.txt, report.json, report.svg (runs.json, "
           "console logs and QEMU command lines beside them)\n", out);
    return failed ? 3 : 0;
}
