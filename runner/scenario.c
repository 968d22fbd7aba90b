/*
 * smmulab: scenario files (configs/NAME.ini)
 *
 * A scenario is kept as the list of (group, key, value) settings it was
 * read from; the structure is made by applying them in order, which is
 * also how a sweep point or the control is made: the same settings, one
 * changed or the model's left out.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "report-internal.h"
#include "scenario.h"

typedef struct Setting {
    char *group, *key, *value;
} Setting;

/* The settings a scenario was made from, hidden behind the public struct */
typedef struct ScenarioPriv {
    SmmulabScenario pub;
    GPtrArray *settings;        /* Setting * */
} ScenarioPriv;

static const char *const smmu_props[] = {
    "cmdqs", "eventqs", "ril", "msi", "sev", "cmdq-cmd-ns", "cmdq-sync-ns",
    "cmdq-cfgi-ns", "cmdq-tlbi-page-ns", "cmdq-jitter-ns", "cmdq-seed", NULL,
};

static const char *const workload_keys[] = {
    "kind", "threads", "seconds", "size", "total", "granule", "dev", "vfs",
    "pfs", "rounds", NULL,
};

static void setting_free(gpointer p)
{
    Setting *st = p;

    g_free(st->group);
    g_free(st->key);
    g_free(st->value);
    g_free(st);
}

static gboolean bad(GError **err, const char *file, const char *group,
                    const char *key, const char *value, const char *why)
{
    g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                "%s: [%s] %s=%s: %s", file, group, key, value, why);
    return FALSE;
}

/* Like bad(), for a key its group does not have (KEY_NOT_FOUND) */
static gboolean bad_key(GError **err, const char *file, const char *group,
                        const char *key, const char *value, const char *why)
{
    g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                "%s: [%s] %s=%s: %s", file, group, key, value, why);
    return FALSE;
}

static gboolean is_uint(const char *v, guint64 min, guint64 max)
{
    return g_ascii_string_to_unsigned(v, 10, min, max, NULL, NULL);
}

static guint to_uint(const char *v)
{
    return (guint)g_ascii_strtoull(v, NULL, 10);
}

static int parse_bool(const char *v)
{
    if (!strcmp(v, "on") || !strcmp(v, "true") || !strcmp(v, "yes")) {
        return 1;
    }
    if (!strcmp(v, "off") || !strcmp(v, "false") || !strcmp(v, "no")) {
        return 0;
    }
    return -1;
}

/* N, NK, NM or NG */
static gboolean is_size(const char *v)
{
    char *end;

    if (!g_ascii_isdigit(v[0])) {
        return FALSE;
    }
    g_ascii_strtoull(v, &end, 10);
    if (*end && strchr("KMGkmg", *end)) {
        end++;
    }
    return *end == '\0';
}

static gboolean is_token(const char *v)
{
    const char *p;

    if (!*v) {
        return FALSE;
    }
    for (p = v; *p; p++) {
        if (!g_ascii_isalnum(*p) && !strchr("_.-", *p)) {
            return FALSE;
        }
    }
    return TRUE;
}

gboolean smmulab_scenario_check_value(const char *file, const char *group,
                                      const char *key, const char *v,
                                      GError **err)
{
    if (!strcmp(group, "scenario")) {
        if (!strcmp(key, "name") && !is_token(v)) {
            return bad(err, file, group, key, v, "letters, digits, _ . - only");
        } else if (!strcmp(key, "repeat") && !is_uint(v, 1, 100)) {
            return bad(err, file, group, key, v, "not a number in 1..100");
        } else if (!strcmp(key, "timeout") && !is_uint(v, 10, 86400)) {
            return bad(err, file, group, key, v,
                       "not a number of seconds in 10..86400");
        } else if (!strcmp(key, "control") && parse_bool(v) < 0) {
            return bad(err, file, group, key, v, "not on or off");
        } else if (!strcmp(key, "baseline") && !is_token(v)) {
            return bad(err, file, group, key, v, "not a variant name");
        } else if (!strcmp(key, "primary") && !is_token(v)) {
            return bad(err, file, group, key, v,
                       "not an endpoint name (runs_with_soft_lockup, "
                       "runs_with_timeout, or a metric id)");
        } else if (!strcmp(key, "seed") &&
                   !is_uint(v, 0, G_MAXUINT64)) {
            return bad(err, file, group, key, v,
                       "not a number in 0..18446744073709551615");
        } else if (!strcmp(key, "design") && strcmp(v, "paired") &&
                   strcmp(v, "independent")) {
            return bad(err, file, group, key, v,
                       "not paired or independent");
        } else if (strcmp(key, "name") && strcmp(key, "repeat") &&
                   strcmp(key, "timeout") && strcmp(key, "control") &&
                   strcmp(key, "description") && strcmp(key, "baseline") &&
                   strcmp(key, "primary") && strcmp(key, "seed") &&
                   strcmp(key, "design")) {
            return bad_key(err, file, group, key, v,
                       "unknown key (known: name, description, repeat, "
                       "timeout, control, baseline, primary, seed, design)");
        }
    } else if (!strcmp(group, "machine")) {
        if (!strcmp(key, "cpus")) {
            if (!is_uint(v, 1, 64)) {
                return bad(err, file, group, key, v, "not a number in 1..64");
            }
        } else if (!strcmp(key, "cpu")) {
            if (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-_") !=
                strlen(v)) {
                return bad(err, file, group, key, v,
                           "not a CPU model name like max or neoverse-n1");
            }
        } else if (!strcmp(key, "memory")) {
            size_t n = strlen(v);

            if (n < 2 || !strchr("MG", v[n - 1]) || !g_ascii_isdigit(v[0]) ||
                strspn(v, "0123456789") != n - 1) {
                return bad(err, file, group, key, v,
                           "not a size like 512M or 2G");
            }
        } else if (!strcmp(key, "icount")) {
            if (parse_bool(v) < 0) {
                return bad(err, file, group, key, v, "not on or off");
            }
        } else if (!strcmp(key, "icount-shift")) {
            if (!is_uint(v, 0, 10)) {
                return bad(err, file, group, key, v, "not a number in 0..10");
            }
        } else if (!strcmp(key, "quantum")) {
            if (!is_uint(v, 0, 1000000000)) {
                return bad(err, file, group, key, v, "not a number of "
                           "nanoseconds in 0..1000000000 (0: off)");
            }
        } else if (!strcmp(key, "quantum-yield")) {
            if (strcmp(v, "continue") && strcmp(v, "forfeit")) {
                return bad(err, file, group, key, v,
                           "not continue or forfeit");
            }
        } else {
            return bad_key(err, file, group, key, v, "unknown key (known: "
                           "cpus, cpu, memory, icount, icount-shift, "
                           "quantum, quantum-yield)");
        }
    } else if (!strcmp(group, "smmu")) {
        if (!g_strv_contains(smmu_props, key)) {
            return bad_key(err, file, group, key, v, "not a property of "
                       "the model (known: cmdqs, eventqs, ril, msi, sev, "
                       "cmdq-cmd-ns, cmdq-sync-ns, cmdq-cfgi-ns, "
                       "cmdq-tlbi-page-ns, cmdq-jitter-ns, cmdq-seed)");
        }
        if (!strcmp(key, "cmdqs") || !strcmp(key, "eventqs")) {
            if (!is_uint(v, 0, 19)) {
                return bad(err, file, group, key, v, "not a number in 0..19");
            }
        } else if (!strcmp(key, "ril") || !strcmp(key, "msi") ||
                   !strcmp(key, "sev")) {
            if (parse_bool(v) < 0) {
                return bad(err, file, group, key, v, "not on or off");
            }
        } else if (!is_uint(v, 0, G_MAXINT64)) {
            return bad(err, file, group, key, v,
                       "not a number in 0..9223372036854775807");
        }
    } else if (!strcmp(group, "guest")) {
        if (!strcmp(key, "kernel") || !strcmp(key, "initrd")) {
            if (!g_file_test(v, G_FILE_TEST_IS_REGULAR)) {
                return bad(err, file, group, key, v, "no such file");
            }
        } else if (!strcmp(key, "watchdog_thresh")) {
            if (!is_uint(v, 0, 60)) {
                return bad(err, file, group, key, v, "not a number in 0..60");
            }
        } else if (!strcmp(key, "all_cpu_backtrace")) {
            if (parse_bool(v) < 0) {
                return bad(err, file, group, key, v, "not on or off");
            }
        } else if (!strcmp(key, "append")) {
            if (strstr(v, "smmulab.workload=")) {
                return bad(err, file, group, key, v,
                           "set the workload with [workload] kind=");
            }
        } else {
            return bad_key(err, file, group, key, v, "unknown key "
                           "(known: kernel, initrd, append, watchdog_thresh, "
                           "all_cpu_backtrace)");
        }
    } else if (!strcmp(group, "workload")) {
        if (!g_strv_contains(workload_keys, key)) {
            return bad_key(err, file, group, key, v, "unknown key "
                           "(known: kind, threads, seconds, size, total, "
                           "granule, dev, vfs, pfs, rounds)");
        }
        if (!strcmp(key, "kind")) {
            if (!is_token(v)) {
                return bad(err, file, group, key, v, "not a workload name");
            }
        } else if (!strcmp(key, "threads") && !is_uint(v, 1, 64)) {
            return bad(err, file, group, key, v, "not a number in 1..64");
        } else if (!strcmp(key, "seconds") && !is_uint(v, 1, 3600)) {
            return bad(err, file, group, key, v, "not a number in 1..3600");
        } else if ((!strcmp(key, "size") || !strcmp(key, "total")) &&
                   !is_size(v)) {
            return bad(err, file, group, key, v,
                       "not a size (bytes, or with K, M, G)");
        } else if (!strcmp(key, "granule") && !is_uint(v, 1, 1024)) {
            return bad(err, file, group, key, v, "not a number in 1..1024");
        } else if (!strcmp(key, "vfs") && !is_uint(v, 1, 256)) {
            return bad(err, file, group, key, v, "not a number in 1..256");
        } else if (!strcmp(key, "rounds") && !is_uint(v, 1, 10000)) {
            return bad(err, file, group, key, v, "not a number in 1..10000");
        } else if (!strcmp(key, "pfs") && !is_uint(v, 1, 64)) {
            return bad(err, file, group, key, v, "not a number in 1..64");
        } else if (!strcmp(key, "dev") && !is_token(v) && !strchr(v, ':')) {
            return bad(err, file, group, key, v, "not a PCI address");
        }
    } else if (g_str_has_prefix(group, "variant.")) {
        if (strcmp(key, "kernel") && strcmp(key, "initrd")) {
            return bad_key(err, file, group, key, v,
                       "unknown key (known: kernel, initrd)");
        }
        if (!*v) {
            return bad(err, file, group, key, v, "an empty path");
        }
    } else if (!strcmp(group, "variants")) {
        if (!is_token(key)) {
            return bad(err, file, group, key, v,
                       "variant names are letters, digits, _ . -");
        }
        if (strstr(v, "smmulab.workload=")) {
            return bad(err, file, group, key, v,
                       "set the workload with [workload] kind=");
        }
    } else {
        return bad(err, file, group, key, v, "unknown group (known: "
                   "scenario, machine, smmu, guest, workload, variants, "
                   "variant.NAME, sweep)");
    }
    return TRUE;
}

static void variant_free(gpointer p)
{
    SmmulabVariant *v = p;

    g_free(v->name);
    g_free(v->append);
    g_free(v->kernel);
    g_free(v->initrd);
    g_free(v);
}

static void apply(SmmulabScenario *s, const Setting *st)
{
    const char *g = st->group, *k = st->key, *v = st->value;

    if (!strcmp(g, "scenario")) {
        if (!strcmp(k, "name")) {
            g_free(s->name);
            s->name = g_strdup(v);
        } else if (!strcmp(k, "description")) {
            g_free(s->description);
            s->description = g_strdup(v);
        } else if (!strcmp(k, "repeat")) {
            s->repeat = to_uint(v);
        } else if (!strcmp(k, "timeout")) {
            s->timeout_s = to_uint(v);
        } else if (!strcmp(k, "control")) {
            s->control = parse_bool(v);
        } else if (!strcmp(k, "baseline")) {
            g_free(s->baseline);
            s->baseline = g_strdup(v);
        } else if (!strcmp(k, "primary")) {
            g_free(s->primary);
            s->primary = g_strdup(v);
        } else if (!strcmp(k, "seed")) {
            s->seed = g_ascii_strtoull(v, NULL, 10);
        } else if (!strcmp(k, "design")) {
            s->paired = !strcmp(v, "paired");
        }
    } else if (!strcmp(g, "machine")) {
        if (!strcmp(k, "cpus")) {
            s->cpus = to_uint(v);
        } else if (!strcmp(k, "memory")) {
            g_free(s->memory);
            s->memory = g_strdup(v);
        } else if (!strcmp(k, "cpu")) {
            g_free(s->cpu);
            s->cpu = g_strdup(v);
        } else if (!strcmp(k, "icount")) {
            s->icount = parse_bool(v);
        } else if (!strcmp(k, "icount-shift")) {
            s->icount_shift = to_uint(v);
        } else if (!strcmp(k, "quantum")) {
            s->quantum_ns = g_ascii_strtoull(v, NULL, 10);
        } else if (!strcmp(k, "quantum-yield")) {
            g_free(s->quantum_yield);
            s->quantum_yield = g_strdup(v);
        }
    } else if (!strcmp(g, "smmu")) {
        guint i;
        char *pv = g_strdup_printf("%s=%s", k, v);

        for (i = 0; i < s->smmu->len; i++) {
            const char *old = g_ptr_array_index(s->smmu, i);

            if (g_str_has_prefix(old, k) && old[strlen(k)] == '=') {
                g_ptr_array_remove_index(s->smmu, i);
                break;
            }
        }
        g_ptr_array_add(s->smmu, pv);
    } else if (!strcmp(g, "guest")) {
        if (!strcmp(k, "kernel")) {
            g_free(s->kernel);
            s->kernel = g_strdup(v);
        } else if (!strcmp(k, "initrd")) {
            g_free(s->initrd);
            s->initrd = g_strdup(v);
        } else if (!strcmp(k, "append")) {
            g_free(s->append);
            s->append = g_strdup(v);
        } else if (!strcmp(k, "watchdog_thresh")) {
            s->watchdog_thresh = to_uint(v);
        } else if (!strcmp(k, "all_cpu_backtrace")) {
            s->all_cpu_backtrace = parse_bool(v) > 0;
        }
    } else if (!strcmp(g, "workload")) {
        GPtrArray *list = !strcmp(k, "pfs") ? s->topology : s->params;
        const char *prefix = !strcmp(k, "pfs") ? "" : "smmulab.";
        g_autofree char *head = g_strdup_printf("%s%s=", prefix, k);
        guint i;

        if (!strcmp(k, "kind")) {
            g_free(s->workload);
            s->workload = g_strdup(v);
            return;
        }
        for (i = 0; i < list->len; i++) {
            if (g_str_has_prefix(g_ptr_array_index(list, i), head)) {
                g_ptr_array_remove_index(list, i);
                break;
            }
        }
        g_ptr_array_add(list, g_strconcat(head, v, NULL));
    } else if (!strcmp(g, "variants")) {
        SmmulabVariant *var = g_new0(SmmulabVariant, 1);

        var->name = g_strdup(k);
        var->append = g_strdup(v);
        g_ptr_array_add(s->variants, var);
    }
}

/* [variant.NAME] settings, once every variant is known; FALSE if NAME isn't */
static gboolean apply_variant_files(ScenarioPriv *p, GError **err)
{
    SmmulabScenario *s = &p->pub;
    guint i, j;

    for (i = 0; i < p->settings->len; i++) {
        const Setting *st = g_ptr_array_index(p->settings, i);
        SmmulabVariant *var = NULL;

        if (!g_str_has_prefix(st->group, "variant.")) {
            continue;
        }
        for (j = 0; j < s->variants->len; j++) {
            SmmulabVariant *v = g_ptr_array_index(s->variants, j);

            if (!strcmp(v->name, st->group + 8)) {
                var = v;
            }
        }
        if (!var) {
            return bad(err, s->file, st->group, st->key, st->value,
                       "no such variant in [variants]");
        }
        if (!strcmp(st->key, "kernel")) {
            g_free(var->kernel);
            var->kernel = g_strdup(st->value);
        } else {
            g_free(var->initrd);
            var->initrd = g_strdup(st->value);
        }
    }
    return TRUE;
}

static ScenarioPriv *scenario_new(const char *file)
{
    ScenarioPriv *p = g_new0(ScenarioPriv, 1);
    SmmulabScenario *s = &p->pub;
    g_autofree char *base = g_path_get_basename(file);
    char *dot = strrchr(base, '.');

    if (dot) {
        *dot = '\0';
    }
    s->file = g_strdup(file);
    s->name = g_strdup(base);
    s->repeat = 1;
    s->timeout_s = 300;
    s->control = TRUE;
    s->paired = SMMULAB_DESIGN_PAIRED_DEFAULT;
    s->icount_shift = 4;
    s->watchdog_thresh = -1;
    s->smmu = g_ptr_array_new_with_free_func(g_free);
    s->params = g_ptr_array_new_with_free_func(g_free);
    s->topology = g_ptr_array_new_with_free_func(g_free);
    s->variants = g_ptr_array_new_with_free_func(variant_free);
    s->sweep_values = g_ptr_array_new_with_free_func(g_free);
    p->settings = g_ptr_array_new_with_free_func(setting_free);
    return p;
}

static void add_setting(ScenarioPriv *p, const char *g, const char *k,
                        const char *v)
{
    Setting *st = g_new0(Setting, 1);

    st->group = g_strdup(g);
    st->key = g_strdup(k);
    st->value = g_strdup(v);
    g_ptr_array_add(p->settings, st);
    apply(&p->pub, st);
}

void smmulab_scenario_free(SmmulabScenario *s)
{
    ScenarioPriv *p = (ScenarioPriv *)s;

    if (!s) {
        return;
    }
    g_free(s->file);
    g_free(s->name);
    g_free(s->description);
    g_free(s->memory);
    g_free(s->cpu);
    g_free(s->kernel);
    g_free(s->initrd);
    g_free(s->quantum_yield);
    g_free(s->append);
    g_free(s->workload);
    g_free(s->baseline);
    g_free(s->primary);
    g_free(s->sweep_group);
    g_free(s->sweep_key);
    g_ptr_array_unref(s->smmu);
    g_ptr_array_unref(s->params);
    g_ptr_array_unref(s->topology);
    g_ptr_array_unref(s->variants);
    g_ptr_array_unref(s->sweep_values);
    g_ptr_array_unref(p->settings);
    g_free(p);
}

SmmulabScenario *smmulab_scenario_load(const char *file,
                                       const char *topologies, GError **err)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GKeyFile) topo = g_key_file_new();
    g_auto(GStrv) groups = NULL;
    ScenarioPriv *p;
    SmmulabScenario *s;
    guint i, j;

    if (!g_key_file_load_from_file(kf, file, G_KEY_FILE_NONE, err)) {
        g_prefix_error(err, "%s: ", file);
        return NULL;
    }
    if (!g_key_file_load_from_file(topo, topologies, G_KEY_FILE_NONE, err)) {
        g_prefix_error(err, "%s: ", topologies);
        return NULL;
    }
    p = scenario_new(file);
    s = &p->pub;
    groups = g_key_file_get_groups(kf, NULL);
    for (i = 0; groups[i]; i++) {
        g_auto(GStrv) keys = g_key_file_get_keys(kf, groups[i], NULL, NULL);

        if (!strcmp(groups[i], "sweep")) {
            continue;
        }
        for (j = 0; keys && keys[j]; j++) {
            g_autofree char *v = g_key_file_get_string(kf, groups[i],
                                                       keys[j], err);

            if (!v) {
                g_prefix_error(err, "%s: [%s] %s: ", file, groups[i],
                               keys[j]);
                goto fail;
            }
            if (!smmulab_scenario_check_value(file, groups[i], keys[j], v,
                                              err)) {
                goto fail;
            }
            {
                guint k;

                /* GKeyFile keeps a repeated key: each key once a group */
                for (k = 0; k < j; k++) {
                    if (!strcmp(keys[k], keys[j])) {
                        bad(err, file, groups[i], keys[j], v,
                            !strcmp(groups[i], "variants") ?
                            "a second variant of this name" :
                            "a second value of this key (each key once)");
                        goto fail;
                    }
                }
            }
            add_setting(p, groups[i], keys[j], v);
        }
    }

    if (!s->workload) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                    "%s: [workload] kind= is missing", file);
        goto fail;
    }
    if (!g_key_file_has_group(topo, s->workload)) {
        g_auto(GStrv) kinds = g_key_file_get_groups(topo, NULL);
        g_autofree char *list = g_strjoinv(", ", kinds);
        g_autofree char *why = g_strdup_printf("unknown workload (known: %s)",
                                               list);

        bad(err, file, "workload", "kind", s->workload, why);
        goto fail;
    }
    if (!s->variants->len) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND,
                    "%s: [variants] lists no variant (NAME=kernel parameters)",
                    file);
        goto fail;
    }

    if (!apply_variant_files(p, err)) {
        goto fail;
    }
    if (s->baseline) {
        gboolean found = FALSE;

        for (j = 0; j < s->variants->len; j++) {
            found |= !strcmp(((SmmulabVariant *)
                              g_ptr_array_index(s->variants, j))->name,
                             s->baseline);
        }
        if (!found) {
            bad(err, file, "scenario", "baseline", s->baseline,
                "not one of the [variants]");
            goto fail;
        }
    }

    if (s->primary && strcmp(s->primary, REPORT_RUNS_WITH_LOCKUP) &&
        strcmp(s->primary, REPORT_RUNS_WITH_TIMEOUT) &&
        !report_find_metric(s->workload, s->primary)) {
        g_autofree char *why = g_strdup_printf(
            "no such endpoint for workload %s (runs_with_soft_lockup, "
            "runs_with_timeout, or a metric id of docs/metrics.md: "
            "smmulab-run --metrics)",
            s->workload);

        bad(err, file, "scenario", "primary", s->primary, why);
        goto fail;
    }

    if (g_key_file_has_group(kf, "sweep")) {
        g_autofree char *key = g_key_file_get_string(kf, "sweep", "key", NULL);
        g_autofree char *values = g_key_file_get_string(kf, "sweep", "values",
                                                        NULL);
        g_auto(GStrv) keys = g_key_file_get_keys(kf, "sweep", NULL, NULL);
        g_auto(GStrv) vals = NULL;
        char *dot;

        for (j = 0; keys && keys[j]; j++) {
            if (strcmp(keys[j], "key") && strcmp(keys[j], "values")) {
                g_autofree char *v = g_key_file_get_value(kf, "sweep",
                                                          keys[j], NULL);

                bad(err, file, "sweep", keys[j], v,
                    "unknown key (known: key, values)");
                goto fail;
            }
        }
        if (!key || !values) {
            g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                        "%s: [sweep] needs key=GROUP.KEY and values=A;B;...",
                        file);
            goto fail;
        }
        dot = strchr(key, '.');
        if (!dot || (strncmp(key, "machine.", 8) && strncmp(key, "smmu.", 5) &&
                     strncmp(key, "workload.", 9) && strncmp(key, "guest.", 6))) {
            bad(err, file, "sweep", "key", key,
                "not GROUP.KEY with GROUP machine, smmu, workload or guest");
            goto fail;
        }
        s->sweep_group = g_strndup(key, dot - key);
        s->sweep_key = g_strdup(dot + 1);
        if (!strcmp(s->sweep_key, "kind")) {
            bad(err, file, "sweep", "key", key, "the workload kind cannot be swept");
            goto fail;
        }
        vals = g_strsplit(values, ";", -1);
        for (j = 0; vals[j]; j++) {
            char *v = g_strstrip(vals[j]);

            if (!*v) {
                continue;
            }
            if (!smmulab_scenario_check_value(file, s->sweep_group,
                                              s->sweep_key, v, err)) {
                char *msg;

                if (g_error_matches(*err, G_KEY_FILE_ERROR,
                                    G_KEY_FILE_ERROR_KEY_NOT_FOUND)) {
                    /* no such key: the key is wrong, not its values */
                    const char *why = strstr((*err)->message, ": ");

                    why = why ? strstr(why + 2, ": ") : NULL;
                    msg = g_strdup_printf("%s: [sweep] key=%s: %s", file, key,
                                          why ? why + 2 : "no such key");
                } else {
                    msg = g_strdup_printf("%s (in [sweep] values)",
                                          (*err)->message);
                }
                g_free((*err)->message);
                (*err)->message = msg;
                goto fail;
            }
            g_ptr_array_add(s->sweep_values, g_strdup(v));
        }
        if (!s->sweep_values->len) {
            bad(err, file, "sweep", "values", values, "no value");
            goto fail;
        }
    }
    if (s->quantum_yield && !s->quantum_ns &&
        !(s->sweep_group && !strcmp(s->sweep_group, "machine") &&
          !strcmp(s->sweep_key, "quantum"))) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [machine] quantum-yield= needs quantum=", file);
        goto fail;
    }
    /* lock-step quanta are a mode of icount */
    if (!s->icount && (s->quantum_ns || (s->sweep_group &&
                                         !strcmp(s->sweep_group, "machine") &&
                                         !strcmp(s->sweep_key, "quantum")))) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [machine] quantum= needs icount=on (lock-step "
                    "quanta are a mode of icount)", file);
        goto fail;
    }
    return s;

fail:
    smmulab_scenario_free(s);
    return NULL;
}

SmmulabScenario *smmulab_scenario_at_point(const SmmulabScenario *s,
                                           const char *value,
                                           gboolean control)
{
    const ScenarioPriv *src = (const ScenarioPriv *)s;
    ScenarioPriv *p = scenario_new(s->file);
    guint i;

    for (i = 0; i < src->settings->len; i++) {
        const Setting *st = g_ptr_array_index(src->settings, i);

        /* The control runs on fast hardware: no model property */
        if (control && !strcmp(st->group, "smmu")) {
            continue;
        }
        add_setting(p, st->group, st->key, st->value);
    }
    /* A sweep of the model does not apply to fast hardware */
    if (value && s->sweep_group &&
        !(control && !strcmp(s->sweep_group, "smmu"))) {
        add_setting(p, s->sweep_group, s->sweep_key, value);
    }
    /* (validated when the scenario was loaded) */
    apply_variant_files(p, NULL);
    return &p->pub;
}

char *smmulab_scenario_asked(const SmmulabScenario *sc,
                             const char *variant_append)
{
    return g_strjoin(" ", sc->append ? sc->append : "",
                     variant_append ? variant_append : "", NULL);
}
