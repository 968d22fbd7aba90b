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

/* A key of a group, and what its values must be */
typedef struct KeyRule {
    const char *key;
    gboolean (*valid)(const char *v, const struct KeyRule *k);
    guint64 min, max;           /* valid_uint's range */
    const char *words[3];       /* valid_word's choices */
    const char *why;            /* what a bad value is not */
} KeyRule;

/* The keys of a group, and the error for a key it does not have */
typedef struct GroupRules {
    const char *group;
    const KeyRule *keys;        /* ended by a NULL key */
    const char *unknown;
} GroupRules;

/* The validators: whether @v is a value key @k takes */
static gboolean valid_any(const char *v G_GNUC_UNUSED,
                          const KeyRule *k G_GNUC_UNUSED)
{
    return TRUE;
}

static gboolean valid_token(const char *v, const KeyRule *k G_GNUC_UNUSED)
{
    return is_token(v);
}

static gboolean valid_uint(const char *v, const KeyRule *k)
{
    return is_uint(v, k->min, k->max);
}

static gboolean valid_bool(const char *v, const KeyRule *k G_GNUC_UNUSED)
{
    return parse_bool(v) >= 0;
}

static gboolean valid_size(const char *v, const KeyRule *k G_GNUC_UNUSED)
{
    return is_size(v);
}

static gboolean valid_word(const char *v, const KeyRule *k)
{
    return g_strv_contains(k->words, v);
}

static gboolean valid_file(const char *v, const KeyRule *k G_GNUC_UNUSED)
{
    return g_file_test(v, G_FILE_TEST_IS_REGULAR);
}

/* Kernel parameters, which must leave the workload to [workload] */
static gboolean valid_append(const char *v, const KeyRule *k G_GNUC_UNUSED)
{
    return !strstr(v, "smmulab.workload=");
}

static gboolean valid_cpu_model(const char *v, const KeyRule *k G_GNUC_UNUSED)
{
    return *v && strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-_") ==
        strlen(v);
}

/* 512M or 2G */
static gboolean valid_memory(const char *v, const KeyRule *k G_GNUC_UNUSED)
{
    size_t n = strlen(v);

    return !(n < 2 || !strchr("MG", v[n - 1]) || !g_ascii_isdigit(v[0]) ||
             strspn(v, "0123456789") != n - 1);
}

static gboolean valid_pci(const char *v, const KeyRule *k G_GNUC_UNUSED)
{
    return is_token(v) || strchr(v, ':');
}

#define ON_OFF "not on or off"

static const KeyRule scenario_keys[] = {
    { "name", valid_token, .why = "letters, digits, _ . - only" },
    { .key = "description", .valid = valid_any },
    { "repeat", valid_uint, 1, 100, .why = "not a number in 1..100" },
    { "timeout", valid_uint, 10, 86400,
      .why = "not a number of seconds in 10..86400" },
    { "control", valid_bool, .why = ON_OFF },
    { "baseline", valid_token, .why = "not a variant name" },
    { "primary", valid_token,
      .why = "not an endpoint name (runs_with_soft_lockup, "
      "runs_with_timeout, or a metric id)" },
    { "seed", valid_uint, 0, G_MAXUINT64,
      .why = "not a number in 0..18446744073709551615" },
    { "design", valid_word, .words = { "paired", "independent" },
      .why = "not paired or independent" },
    { NULL },
};

static const KeyRule machine_keys[] = {
    { "cpus", valid_uint, 1, 64, .why = "not a number in 1..64" },
    { "cpu", valid_cpu_model,
      .why = "not a CPU model name like max or neoverse-n1" },
    { "memory", valid_memory, .why = "not a size like 512M or 2G" },
    { "icount", valid_bool, .why = ON_OFF },
    { "icount-shift", valid_uint, 0, 10, .why = "not a number in 0..10" },
    { "quantum", valid_uint, 0, 1000000000,
      .why = "not a number of nanoseconds in 0..1000000000 (0: off)" },
    { "quantum-yield", valid_word, .words = { "continue", "forfeit" },
      .why = "not continue or forfeit" },
    { "line-ns", valid_uint, 0, 1000000,
      .why = "not a number of nanoseconds in 0..1000000 (0: off)" },
    { NULL },
};

#define SMMU_NS(name) \
    { name, valid_uint, 0, G_MAXINT64, \
      .why = "not a number in 0..9223372036854775807" }

static const KeyRule smmu_keys[] = {
    { "cmdqs", valid_uint, 0, 19, .why = "not a number in 0..19" },
    { "eventqs", valid_uint, 0, 19, .why = "not a number in 0..19" },
    { "ril", valid_bool, .why = ON_OFF },
    { "msi", valid_bool, .why = ON_OFF },
    { "sev", valid_bool, .why = ON_OFF },
    SMMU_NS("cmdq-cmd-ns"),
    SMMU_NS("cmdq-sync-ns"),
    SMMU_NS("cmdq-cfgi-ns"),
    SMMU_NS("cmdq-tlbi-page-ns"),
    SMMU_NS("cmdq-jitter-ns"),
    SMMU_NS("cmdq-seed"),
    { NULL },
};

static const KeyRule guest_keys[] = {
    { "kernel", valid_file, .why = "no such file" },
    { "initrd", valid_file, .why = "no such file" },
    { "watchdog_thresh", valid_uint, 0, 60, .why = "not a number in 0..60" },
    { "all_cpu_backtrace", valid_bool, .why = ON_OFF },
    { "append", valid_append,
      .why = "set the workload with [workload] kind=" },
    { NULL },
};

static const KeyRule workload_keys[] = {
    { "kind", valid_token, .why = "not a workload name" },
    { "threads", valid_uint, 1, 64, .why = "not a number in 1..64" },
    { "seconds", valid_uint, 1, 3600, .why = "not a number in 1..3600" },
    { "size", valid_size, .why = "not a size (bytes, or with K, M, G)" },
    { "total", valid_size, .why = "not a size (bytes, or with K, M, G)" },
    { "granule", valid_uint, 1, 1024, .why = "not a number in 1..1024" },
    { "dev", valid_pci, .why = "not a PCI address" },
    { "vfs", valid_uint, 1, 256, .why = "not a number in 1..256" },
    { "pfs", valid_uint, 1, 64, .why = "not a number in 1..64" },
    { "rounds", valid_uint, 1, 10000, .why = "not a number in 1..10000" },
    { NULL },
};

static const GroupRules group_rules[] = {
    { "scenario", scenario_keys, "unknown key (known: name, description, "
      "repeat, timeout, control, baseline, primary, seed, design)" },
    { "machine", machine_keys, "unknown key (known: cpus, cpu, memory, "
      "icount, icount-shift, quantum, quantum-yield, line-ns)" },
    { "smmu", smmu_keys, "not a property of the model (known: cmdqs, "
      "eventqs, ril, msi, sev, cmdq-cmd-ns, cmdq-sync-ns, cmdq-cfgi-ns, "
      "cmdq-tlbi-page-ns, cmdq-jitter-ns, cmdq-seed)" },
    { "guest", guest_keys, "unknown key (known: kernel, initrd, append, "
      "watchdog_thresh, all_cpu_backtrace)" },
    { "workload", workload_keys, "unknown key (known: kind, threads, "
      "seconds, size, total, granule, dev, vfs, pfs, rounds)" },
};

/* A key of a group with a rule for each key */
static gboolean check_rule(const GroupRules *gr, const char *file,
                           const char *key, const char *v, GError **err)
{
    const KeyRule *k;

    for (k = gr->keys; k->key; k++) {
        if (!strcmp(k->key, key)) {
            return k->valid(v, k) ||
                bad(err, file, gr->group, key, v, k->why);
        }
    }
    return bad_key(err, file, gr->group, key, v, gr->unknown);
}

gboolean smmulab_scenario_check_value(const char *file, const char *group,
                                      const char *key, const char *v,
                                      GError **err)
{
    guint i;

    for (i = 0; i < G_N_ELEMENTS(group_rules); i++) {
        if (!strcmp(group, group_rules[i].group)) {
            return check_rule(&group_rules[i], file, key, v, err);
        }
    }
    if (g_str_has_prefix(group, "variant.")) {
        /* [variant.NAME]: a variant's own kernel and initrd */
        if (strcmp(key, "kernel") && strcmp(key, "initrd")) {
            return bad_key(err, file, group, key, v,
                           "unknown key (known: kernel, initrd)");
        }
        return *v || bad(err, file, group, key, v, "an empty path");
    }
    if (!strcmp(group, "variants")) {
        /* NAME=kernel parameters */
        if (!is_token(key)) {
            return bad(err, file, group, key, v,
                       "variant names are letters, digits, _ . -");
        }
        return valid_append(v, NULL) ||
            bad(err, file, group, key, v,
                "set the workload with [workload] kind=");
    }
    return bad(err, file, group, key, v, "unknown group (known: "
               "scenario, machine, smmu, guest, workload, variants, "
               "variant.NAME, sweep)");
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
        } else if (!strcmp(k, "line-ns")) {
            s->line_ns = g_ascii_strtoull(v, NULL, 10);
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

/*
 * One group's settings, checked and applied in order; a key given twice
 * is refused (GKeyFile keeps both)
 */
static gboolean read_group(ScenarioPriv *p, GKeyFile *kf, const char *group,
                           GError **err)
{
    const char *file = p->pub.file;
    g_auto(GStrv) keys = g_key_file_get_keys(kf, group, NULL, NULL);
    guint j, k;

    for (j = 0; keys && keys[j]; j++) {
        g_autofree char *v = g_key_file_get_string(kf, group, keys[j], err);

        if (!v) {
            g_prefix_error(err, "%s: [%s] %s: ", file, group, keys[j]);
            return FALSE;
        }
        if (!smmulab_scenario_check_value(file, group, keys[j], v, err)) {
            return FALSE;
        }
        for (k = 0; k < j; k++) {
            if (!strcmp(keys[k], keys[j])) {
                return bad(err, file, group, keys[j], v,
                           !strcmp(group, "variants") ?
                           "a second variant of this name" :
                           "a second value of this key (each key once)");
            }
        }
        add_setting(p, group, keys[j], v);
    }
    return TRUE;
}

/* A workload of @topo, some variants, and baseline= one of them */
static gboolean check_workload_variants(ScenarioPriv *p, GKeyFile *topo,
                                        GError **err)
{
    SmmulabScenario *s = &p->pub;
    gboolean found = FALSE;
    guint j;

    if (!s->workload) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                    "%s: [workload] kind= is missing", s->file);
        return FALSE;
    }
    if (!g_key_file_has_group(topo, s->workload)) {
        g_auto(GStrv) kinds = g_key_file_get_groups(topo, NULL);
        g_autofree char *list = g_strjoinv(", ", kinds);
        g_autofree char *why = g_strdup_printf("unknown workload (known: %s)",
                                               list);

        return bad(err, s->file, "workload", "kind", s->workload, why);
    }
    if (!s->variants->len) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND,
                    "%s: [variants] lists no variant (NAME=kernel parameters)",
                    s->file);
        return FALSE;
    }
    if (!apply_variant_files(p, err)) {
        return FALSE;
    }
    if (!s->baseline) {
        return TRUE;
    }
    for (j = 0; j < s->variants->len; j++) {
        found |= !strcmp(((SmmulabVariant *)
                          g_ptr_array_index(s->variants, j))->name,
                         s->baseline);
    }
    return found || bad(err, s->file, "scenario", "baseline", s->baseline,
                        "not one of the [variants]");
}

/* primary= an endpoint the workload has */
static gboolean check_primary(SmmulabScenario *s, GError **err)
{
    g_autofree char *why = NULL;

    if (!s->primary || !strcmp(s->primary, REPORT_RUNS_WITH_LOCKUP) ||
        !strcmp(s->primary, REPORT_RUNS_WITH_TIMEOUT) ||
        report_find_metric(s->workload, s->primary)) {
        return TRUE;
    }
    why = g_strdup_printf("no such endpoint for workload %s "
                          "(runs_with_soft_lockup, runs_with_timeout, or a "
                          "metric id of docs/metrics.md: smmulab-run "
                          "--metrics)", s->workload);
    return bad(err, s->file, "scenario", "primary", s->primary, why);
}

/* [sweep] key=GROUP.KEY, the only other key values= */
static gboolean read_sweep_key(SmmulabScenario *s, GKeyFile *kf,
                               const char *key, const char *values,
                               GError **err)
{
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "sweep", NULL, NULL);
    const char *file = s->file;
    char *dot;
    guint j;

    for (j = 0; keys && keys[j]; j++) {
        if (strcmp(keys[j], "key") && strcmp(keys[j], "values")) {
            g_autofree char *v = g_key_file_get_value(kf, "sweep", keys[j],
                                                      NULL);

            return bad(err, file, "sweep", keys[j], v,
                       "unknown key (known: key, values)");
        }
    }
    if (!key || !values) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                    "%s: [sweep] needs key=GROUP.KEY and values=A;B;...",
                    file);
        return FALSE;
    }
    dot = strchr(key, '.');
    if (!dot || (strncmp(key, "machine.", 8) && strncmp(key, "smmu.", 5) &&
                 strncmp(key, "workload.", 9) &&
                 strncmp(key, "guest.", 6))) {
        return bad(err, file, "sweep", "key", key, "not GROUP.KEY with "
                   "GROUP machine, smmu, workload or guest");
    }
    s->sweep_group = g_strndup(key, dot - key);
    s->sweep_key = g_strdup(dot + 1);
    if (!strcmp(s->sweep_key, "kind")) {
        return bad(err, file, "sweep", "key", key,
                   "the workload kind cannot be swept");
    }
    return TRUE;
}

/*
 * A bad sweep value's error, said of [sweep]: the key when the group has
 * no such key, else the value
 */
static void blame_sweep(const char *file, const char *key, GError *err)
{
    char *msg;

    if (g_error_matches(err, G_KEY_FILE_ERROR,
                        G_KEY_FILE_ERROR_KEY_NOT_FOUND)) {
        /* no such key: the key is wrong, not its values */
        const char *why = strstr(err->message, ": ");

        why = why ? strstr(why + 2, ": ") : NULL;
        msg = g_strdup_printf("%s: [sweep] key=%s: %s", file, key,
                              why ? why + 2 : "no such key");
    } else {
        msg = g_strdup_printf("%s (in [sweep] values)", err->message);
    }
    g_free(err->message);
    err->message = msg;
}

/* [sweep]: the key and its values, each checked as the key's would be */
static gboolean read_sweep(SmmulabScenario *s, GKeyFile *kf, GError **err)
{
    g_autofree char *key = g_key_file_get_string(kf, "sweep", "key", NULL);
    g_autofree char *values = g_key_file_get_string(kf, "sweep", "values",
                                                    NULL);
    g_auto(GStrv) vals = NULL;
    guint j;

    if (!read_sweep_key(s, kf, key, values, err)) {
        return FALSE;
    }
    vals = g_strsplit(values, ";", -1);
    for (j = 0; vals[j]; j++) {
        char *v = g_strstrip(vals[j]);

        if (!*v) {
            continue;
        }
        if (!smmulab_scenario_check_value(s->file, s->sweep_group,
                                          s->sweep_key, v, err)) {
            blame_sweep(s->file, key, *err);
            return FALSE;
        }
        g_ptr_array_add(s->sweep_values, g_strdup(v));
    }
    if (!s->sweep_values->len) {
        return bad(err, s->file, "sweep", "values", values, "no value");
    }
    return TRUE;
}

/*
 * quantum= (set or swept) needs icount, and quantum-yield= and line-ns=
 * (set or swept) a quantum; line-ns= is at least one instruction
 */
static gboolean check_quantum(SmmulabScenario *s, GError **err)
{
    gboolean swept = s->sweep_group && !strcmp(s->sweep_group, "machine") &&
        !strcmp(s->sweep_key, "quantum");
    gboolean line_swept = s->sweep_group &&
        !strcmp(s->sweep_group, "machine") &&
        !strcmp(s->sweep_key, "line-ns");
    guint i;

    if ((s->line_ns || line_swept) && !s->quantum_ns && !swept) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [machine] line-ns= needs quantum= (cache-line "
                    "transfers are a part of lock-step quanta)", s->file);
        return FALSE;
    }
    for (i = 0; i <= (line_swept ? s->sweep_values->len : 0); i++) {
        guint64 ns = i < (line_swept ? s->sweep_values->len : 0) ?
            g_ascii_strtoull(g_ptr_array_index(s->sweep_values, i), NULL, 10) :
            s->line_ns;

        if (ns && ns < (G_GUINT64_CONSTANT(1) << s->icount_shift)) {
            g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                        "%s: [machine] line-ns=%" G_GUINT64_FORMAT " is less "
                        "than one instruction at icount-shift=%u (%u ns)",
                        s->file, ns, s->icount_shift, 1u << s->icount_shift);
            return FALSE;
        }
    }

    if (s->quantum_yield && !s->quantum_ns && !swept) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [machine] quantum-yield= needs quantum=", s->file);
        return FALSE;
    }
    /* lock-step quanta are a mode of icount */
    if (!s->icount && (s->quantum_ns || swept)) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [machine] quantum= needs icount=on (lock-step "
                    "quanta are a mode of icount)", s->file);
        return FALSE;
    }
    return TRUE;
}

SmmulabScenario *smmulab_scenario_load(const char *file,
                                       const char *topologies, GError **err)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GKeyFile) topo = g_key_file_new();
    g_auto(GStrv) groups = NULL;
    g_autofree char *text = NULL;
    gsize len;
    ScenarioPriv *p;
    SmmulabScenario *s;
    guint i;

    if (!g_file_get_contents(file, &text, &len, err)) {
        g_prefix_error(err, "%s: ", file);
        return NULL;
    }
    /* GKeyFile would quote the offending line: never echo a binary's bytes */
    if (memchr(text, '\0', len) || !g_utf8_validate(text, len, NULL)) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
                    "%s: not a scenario file (binary, or not UTF-8 text)",
                    file);
        return NULL;
    }
    if (!g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, err)) {
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
        if (strcmp(groups[i], "sweep") && !read_group(p, kf, groups[i], err)) {
            goto fail;
        }
    }
    if (!check_workload_variants(p, topo, err) || !check_primary(s, err)) {
        goto fail;
    }
    if (g_key_file_has_group(kf, "sweep") && !read_sweep(s, kf, err)) {
        goto fail;
    }
    if (!check_quantum(s, err)) {
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
