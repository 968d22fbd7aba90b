/*
 * smmulab: report.html, a page a person reads, made from report.json: the
 * primary verdict first and coloured, the exploratory lines below it, the
 * figures as real tables (rows that are zero in every column folded away),
 * the evidence of every run with a lockup or timeout collapsible, then the
 * drawings and a timeline per run.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>

#include "abtest.h"
#include "lockup.h"
#include "report-internal.h"

static const char style[] =
    "body{font-family:sans-serif;margin:1.5em;max-width:84em;color:#222}"
    "table{border-collapse:collapse;margin:.5em 0 1em}"
    "th,td{border:1px solid #ccc;padding:.25em .6em;font-size:13px}"
    "th{background:#f0f0f0;text-align:left}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "td.range{color:#666;font-size:11px;text-align:right}"
    ".primary{border-left:.5em solid;padding:.6em 1em;margin:.6em 0}"
    ".primary.differs{border-color:#c62828;background:#fdecea}"
    ".primary.same{border-color:#607d8b;background:#eceff1}"
    ".primary .verdict{font-weight:bold;font-size:1.1em}"
    ".primary .power{color:#444;margin-top:.3em}"
    ".unreliable{background:#fff3cd;border:1px solid #e0a800;padding:.5em}"
    "tr.signal td{background:#fff8e1}"
    "ul.facts{font-size:13px;color:#333}"
    "details{margin:.4em 0}summary{cursor:pointer}"
    "pre{font-size:12px;overflow-x:auto;background:#f7f7f7;padding:.6em}"
    ".run{margin:1em 0}.legend span{margin-right:1.5em}";

static void esc(GString *h, const char *s)
{
    g_autofree char *e = g_markup_escape_text(s ? s : "", -1);

    g_string_append(h, e);
}

static const char *str(JsonObject *o, const char *key)
{
    return json_object_get_string_member_with_default(o, key, "");
}

/* Each variant: the parameters asked for, and what the kernel said it ran */
static void variants_section(GString *h, JsonObject *report)
{
    JsonArray *vars = json_object_get_array_member(report, "variants");
    JsonObject *sc = json_object_get_object_member(report, "scenario");
    guint i, j;

    if (!vars || !json_array_get_length(vars)) {
        return;
    }
    g_string_append(h, "<h2>Variants</h2>\n<table class=\"variants\">\n"
                    "<tr><th>variant</th><th>kernel parameters asked</th>"
                    "<th>what the kernel said it ran</th></tr>\n");
    for (i = 0; i < json_array_get_length(vars); i++) {
        JsonObject *v = json_array_get_object_element(vars, i);
        JsonArray *ran = json_object_get_array_member(v, "ran");
        g_autofree char *asked = g_strjoin(" ", str(sc, "append"),
                                           str(v, "append"), NULL);

        g_string_append(h, "<tr><td>");
        esc(h, str(v, "name"));
        g_string_append(h, "</td><td><code>");
        esc(h, *g_strstrip(asked) ? asked : "(the kernel's defaults)");
        g_string_append(h, "</code></td><td>");
        for (j = 0; ran && j < json_array_get_length(ran); j++) {
            JsonObject *x = json_array_get_object_element(ran, j);
            g_autofree char *n = g_strdup_printf(" (%" G_GINT64_FORMAT
                                                 " run(s))",
                json_object_get_int_member(x, "runs"));

            g_string_append(h, j ? "<br><code>" : "<code>");
            esc(h, str(x, "said"));
            g_string_append(h, "</code>");
            esc(h, n);
        }
        if (!ran || !json_array_get_length(ran)) {
            g_string_append(h, "no variant line printed");
        }
        g_string_append(h, "</td></tr>\n");
    }
    g_string_append(h, "</table>\n");
}

static void primary_section(GString *h, JsonObject *report,
                            JsonArray *verdicts, const char *primary)
{
    guint i, shown = 0;

    g_string_append(h, "<h2>Primary endpoint</h2>\n");
    if (json_object_has_member(report, "reliable") &&
        !json_object_get_null_member(report, "reliable") &&
        !json_object_get_boolean_member(report, "reliable")) {
        g_string_append(h, "<p class=\"unreliable\"><b>The control is "
                        "UNRELIABLE</b> (fast hardware stalled too: ");
        esc(h, str(report, "control_problems"));
        g_string_append(h, "): do not blame a variant for what follows.</p>"
                        "\n");
    }
    if (!primary) {
        g_string_append(h, "<p class=\"primary same\">None declared "
                        "(<code>primary=</code> in [scenario]): no line of "
                        "this report is a verdict.</p>\n");
        return;
    }
    for (i = 0; i < json_array_get_length(verdicts); i++) {
        JsonObject *v = json_array_get_object_element(verdicts, i);
        gboolean differs = json_object_get_boolean_member(v, "differs");

        if (!json_object_get_boolean_member(v, "primary")) {
            continue;
        }
        shown++;
        g_string_append_printf(h, "<div class=\"primary %s\">\n"
                               "<div class=\"verdict\">",
                               differs ? "differs" : "same");
        esc(h, differs ? "DIFFERENT" : "no significant difference");
        if (differs && strstr(str(v, "text"), "UNRELIABLE")) {
            esc(h, " (control UNRELIABLE)");
        }
        g_string_append(h, "</div>\n<div class=\"line\">");
        esc(h, str(v, "text"));
        g_string_append(h, "</div>\n<div class=\"power\">power: ");
        esc(h, str(v, "power_text"));
        g_string_append(h, "</div>\n</div>\n");
    }
    if (!shown) {
        g_string_append(h, "<p class=\"primary same\">No run gave a value of "
                        "the primary endpoint.</p>\n");
    }
}

static void exploratory_section(GString *h, JsonArray *verdicts)
{
    guint i, n = 0;

    for (i = 0; i < json_array_get_length(verdicts); i++) {
        n += !json_object_get_boolean_member(
            json_array_get_object_element(verdicts, i), "primary");
    }
    if (!n) {
        return;
    }
    g_string_append_printf(h, "<h2>Exploratory lines</h2>\n<p>p adjusted by "
                           "Holm over these %u lines: hints for a scenario "
                           "of their own, never a verdict.</p>\n<table "
                           "class=\"exploratory\">\n<tr><th>point</th>"
                           "<th>comparison</th><th>what</th><th>p</th>"
                           "<th>Holm p</th></tr>\n", n);
    for (i = 0; i < json_array_get_length(verdicts); i++) {
        JsonObject *v = json_array_get_object_element(verdicts, i);
        g_autofree char *p = NULL, *q = NULL;
        const char *text = str(v, "text"), *what = strstr(text, ": ");

        if (json_object_get_boolean_member(v, "primary")) {
            continue;
        }
        p = smmulab_format_p(json_object_get_double_member(v, "p"),
                             SMMULAB_ALPHA);
        q = smmulab_format_p(json_object_get_double_member(v, "p_holm"),
                             SMMULAB_ALPHA);
        g_string_append_printf(h, "<tr%s><td>",
                               json_object_get_boolean_member_with_default(
                                   v, "signal", FALSE) ?
                               " class=\"signal\"" : "");
        esc(h, str(v, "point"));
        g_string_append(h, "</td><td>");
        esc(h, str(v, "variant"));
        g_string_append(h, " vs ");
        esc(h, str(v, "baseline"));
        g_string_append(h, "</td><td>");
        esc(h, what ? what + 2 : text);
        g_string_append_printf(h, "</td><td class=\"num\">%s</td>"
                               "<td class=\"num\">%s</td></tr>\n", p, q);
    }
    g_string_append(h, "</table>\n");
}

/* A cell's value is zero (or absent) */
static gboolean cell_zero(JsonObject *c)
{
    if (!json_object_get_int_member_with_default(c, "n", 0)) {
        return TRUE;
    }
    return json_object_get_double_member(c, "min") == 0 &&
           json_object_get_double_member(c, "max") == 0;
}

static void value_cells(GString *h, JsonObject *c, int decimals)
{
    g_autofree char *mean = NULL, *lo = NULL, *hi = NULL;

    if (!json_object_get_int_member_with_default(c, "n", 0)) {
        g_string_append(h, "<td class=\"num\">-</td><td class=\"range\">"
                        "</td>");
        return;
    }
    if (json_object_has_member(c, "total")) {
        g_string_append_printf(h, "<td class=\"num\">%.*f</td><td class=\""
                               "range\">%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT
                               " runs</td>", decimals,
                               json_object_get_double_member(c, "total"),
                               json_object_get_int_member(c, "runs_with"),
                               json_object_get_int_member(c, "n"));
        return;
    }
    mean = report_fmt_mean(json_object_get_double_member(c, "mean"),
                           decimals);
    lo = report_fmt(json_object_get_double_member(c, "min"), decimals);
    hi = report_fmt(json_object_get_double_member(c, "max"), decimals);
    if (json_object_get_int_member(c, "n") > 1) {
        g_string_append_printf(h, "<td class=\"num\">%s</td>"
                               "<td class=\"range\">%s..%s</td>", mean, lo,
                               hi);
    } else {
        g_string_append_printf(h, "<td class=\"num\">%s</td>"
                               "<td class=\"range\"></td>", mean);
    }
}

/* The figures of one point (or of the whole scenario) as a table */
static void figures_table(GString *h, JsonObject *report, JsonArray *cols,
                          const char *point)
{
    JsonArray *rows = json_object_get_array_member(report, "table");
    const char *kind = str(json_object_get_object_member(report, "scenario"),
                           "workload");
    g_autoptr(GString) zero = g_string_new(NULL);
    GString *body = g_string_new(NULL);
    guint i, c, nzero = 0;

    for (i = 0; i < json_array_get_length(rows); i++) {
        JsonObject *row = json_array_get_object_element(rows, i);
        JsonObject *vals = json_object_get_object_member(row, "values");
        const Metric *m = report_find_metric(kind, str(row, "metric"));
        gboolean all_zero = TRUE, any = FALSE;
        GString *to;

        if (g_strcmp0(point, json_object_get_string_member_with_default(
                          row, "point", NULL))) {
            continue;
        }
        for (c = 0; c < json_array_get_length(cols); c++) {
            JsonObject *cell = json_object_get_object_member(
                vals, json_array_get_string_element(cols, c));

            all_zero &= cell_zero(cell);
            any |= json_object_get_int_member_with_default(cell, "n", 0) > 0;
        }
        if (!any) {
            continue;
        }
        to = all_zero ? zero : body;
        nzero += all_zero;
        g_string_append(to, "<tr><th>");
        esc(to, str(row, "label"));
        g_string_append(to, "</th>");
        for (c = 0; c < json_array_get_length(cols); c++) {
            value_cells(to, json_object_get_object_member(
                vals, json_array_get_string_element(cols, c)),
                m ? m->decimals : 1);
        }
        g_string_append(to, "</tr>\n");
    }
    g_string_append(h, "<table class=\"metrics\">\n<tr><th></th>");
    for (c = 0; c < json_array_get_length(cols); c++) {
        g_string_append(h, "<th colspan=\"2\">");
        esc(h, json_array_get_string_element(cols, c));
        g_string_append(h, "</th>");
    }
    g_string_append(h, "</tr>\n");
    g_string_append(h, body->str);
    g_string_append(h, "</table>\n");
    g_string_free(body, TRUE);
    if (nzero) {
        g_string_append_printf(h, "<details class=\"zero-rows\"><summary>%u "
                               "row(s) zero in every column</summary>\n"
                               "<table class=\"metrics\">\n", nzero);
        g_string_append(h, zero->str);
        g_string_append(h, "</table>\n</details>\n");
    }
}

/* report.json's "cpus_at_lockups": where the CPUs were, per variant */
static void places_section(GString *h, JsonObject *report)
{
    JsonArray *a;
    guint i, j;

    if (!json_object_has_member(report, "cpus_at_lockups")) {
        return;
    }
    a = json_object_get_array_member(report, "cpus_at_lockups");
    g_string_append(h, "<h2>CPUs at the soft lockups</h2>\n<p>Summed per "
                    "variant: the stuck CPU of each lockup, and every other "
                    "CPU where the guest printed all backtraces "
                    "(<code>all_cpu_backtrace=on</code>).</p>\n"
                    "<table class=\"places\">\n<tr><th>variant</th>"
                    "<th>lockups</th><th>with every CPU</th>");
    for (j = 0; j < SMMULAB_PLACE_COUNT; j++) {
        g_string_append(h, "<th>");
        esc(h, smmulab_place_names[j]);
        g_string_append(h, "</th>");
    }
    g_string_append(h, "</tr>\n");
    for (i = 0; i < json_array_get_length(a); i++) {
        JsonObject *v = json_array_get_object_element(a, i);
        JsonObject *pl = json_object_get_object_member(v, "places");

        g_string_append(h, "<tr><td>");
        esc(h, str(v, "variant"));
        g_string_append_printf(h, "</td><td>%" G_GINT64_FORMAT "</td><td>%"
                               G_GINT64_FORMAT "</td>",
                               json_object_get_int_member(v, "lockups"),
                               json_object_get_int_member(v, "all_cpus"));
        for (j = 0; j < SMMULAB_PLACE_COUNT; j++) {
            g_string_append_printf(h, "<td>%" G_GINT64_FORMAT "</td>",
                json_object_get_int_member_with_default(pl,
                    smmulab_place_names[j], 0));
        }
        g_string_append(h, "</tr>\n");
    }
    g_string_append(h, "</table>\n");
}

static void evidence_section(GString *h, JsonArray *runs)
{
    guint i, shown = 0;

    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);
        gint64 sl = json_object_get_int_member_with_default(r, "soft_lockups",
                                                            0);
        gint64 to = json_object_get_int_member_with_default(r, "cmdq_timeouts",
                                                            0) +
            json_object_get_int_member_with_default(r, "cmd_sync_timeouts", 0);
        const char *pt = str(r, "point");
        g_autofree char *head = NULL;

        if (!sl && !to) {
            continue;
        }
        if (!shown++) {
            g_string_append(h, "<h2>Evidence</h2>\n<p>Every run with a soft "
                            "lockup or timeout.</p>\n");
        }
        head = g_strdup_printf("%s%s%s%s rep %" G_GINT64_FORMAT ": %"
                               G_GINT64_FORMAT " soft lockup(s), %"
                               G_GINT64_FORMAT " timeout(s)",
                               json_object_get_boolean_member(r, "control") ?
                               "control:" : "", str(r, "variant"),
                               pt[0] ? " at " : "", pt,
                               json_object_get_int_member(r, "rep"), sl, to);
        g_string_append(h, "<details class=\"evidence\"><summary>");
        esc(h, head);
        g_string_append(h, "</summary>\n<pre>");
        if (json_object_has_member(r, "first_lockup")) {
            esc(h, "first: ");
            esc(h, str(r, "first_lockup"));
            if (json_object_has_member(r, "first_lockup_fn")) {
                esc(h, " in ");
                esc(h, str(r, "first_lockup_fn"));
            }
            g_string_append_c(h, '\n');
        }
        if (json_object_has_member(r, "cpus_at_lockups")) {
            g_autoptr(GString) p = g_string_new(NULL);

            smmulab_lockups_text(json_object_get_object_member(r,
                                     "cpus_at_lockups"), p, "", 8);
            esc(h, p->str);
        }
        g_string_append(h, "</pre><a href=\"");
        esc(h, str(r, "log"));
        g_string_append(h, "\">console log</a></details>\n");
    }
}

char *report_html(JsonObject *report, JsonArray *runs, const char *svg,
                  const char *cdf)
{
    JsonObject *sc = json_object_get_object_member(report, "scenario");
    JsonArray *verdicts = json_object_get_array_member(report, "verdicts");
    JsonArray *cols = json_object_get_array_member(report, "columns");
    JsonArray *points = json_object_has_member(sc, "sweep_values") ?
        json_object_get_array_member(sc, "sweep_values") : NULL;
    JsonArray *facts = json_object_get_array_member(report, "header");
    const char *primary = json_object_get_string_member_with_default(
        report, "primary", NULL);
    GString *h = g_string_new(NULL);
    g_autofree char *title = g_markup_escape_text(str(sc, "name"), -1);
    guint i;

    g_string_append_printf(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
        "<meta charset=\"utf-8\">\n<title>smmulab report: %s</title>\n"
        "<style>%s</style>\n</head>\n<body>\n<h1>smmulab report: %s</h1>\n",
        title, style, title);
    if (json_object_has_member(sc, "description")) {
        g_string_append(h, "<p>");
        esc(h, str(sc, "description"));
        g_string_append(h, "</p>\n");
    }
    primary_section(h, report, verdicts, primary);
    exploratory_section(h, verdicts);
    variants_section(h, report);
    g_string_append(h, "<h2>Figures</h2>\n");
    if (points && json_array_get_length(points)) {
        for (i = 0; i < json_array_get_length(points); i++) {
            const char *pt = json_array_get_string_element(points, i);

            g_string_append(h, "<h3>");
            esc(h, str(sc, "sweep_key"));
            g_string_append(h, "=");
            esc(h, pt);
            g_string_append(h, "</h3>\n");
            figures_table(h, report, cols, pt);
        }
    } else {
        figures_table(h, report, cols, NULL);
    }
    evidence_section(h, runs);
    places_section(h, report);
    g_string_append(h, "<h2>How it ran</h2>\n<ul class=\"facts\">\n");
    for (i = 0; facts && i < json_array_get_length(facts); i++) {
        g_string_append(h, "<li>");
        esc(h, json_array_get_string_element(facts, i));
        g_string_append(h, "</li>\n");
    }
    g_string_append(h, "</ul>\n<h2>Chart</h2>\n");
    g_string_append(h, svg);
    if (cdf) {
        g_string_append(h, "<h2>Latency distribution</h2>\n");
        g_string_append(h, cdf);
    }
    g_string_append(h, "<h2>Every run over time</h2>\n<p class=\"legend\">"
        "<span style=\"color:#1f77b4\">&#9644; commands pending (model, "
        "each second)</span><span style=\"color:#2ca02c\">&#9646; PROD "
        "writes that filled the queue</span><span style=\"color:#d62728\">"
        "| soft lockup</span><span style=\"color:#ff7f0e\">| CMDQ timeout"
        "</span><span style=\"color:#9467bd\">| CMD_SYNC timeout</span></p>\n");
    for (i = 0; i < json_array_get_length(runs); i++) {
        JsonObject *r = json_array_get_object_element(runs, i);
        const char *pt = json_object_get_string_member_with_default(r, "point",
                                                                    "");
        g_autofree char *head = g_markup_printf_escaped(
            "%s%s%s%s rep %" G_GINT64_FORMAT ": %s",
            json_object_get_boolean_member(r, "control") ? "control:" : "",
            json_object_get_string_member(r, "variant"), pt[0] ? " at " : "",
            pt, json_object_get_int_member(r, "rep"),
            json_object_get_string_member(r, "verdict"));
        g_autofree char *links = g_markup_printf_escaped(
            "<a href=\"%s\">console log</a> &middot; "
            "<a href=\"%s\">QEMU command line</a>",
            json_object_get_string_member_with_default(r, "log", ""),
            json_object_get_string_member_with_default(r, "cmdline", ""));
        g_autofree char *trace = !json_object_has_member(r, "trace") ?
            g_strdup("") : g_markup_printf_escaped(
            " &middot; <a class=\"trace\" href=\"%s\">timeline for "
            "ui.perfetto.dev</a> (open the file there)",
            json_object_get_string_member(r, "trace"));

        g_string_append_printf(h, "<div class=\"run\">\n<h3>%s</h3>\n", head);
        report_timeline_svg(h, r);
        g_string_append_printf(h, "<p>%s%s</p>\n</div>\n", links, trace);
    }
    /* The browser marks each drawing it laid out (tests read the DOM) */
    g_string_append(h, "<script>\n"
        "for (const s of document.querySelectorAll('svg')) {\n"
        "  const b = s.getBBox();\n"
        "  if (b.width > 0 && b.height > 0) s.setAttribute('data-drawn', 'yes');\n"
        "}\n"
        "for (const p of document.querySelectorAll('.primary'))\n"
        "  p.setAttribute('data-bg', getComputedStyle(p).backgroundColor);\n"
        "</script>\n");
    g_string_append(h, "</body>\n</html>\n");
    return g_string_free(h, FALSE);
}

