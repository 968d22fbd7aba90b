/*
 * smmulab: the run records — runs.json (scenario, provenance, every run),
 * written after each run, read back for reports and merged from shards
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

#include "record.h"
#include "topology.h"

JsonNode *smmulab_record_scenario(const SmmulabScenario *sc,
                                  const char *topologies)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(SmmulabTopology) topo = smmulab_topology_load(topologies,
                                                            sc->workload,
                                                            NULL, NULL);
    g_autofree char *smmu = NULL, *machine = NULL, *cpus = NULL;
    g_autofree char *quantum = NULL, *lines = NULL;
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
    if (sc->icount && sc->sweep_group &&
        !strcmp(sc->sweep_group, "machine") &&
        !strcmp(sc->sweep_key, "quantum")) {
        quantum = g_strdup(", lock-step quanta swept (ns of virtual time "
                           "a round, the vCPUs in parallel; 0: stock "
                           "icount, the vCPUs sharing one clock)");
    } else if (sc->icount && sc->quantum_ns) {
        guint64 insns = sc->quantum_ns >> sc->icount_shift;

        quantum = g_strdup_printf(", lock-step quanta of %" G_GUINT64_FORMAT
                                  " ns (%" G_GUINT64_FORMAT " instructions "
                                  "at shift %u, a yield %s): the vCPUs run "
                                  "in parallel in virtual time",
                                  sc->quantum_ns, insns ? insns : 1,
                                  sc->icount_shift,
                                  sc->quantum_yield &&
                                  !strcmp(sc->quantum_yield, "forfeit") ?
                                  "forfeits the rest of the turn" :
                                  "ends the turn");
    }
    if (quantum && sc->sweep_group && !strcmp(sc->sweep_group, "machine") &&
        !strcmp(sc->sweep_key, "line-ns")) {
        lines = g_strdup(", a contended cache line's transfer swept (ns, "
                         "0: free)");
    } else if (quantum && sc->line_ns) {
        guint64 insns = sc->line_ns >> sc->icount_shift;

        lines = g_strdup_printf(", a contended cache line's transfer %"
                                G_GUINT64_FORMAT " ns (line-ns, %"
                                G_GUINT64_FORMAT " instructions)",
                                sc->line_ns, insns);
    }
    machine = g_strdup_printf("%s vCPUs, %s memory, icount %s%s%s", cpus,
                              sc->memory ? sc->memory :
                              (topo ? topo->memory : "?"),
                              sc->icount ? "on (deterministic)" : "off",
                              quantum ? quantum : "", lines ? lines : "");
    json_builder_begin_object(b);
    smmulab_json_add_string(b, "file", sc->file);
    smmulab_json_add_string(b, "name", sc->name);
    if (sc->description) {
        smmulab_json_add_string(b, "description", sc->description);
    }
    smmulab_json_add_string(b, "workload", sc->workload);
    smmulab_json_add_int(b, "repeat", sc->repeat);
    smmulab_json_add_bool(b, "icount", sc->icount);
    if (sc->icount && sc->quantum_ns) {
        smmulab_json_add_int(b, "quantum_ns", sc->quantum_ns);
        if (sc->line_ns) {
            smmulab_json_add_int(b, "line_ns", sc->line_ns);
        }
    }
    smmulab_json_add_int(b, "cpus", sc->cpus ? sc->cpus :
                         (topo ? topo->cpus : 0));
    {
        g_autofree char *seed = g_strdup_printf("%" G_GUINT64_FORMAT,
                                                sc->seed);

        smmulab_json_add_string(b, "seed", seed);
    }
    smmulab_json_add_string(b, "design", sc->paired ? "paired" :
                            "independent");
    if (sc->primary) {
        smmulab_json_add_string(b, "primary", sc->primary);
    }
    smmulab_json_add_bool(b, "control", sc->control);
    smmulab_json_add_string(b, "smmu", smmu);
    smmulab_json_add_string(b, "machine", machine);
    smmulab_json_add_string(b, "baseline", sc->baseline ? sc->baseline :
                      ((SmmulabVariant *)g_ptr_array_index(sc->variants,
                                                           0))->name);
    if (sc->append && *sc->append) {
        smmulab_json_add_string(b, "append", sc->append);
    }
    json_builder_set_member_name(b, "variants");
    json_builder_begin_array(b);
    for (i = 0; i < sc->variants->len; i++) {
        SmmulabVariant *v = g_ptr_array_index(sc->variants, i);

        json_builder_begin_object(b);
        smmulab_json_add_string(b, "name", v->name);
        smmulab_json_add_string(b, "append", v->append);
        if (v->kernel) {
            smmulab_json_add_string(b, "kernel", v->kernel);
        }
        if (v->initrd) {
            smmulab_json_add_string(b, "initrd", v->initrd);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    if (sc->sweep_group) {
        g_autofree char *key = g_strdup_printf("%s.%s", sc->sweep_group,
                                               sc->sweep_key);

        smmulab_json_add_string(b, "sweep_key", key);
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

/* The KEY=VALUE words of @line as members, strings or integers */
static void add_pairs(JsonBuilder *b, const char *line, gboolean as_int)
{
    g_auto(GStrv) kv = g_strsplit(line, " ", -1);
    guint i;

    for (i = 0; kv[i]; i++) {
        char *eq = strchr(kv[i], '=');

        if (!eq) {
            continue;
        }
        *eq = '\0';
        json_builder_set_member_name(b, kv[i]);
        if (as_int) {
            json_builder_add_int_value(b, g_ascii_strtoll(eq + 1, NULL, 10));
        } else {
            json_builder_add_string_value(b, eq + 1);
        }
    }
}

/* The summary RESULT line: workload=K with threads=, pfs= or slots= */
static const char *summary_line(GPtrArray *results)
{
    const char *found = NULL;
    guint i;

    for (i = 0; i < results->len; i++) {
        const char *l = g_ptr_array_index(results, i);

        if (g_str_has_prefix(l, "workload=") &&
            (strstr(l, " threads=") || strstr(l, " pfs=") ||
             strstr(l, " slots="))) {
            found = l;
        }
    }
    return found;
}

JsonNode *smmulab_record_run(const SmmulabBoot *pl, const SmmulabRun *r,
                             const char *log, const char *cmdline)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    const char *sum = summary_line(r->results);
    guint i;

    json_builder_begin_object(b);
    smmulab_json_add_string(b, "variant", pl->variant);
    if (pl->point) {
        smmulab_json_add_string(b, "point", pl->point);
    }
    smmulab_json_add_bool(b, "control", pl->control);
    smmulab_json_add_int(b, "index", pl->index);
    smmulab_json_add_int(b, "rep", pl->rep);
    {
        g_autofree char *seed = g_strdup_printf("%" G_GUINT64_FORMAT,
                                                pl->seed);

        smmulab_json_add_string(b, "seed", seed);
    }
    smmulab_json_add_string(b, "verdict", r->verdict);
    if (r->detail) {
        smmulab_json_add_string(b, "detail", r->detail);
    }
    json_builder_set_member_name(b, "wall_s");
    json_builder_add_double_value(b, r->wall_s);
    smmulab_json_add_string(b, "log", log);
    smmulab_json_add_string(b, "cmdline", cmdline);
    smmulab_json_add_string(b, "kernel_version", r->kernel_version);
    if (r->ran->cmdline) {
        g_autofree char *said = smmulab_ran_summary(r->ran);

        smmulab_json_add_string(b, "kernel_cmdline", r->ran->cmdline);
        /* what the kit printed that it runs, e.g. "arm_smmu_v3.cmdq_lock=fair; ..." */
        smmulab_json_add_string(b, "ran", said);
    }
    if (pl->kernel) {
        /* ("kernel" is the kit kernel's counters, below) */
        smmulab_json_add_string(b, "kernel_file", pl->kernel);
    }
    if (pl->initrd) {
        smmulab_json_add_string(b, "initrd", pl->initrd);
    }
    smmulab_json_add_int(b, "soft_lockups", r->soft_lockups);
    smmulab_json_add_int(b, "cmdq_timeouts", r->cmdq_timeouts);
    smmulab_json_add_int(b, "cmd_sync_timeouts", r->cmd_sync_timeouts);
    smmulab_json_add_bool(b, "timeouts_exact", r->timeouts_exact);
    smmulab_json_add_int(b, "cmdq_timeouts_printed", r->cmdq_timeouts_printed);
    smmulab_json_add_int(b, "cmd_sync_timeouts_printed",
                         r->cmd_sync_timeouts_printed);
    smmulab_json_add_int(b, "suppressed", r->suppressed);
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
        smmulab_json_add_string(b, "first_lockup", r->first_lockup);
    }
    if (r->first_lockup_fn) {
        smmulab_json_add_string(b, "first_lockup_fn", r->first_lockup_fn);
    }
    if (smmulab_lockups_count(r->lockups)) {
        json_builder_set_member_name(b, "cpus_at_lockups");
        smmulab_lockups_to_json(r->lockups, b);
    }
    smmulab_json_add_bool(b, "console_flood", r->flood);
    smmulab_json_add_int(b, "console_bytes", r->console_bytes);
    json_builder_set_member_name(b, "summary");
    json_builder_begin_object(b);
    if (sum) {
        add_pairs(b, sum, FALSE);
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
            add_pairs(b, l + 16, TRUE);
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
    if (r->lines) {
        json_builder_set_member_name(b, "lines");
        json_builder_add_value(b, json_node_copy(r->lines));
    }
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

/*
 * What a value of runs.json holds, as a small schema: s a string, n a
 * number, b true or false, z null, {X} an object of X, [X] an array of X,
 * (XY...) an array of exactly an X, a Y..., <key:X,key:X> an object whose
 * named members (each optional) are as said, X|Y either
 */
typedef struct Key {
    const char *key;
    const char *schema;
    gboolean needed;            /* else optional (older runs.json lack it) */
} Key;

/* Every key of a run and of the scenario the report reads, as written */
static const Key run_keys[] = {
    { "variant", "s", TRUE }, { "verdict", "s", TRUE },
    { "rep", "n", TRUE }, { "control", "b", TRUE },
    { "index", "n", FALSE }, { "point", "s", FALSE },
    { "seed", "s", FALSE }, { "detail", "s", FALSE },
    { "log", "s", TRUE }, { "cmdline", "s", FALSE },
    { "trace", "s", FALSE }, { "kernel_version", "s", FALSE },
    { "kernel_file", "s", FALSE }, { "initrd", "s", FALSE },
    { "kernel_cmdline", "s", FALSE }, { "ran", "s", FALSE },
    { "first_lockup", "s", FALSE },
    { "first_lockup_fn", "s", FALSE }, { "wall_s", "n", FALSE },
    { "soft_lockups", "n", FALSE }, { "cmdq_timeouts", "n", FALSE },
    { "cmd_sync_timeouts", "n", FALSE },
    { "cmdq_timeouts_printed", "n", FALSE },
    { "cmd_sync_timeouts_printed", "n", FALSE },
    { "suppressed", "n", FALSE }, { "console_bytes", "n", FALSE },
    { "console_flood", "b", FALSE }, { "timeouts_exact", "b", FALSE },
    { "kernel", "{n}", FALSE }, { "stats", "{n|b|{n}}", FALSE },
    { "summary", "{s}", FALSE }, { "lockup_cpus", "{n}", FALSE },
    { "cpus_at_lockups", "<lockups:n,all_cpus:n,resolved:s,places:{n},"
      "snapshots:[<t:n,stuck:n,cpus:[(nss)]>]>", FALSE },
    { "result_lines", "[s]", FALSE },
    { "lines", "<line_ns:n,transfers:n,stall_insns:n,stall_ns:n,waits:n,hottest:"
      "[<addr:s,data:s,pc:s,function:s,transfers:n,stall_insns:n>]>", FALSE },
    { "events", "[(ns)]", FALSE }, { "timeline", "[[n]]", FALSE },
};

static const Key scenario_keys[] = {
    { "name", "s", TRUE }, { "workload", "s", TRUE },
    { "repeat", "n", TRUE }, { "control", "b", TRUE },
    { "smmu", "s", TRUE }, { "machine", "s", TRUE },
    { "variants", "[<name:s,append:s,kernel:s,initrd:s>]", TRUE },
    { "file", "s", TRUE },
    { "description", "s", FALSE }, { "icount", "b", TRUE },
    { "cpus", "n", FALSE }, { "seed", "s", FALSE },
    { "design", "s", FALSE }, { "primary", "s", FALSE },
    { "baseline", "s", FALSE }, { "sweep_key", "s", FALSE },
    { "sweep_values", "[s]", FALSE }, { "append", "s", FALSE },
    { "quantum_ns", "n", FALSE }, { "line_ns", "n", FALSE },
};

/* The end of the one alternative (a letter or a bracketed group) at @s */
static const char *schema_alt_end(const char *s)
{
    int depth = 0;

    do {
        if (strchr("{[(<", *s)) {
            depth++;
        } else if (strchr("}])>", *s)) {
            depth--;
        }
        s++;
    } while (depth > 0 && *s);
    return s;
}

/* The end of the schema element at @s, its alternatives included */
static const char *schema_skip(const char *s)
{
    s = schema_alt_end(s);
    while (*s == '|') {
        s = schema_alt_end(s + 1);
    }
    return s;
}

static const char *kind_of(JsonNode *n)
{
    GType t;

    if (JSON_NODE_HOLDS_OBJECT(n)) {
        return "an object";
    } else if (JSON_NODE_HOLDS_ARRAY(n)) {
        return "an array";
    } else if (JSON_NODE_HOLDS_NULL(n)) {
        return "null";
    }
    t = json_node_get_value_type(n);
    return t == G_TYPE_STRING ? "a string" :
           t == G_TYPE_BOOLEAN ? "true or false" : "a number";
}

/* What the schema element at @s asks for, in words */
static void schema_words(GString *w, const char *s)
{
    const char *a = s;

    for (;;) {
        g_string_append_printf(w, "%s%s", a == s ? "" : " or ",
                               *a == 's' ? "a string" :
                               *a == 'n' ? "a number" :
                               *a == 'b' ? "true or false" :
                               *a == 'z' ? "null" :
                               *a == '{' || *a == '<' ? "an object" :
                               "an array");
        a = schema_alt_end(a);
        if (*a != '|') {
            return;
        }
        a++;
    }
}

static gboolean schema_check(JsonNode *n, const char *s, GString *path,
                             char **why);

/* One alternative at @s (no '|'): whether @n is of it */
static gboolean schema_one(JsonNode *n, const char *s, GString *path,
                           char **why)
{
    gsize at = path->len;
    guint i;

    switch (*s) {
    case 's':
    case 'n':
    case 'b':
        if (!JSON_NODE_HOLDS_VALUE(n)) {
            return FALSE;
        }
        if (*s == 's') {
            return json_node_get_value_type(n) == G_TYPE_STRING;
        } else if (*s == 'b') {
            return json_node_get_value_type(n) == G_TYPE_BOOLEAN;
        }
        return json_node_get_value_type(n) == G_TYPE_INT64 ||
               json_node_get_value_type(n) == G_TYPE_DOUBLE;
    case 'z':
        return JSON_NODE_HOLDS_NULL(n);
    case '{': {
        JsonObject *o;
        g_autoptr(GList) names = NULL;
        GList *l;

        if (!JSON_NODE_HOLDS_OBJECT(n)) {
            return FALSE;
        }
        o = json_node_get_object(n);
        names = json_object_get_members(o);
        for (l = names; l; l = l->next) {
            g_string_append_printf(path, ".%s", (char *)l->data);
            if (!schema_check(json_object_get_member(o, l->data), s + 1,
                              path, why)) {
                return TRUE;    /* *why names the member */
            }
            g_string_truncate(path, at);
        }
        return TRUE;
    }
    case '[':
    case '(': {
        JsonArray *a;
        const char *e = s + 1;
        guint len;

        if (!JSON_NODE_HOLDS_ARRAY(n)) {
            return FALSE;
        }
        a = json_node_get_array(n);
        len = json_array_get_length(a);
        for (i = 0; i < len; i++) {
            if (*s == '(' && *e == ')') {
                break;
            }
            g_string_append_printf(path, "[%u]", i);
            if (!schema_check(json_array_get_element(a, i), e, path, why)) {
                return TRUE;
            }
            g_string_truncate(path, at);
            if (*s == '(') {
                e = schema_skip(e);
            }
        }
        if (*s == '(' && (i < len || *e != ')')) {
            guint want = 0;

            for (e = s + 1; *e != ')'; e = schema_skip(e)) {
                want++;
            }
            *why = g_strdup_printf("%s has %u element(s), not %u", path->str,
                                   len, want);
        }
        return TRUE;
    }
    case '<': {
        JsonObject *o;
        const char *e = s + 1;

        if (!JSON_NODE_HOLDS_OBJECT(n)) {
            return FALSE;
        }
        o = json_node_get_object(n);
        while (*e != '>') {
            const char *colon = strchr(e, ':');
            g_autofree char *key = g_strndup(e, colon - e);
            JsonNode *m = json_object_get_member(o, key);

            if (m) {
                g_string_append_printf(path, ".%s", key);
                if (!schema_check(m, colon + 1, path, why)) {
                    return TRUE;
                }
                g_string_truncate(path, at);
            }
            e = schema_skip(colon + 1);
            e += *e == ',';
        }
        return TRUE;
    }
    }
    g_assert_not_reached();
}

/*
 * Whether @n is of the schema element at @s; FALSE with *why, one line
 * naming the value by its path, when it (or a value in it) is not
 */
static gboolean schema_check(JsonNode *n, const char *s, GString *path,
                             char **why)
{
    g_autoptr(GString) want = g_string_new(NULL);
    const char *a = s;

    for (;;) {
        if (schema_one(n, a, path, why)) {
            return *why == NULL;
        }
        a = schema_alt_end(a);
        if (*a != '|') {
            break;
        }
        a++;
    }
    schema_words(want, s);
    *why = g_strdup_printf("%s is %s, not %s", path->str, kind_of(n),
                           want->str);
    return FALSE;
}

/*
 * NULL when @o has every needed key and each key it has is of its kind;
 * else one line naming the first that is not by its path (@where.key...)
 */
static char *bad_keys(JsonObject *o, const Key *keys, guint n,
                      const char *where)
{
    guint k;

    for (k = 0; k < n; k++) {
        JsonNode *m = json_object_get_member(o, keys[k].key);
        g_autoptr(GString) path = g_string_new(NULL);
        char *why = NULL;

        g_string_printf(path, "%s.%s", where, keys[k].key);
        if (!m && keys[k].needed) {
            g_autoptr(GString) want = g_string_new(NULL);

            schema_words(want, keys[k].schema);
            return g_strdup_printf("%s is missing (%s)", path->str,
                                   want->str);
        }
        /* a null stands for "not known" (kernel_version of a silent run) */
        if (!m || (JSON_NODE_HOLDS_NULL(m) && !keys[k].needed)) {
            continue;
        }
        if (!schema_check(m, keys[k].schema, path, &why)) {
            return why;
        }
    }
    return NULL;
}

/*
 * Every value every reader of runs.json relies on, with its type: a
 * hand-edited file gets one line naming the value by its path
 * (runs[0].kernel.exclusive_trylock_failures), not a crash, a GLib
 * warning, or a value silently dropped from a verdict's n
 */
static gboolean runs_valid(JsonObject *root, const char *path, GError **err)
{
    JsonNode *scn = json_object_get_member(root, "scenario");
    JsonNode *rn = json_object_get_member(root, "runs");
    JsonNode *pn = json_object_get_member(root, "provenance");
    g_autofree char *why = NULL;
    JsonArray *runs, *vars;
    guint i;

    if (!JSON_NODE_HOLDS_OBJECT(scn) || !JSON_NODE_HOLDS_ARRAY(rn) ||
        (pn && !JSON_NODE_HOLDS_OBJECT(pn) && !JSON_NODE_HOLDS_NULL(pn))) {
        g_set_error(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    "%s: \"scenario\" or \"provenance\" is not an object, "
                    "or \"runs\" not an array", path);
        return FALSE;
    }
    why = bad_keys(json_node_get_object(scn), scenario_keys,
                   G_N_ELEMENTS(scenario_keys), "scenario");
    if (!why && pn && JSON_NODE_HOLDS_OBJECT(pn)) {
        g_autoptr(GString) p = g_string_new("provenance");

        schema_check(pn, "{s|n|z|{s|z}}", p, &why);
    }
    if (why) {
        g_set_error(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", path,
                    why);
        return FALSE;
    }
    vars = json_object_get_array_member(json_node_get_object(scn),
                                        "variants");
    for (i = 0; i < json_array_get_length(vars); i++) {
        JsonNode *v = json_array_get_element(vars, i);

        if (!json_object_has_member(json_node_get_object(v), "name")) {
            g_set_error(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                        "%s: scenario.variants[%u].name is missing (a "
                        "string)", path, i);
            return FALSE;
        }
    }
    if (!json_array_get_length(vars)) {
        g_set_error(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    "%s: the scenario lists no \"variants\"", path);
        return FALSE;
    }
    runs = json_node_get_array(rn);
    if (!json_array_get_length(runs)) {
        g_set_error(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                    "%s: \"runs\" is empty: no run to report", path);
        return FALSE;
    }
    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonNode *r = json_array_get_element(runs, i);
        g_autofree char *where = g_strdup_printf("runs[%u]", i);

        if (!JSON_NODE_HOLDS_OBJECT(r)) {
            g_set_error(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                        "%s: %s is %s, not an object", path, where,
                        kind_of(r));
            return FALSE;
        }
        why = bad_keys(json_node_get_object(r), run_keys,
                       G_N_ELEMENTS(run_keys), where);
        if (why) {
            g_set_error(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                        "%s: %s", path, why);
            return FALSE;
        }
    }
    return TRUE;
}

JsonNode *smmulab_runs_load(const char *dir, GError **err)
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
    if (!runs_valid(json_node_get_object(root), path, err)) {
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

gboolean smmulab_record_save(const char *dir, JsonNode *scenario,
                             JsonNode *provenance, JsonArray *runs,
                             GError **err)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonGenerator) gen = json_generator_new();
    g_autoptr(JsonNode) root = NULL;
    g_autofree char *path = g_build_filename(dir, "runs.json", NULL);
    g_autofree char *text = NULL;
    g_autoptr(GPtrArray) sorted = g_ptr_array_new();
    guint i;

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "scenario");
    json_builder_add_value(b, json_node_copy(scenario));
    json_builder_set_member_name(b, "provenance");
    json_builder_add_value(b, json_node_copy(provenance));
    /* in plan order, however they came (a resumed run, merged shards) */
    for (i = 0; i < json_array_get_length(runs); i++) {
        g_ptr_array_add(sorted, json_array_get_element(runs, i));
    }
    g_ptr_array_sort(sorted, by_index);
    json_builder_set_member_name(b, "runs");
    json_builder_begin_array(b);
    for (i = 0; i < sorted->len; i++) {
        json_builder_add_value(b, json_node_copy(sorted->pdata[i]));
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    root = json_builder_get_root(b);
    json_generator_set_root(gen, root);
    json_generator_set_pretty(gen, TRUE);
    text = json_generator_to_data(gen, NULL);
    return g_file_set_contents(path, text, -1, err);
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
 * one output directory, in plan order, with their logs
 */
/*
 * How many boots the plan of the recorded scenario @sc has (as
 * smmulab_plan_make() numbers them): at each point every variant REPEAT
 * times, then the controls, one a variant, at each point when a sweep
 * changes the machine or workload
 */
static guint planned_boots(JsonObject *sc)
{
    guint nv = json_array_get_length(json_object_get_array_member(sc,
                                                                  "variants"));
    JsonArray *pts = json_object_has_member(sc, "sweep_values") ?
        json_object_get_array_member(sc, "sweep_values") : NULL;
    const char *key = json_object_get_string_member_with_default(sc,
        "sweep_key", NULL);
    guint np = pts ? MAX(json_array_get_length(pts), 1) : 1;
    guint n = np * nv * json_object_get_int_member(sc, "repeat");

    if (json_object_get_boolean_member(sc, "control")) {
        n += nv * (key && !g_str_has_prefix(key, "smmu.") ? np : 1);
    }
    return n;
}

/* "2, 4-6" */
static char *index_list(GHashTable *seen, guint total, guint *missing)
{
    GString *s = g_string_new(NULL);
    guint k, from = 0;

    *missing = 0;
    for (k = 1; k <= total + 1; k++) {
        gboolean gap = k <= total &&
                       !g_hash_table_contains(seen, GUINT_TO_POINTER(k));

        if (gap) {
            (*missing)++;
            if (!from) {
                from = k;
            }
        } else if (from) {
            g_string_append_printf(s, "%s%u", s->len ? ", " : "", from);
            if (k - 1 > from) {
                g_string_append_printf(s, "-%u", k - 1);
            }
            from = 0;
        }
    }
    return g_string_free(s, FALSE);
}

int smmulab_record_merge(char **dirs, int n, const char *out,
                         gboolean partial)
{
    g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(
        (GDestroyNotify)json_node_unref);
    g_autoptr(JsonNode) first = NULL;
    g_autoptr(JsonGenerator) gen = json_generator_new();
    g_autofree char *sc_text = NULL;
    g_autoptr(JsonArray) runs = json_array_new();
    g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash,
                                                  g_direct_equal);
    g_autoptr(GPtrArray) from = g_ptr_array_new();  /* each run's shard */
    g_autoptr(GError) err = NULL;
    g_autoptr(GPtrArray) docs = g_ptr_array_new_with_free_func(
        (GDestroyNotify)json_node_unref);
    g_autoptr(GDir) od = g_dir_open(out, 0, NULL);
    JsonObject *root0;
    int d;
    guint i;

    /* never over a result, and nothing written before every shard is read */
    if (g_file_test(out, G_FILE_TEST_EXISTS) &&
        !g_file_test(out, G_FILE_TEST_IS_DIR)) {
        fprintf(stderr, "smmulab-run: --out %s: not a directory: merge into "
                "a new or empty one\n", out);
        return 2;
    }
    if (od && g_dir_read_name(od)) {
        fprintf(stderr, "smmulab-run: --out %s: the directory holds files "
                "already (a result?): merge into a new or empty one\n", out);
        return 2;
    }
    for (d = 0; d < n; d++) {
        JsonNode *doc;

        if (!g_file_test(dirs[d], G_FILE_TEST_IS_DIR)) {
            fprintf(stderr, "smmulab-run: merge %s: no such directory\n",
                    dirs[d]);
            return 2;
        }
        doc = smmulab_runs_load(dirs[d], &err);
        if (!doc) {
            fprintf(stderr, "smmulab-run: %s\n", err->message);
            return 1;
        }
        g_ptr_array_add(docs, doc);
    }
    for (d = 0; d < n; d++) {
        JsonNode *doc = g_ptr_array_index(docs, d);
        g_autofree char *this_sc = NULL;
        JsonArray *r;

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

            if (k <= 0 || g_hash_table_contains(seen, GINT_TO_POINTER(k))) {
                fprintf(stderr, "smmulab-run: %s: run %u has %s plan index "
                        "%" G_GINT64_FORMAT "\n", dirs[d], i + 1,
                        k <= 0 ? "no" : "an already merged", k);
                return 2;
            }
            g_hash_table_add(seen, GINT_TO_POINTER(k));
            g_ptr_array_add(all, json_node_copy(run));
            g_ptr_array_add(from, dirs[d]);
        }
    }
    {
        guint total = planned_boots(json_object_get_object_member(
            json_node_get_object(first), "scenario"));
        guint missing;
        g_autofree char *gaps = index_list(seen, total, &missing);

        if (missing && !partial) {
            g_autofree char *where = n == 1 ? g_strdup_printf("not in %s",
                dirs[0]) : g_strdup_printf("in none of the %d directories",
                                           n);

            fprintf(stderr, "smmulab-run: merge: boot(s) %s of the plan's "
                    "%u are %s (a shard missing?): merge every shard, or "
                    "add --partial for a report of the %u there are\n",
                    gaps, total, where, total - missing);
            return 2;
        }
        if (missing) {
            fprintf(stderr, "smmulab-run: merge --partial: %u of the plan's "
                    "%u boots, without %s\n", total - missing, total, gaps);
        }
    }
    /* every shard agrees: now the output */
    if (g_mkdir_with_parents(out, 0755)) {
        fprintf(stderr, "smmulab-run: cannot create %s: %s\n", out,
                g_strerror(errno));
        return 1;
    }
    for (i = 0; i < all->len; i++) {
        JsonObject *o = json_node_get_object(all->pdata[i]);
        const char *files[] = {
            json_object_get_string_member_with_default(o, "log", NULL),
            json_object_get_string_member_with_default(o, "cmdline", NULL),
        };
        guint f;

        for (f = 0; f < G_N_ELEMENTS(files); f++) {
            if (files[f] && !strchr(files[f], '/') &&
                !copy_into(from->pdata[i], files[f], out, &err)) {
                fprintf(stderr, "smmulab-run: %s\n", err->message);
                return 1;
            }
        }
    }
    for (i = 0; i < all->len; i++) {
        json_array_add_element(runs, json_node_copy(all->pdata[i]));
    }
    root0 = json_node_get_object(first);
    if (!smmulab_record_save(out, json_object_get_member(root0, "scenario"),
                   json_object_get_member(root0, "provenance"), runs, &err)) {
        fprintf(stderr, "smmulab-run: %s\n", err->message);
        return 1;
    }
    return 0;
}
