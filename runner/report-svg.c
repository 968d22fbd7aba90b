/*
 * smmulab: the report's drawings (SVG): the chart of the main figures, the
 * latency distribution, and a timeline per run
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>

#include "abtest.h"
#include "report-internal.h"
#include "smmulab_bench.h"

const char *const report_palette[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f",
};

static void svg_text(GString *s, double x, double y, const char *anchor,
                     int size, const char *text)
{
    g_autofree char *esc = g_markup_escape_text(text, -1);

    g_string_append_printf(s, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" "
                           "text-anchor=\"%s\">%s</text>\n", x, y, size,
                           anchor, esc);
}

static double axis_max(double v)
{
    double p = pow(10, floor(log10(v > 0 ? v : 1)));
    double m[] = { 1, 2, 2.5, 5, 10 };
    int i;

    for (i = 0; i < 5; i++) {
        if (v <= m[i] * p) {
            return m[i] * p;
        }
    }
    return 10 * p;
}

/* The range of @m over the counting runs of @c at @point: FALSE if < 2 */
static gboolean spread(JsonArray *runs, const Metric *m, const Column *c,
                       const char *point, double *lo, double *hi)
{
    g_autoptr(GArray) v = report_values_of(runs, m, c, point);
    SmmulabSummary s;

    smmulab_summarize((double *)v->data, v->len, &s);
    *lo = s.min;
    *hi = s.max;
    return s.n > 1 && s.min < s.max;
}

/* A variant's colour, the same for its control */
const char *report_variant_color(GPtrArray *cols, const Column *col)
{
    guint c, k = 0;

    for (c = 0; c < cols->len; c++) {
        const Column *o = g_ptr_array_index(cols, c);

        if (!o->control) {
            if (!strcmp(o->variant, col->variant)) {
                return report_palette[k % REPORT_PALETTE_LEN];
            }
            k++;
        }
    }
    return report_palette[k % REPORT_PALETTE_LEN];
}

/* A vertical min..max bar with caps, between y1 and y2, at x */
static void error_bar(GString *s, double x, double y1, double y2)
{
    g_string_append_printf(s, "<path class=\"range\" d=\"M%.1f %.1fV%.1f"
                           "M%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"black\" "
                           "stroke-width=\"1\" fill=\"none\"/>\n",
                           x, y1, y2, x - 3, y1, x + 3, x - 3, y2, x + 3);
}

/*
 * The chart's size, and its plot area: left and top edges, width and
 * height (margins of 20 on the right, 90 below for the labels and legend)
 */
#define CHART_W 760.0
#define CHART_H 420.0
#define PLOT_L 80.0
#define PLOT_T 50.0
#define PLOT_W (CHART_W - PLOT_L - 20.0)
#define PLOT_H (CHART_H - PLOT_T - 90.0)

/* A legend's square, filled with @color */
static void legend_box(GString *s, double x, const char *color,
                       gboolean pale)
{
    g_string_append_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
                           "height=\"12\" fill=\"%s\"%s/>\n",
                           x, CHART_H - 28, color,
                           pale ? " fill-opacity=\"0.45\"" : "");
}

/* A horizontal grid line at @y, labelled @lab on the left */
static void grid_line(GString *s, double y, const char *lab)
{
    g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"#ddd\"/>\n", PLOT_L, y,
                           PLOT_L + PLOT_W, y);
    svg_text(s, PLOT_L - 6, y + 4, "end", 11, lab);
}

/* The top of a sweep's axis: the largest mean or run of any column */
static double sweep_max(JsonArray *runs, GPtrArray *cols, const Metric *m,
                        JsonArray *points)
{
    guint np = json_array_get_length(points), c, p;
    double vmax = 0;

    for (c = 0; c < cols->len; c++) {
        Column *col = g_ptr_array_index(cols, c);

        for (p = 0; p < np; p++) {
            const char *pt = json_array_get_string_element(points, p);
            double v = report_aggregate(runs, m, col, pt, NULL), lo, hi;

            if (!isnan(v)) {
                vmax = MAX(vmax, v);
            }
            if (spread(runs, m, col, pt, &lo, &hi)) {
                vmax = MAX(vmax, hi);
            }
        }
    }
    return axis_max(vmax);
}

/* A sweep's title and axes: the metric up to @vmax over the points */
static void sweep_axes(GString *s, JsonObject *sc, const Metric *m,
                       JsonArray *points, double vmax)
{
    guint np = json_array_get_length(points), p;
    g_autofree char *title = NULL;
    int i;

    title = g_strdup_printf("%s: %s by %s",
                            json_object_get_string_member(sc, "name"),
                            m->label,
                            json_object_get_string_member(sc, "sweep_key"));
    svg_text(s, CHART_W / 2, 28, "middle", 16, title);
    for (i = 0; i <= 5; i++) {
        double y = PLOT_T + PLOT_H - PLOT_H * i / 5;
        g_autofree char *lab = report_fmt(vmax * i / 5, vmax >= 50 ? 0 : 1);

        grid_line(s, y, lab);
    }
    for (p = 0; p < np; p++) {
        double x = PLOT_L + PLOT_W * (p + 0.5) / np;

        svg_text(s, x, PLOT_T + PLOT_H + 18, "middle", 11,
                 json_array_get_string_element(points, p));
    }
    svg_text(s, PLOT_L + PLOT_W / 2, PLOT_T + PLOT_H + 38, "middle", 12,
             json_object_get_string_member(sc, "sweep_key"));
    g_string_append_printf(s, "<text x=\"16\" y=\"%.1f\" font-size=\"11\" "
                           "text-anchor=\"middle\" transform=\"rotate(-90 16 "
                           "%.1f)\">%s</text>\n", PLOT_T + PLOT_H / 2,
                           PLOT_T + PLOT_H / 2, m->label);
}

/*
 * One column's line over a sweep's points, with its legend entry number
 * @nv: variants solid, their controls dashed and paler; bars: min..max
 */
static void sweep_line(GString *s, JsonArray *runs, GPtrArray *cols,
                       const Column *col, const Metric *m,
                       JsonArray *points, double vmax, guint nv)
{
    guint np = json_array_get_length(points), p;
    const char *color = report_variant_color(cols, col);
    g_autoptr(GString) path = g_string_new(NULL);
    double lx = PLOT_L + 10 + (PLOT_W - 10) * nv / cols->len;

    for (p = 0; p < np; p++) {
        const char *pt = json_array_get_string_element(points, p);
        double v = report_aggregate(runs, m, col, pt, NULL);
        double x = PLOT_L + PLOT_W * (p + 0.5) / np, y, lo, hi;

        if (isnan(v)) {
            continue;
        }
        y = PLOT_T + PLOT_H - PLOT_H * v / vmax;
        g_string_append_printf(path, "%s%.1f,%.1f", path->len ? " " : "",
                               x, y);
        g_string_append_printf(s, "<circle cx=\"%.1f\" cy=\"%.1f\" "
                               "r=\"4\" fill=\"%s\"%s/>\n", x, y, color,
                               col->control ? " fill-opacity=\"0.45\"" : "");
        if (spread(runs, m, col, pt, &lo, &hi)) {
            error_bar(s, x, PLOT_T + PLOT_H - PLOT_H * lo / vmax,
                      PLOT_T + PLOT_H - PLOT_H * hi / vmax);
        }
    }
    g_string_append_printf(s, "<polyline points=\"%s\" fill=\"none\" "
                           "stroke=\"%s\" stroke-width=\"2\"%s/>\n",
                           path->str, color, col->control ?
                           " stroke-dasharray=\"6 4\" stroke-opacity=\"0.6\"" :
                           "");
    legend_box(s, lx, color, col->control);
    svg_text(s, lx + 16, CHART_H - 18, "start", 11, col->name);
}

/* A sweep: one line per variant (and control) over the points */
static void sweep_chart(GString *s, JsonObject *sc, JsonArray *runs,
                        GPtrArray *cols, const Metric *m, JsonArray *points)
{
    double vmax = sweep_max(runs, cols, m, points);
    guint c;

    sweep_axes(s, sc, m, points, vmax);
    for (c = 0; c < cols->len; c++) {
        sweep_line(s, runs, cols, g_ptr_array_index(cols, c), m, points,
                   vmax, c);
    }
}

/* The bar chart's scale: what the bars and their ranges span */
typedef struct BarScale {
    guint nm;           /* metrics, a bar each per column */
    gboolean log;
    double lo, hi;      /* the axis: 0..hi, or 10^lo..10^hi on a log scale */
} BarScale;

/* The axis that holds every bar of @ch and its range, from 0 or log */
static void bar_scale(JsonArray *runs, GPtrArray *cols, const char *kind,
                      const Chart *ch, BarScale *bs)
{
    double vmax = 0, vmin = INFINITY;
    guint c;
    int i;

    bs->nm = 0;
    bs->log = ch->bar_log;
    while (bs->nm < G_N_ELEMENTS(ch->bars) && ch->bars[bs->nm]) {
        bs->nm++;
    }
    for (c = 0; c < cols->len; c++) {
        for (i = 0; i < (int)bs->nm; i++) {
            const Metric *bm = report_find_metric(kind, ch->bars[i]);
            double v = report_aggregate(runs, bm, g_ptr_array_index(cols, c),
                                        NULL, NULL), rlo, rhi;

            if (!isnan(v) && v > 0) {
                vmax = MAX(vmax, v);
                vmin = MIN(vmin, v);
            }
            if (spread(runs, bm, g_ptr_array_index(cols, c), NULL, &rlo,
                       &rhi) && rlo > 0) {
                vmax = MAX(vmax, rhi);
                vmin = MIN(vmin, rlo);
            }
        }
    }
    if (bs->log) {
        bs->lo = vmax > 0 ? floor(log10(vmin)) : 0;
        bs->hi = vmax > 0 ? ceil(log10(vmax)) : 1;
        if (bs->hi <= bs->lo) {
            bs->hi = bs->lo + 1;
        }
    } else {
        bs->lo = 0;
        bs->hi = axis_max(vmax);
    }
}

/* Where @v lies on the bar chart's axis, 0 (bottom) to 1 (top) */
static double bar_frac(const BarScale *bs, double v)
{
    return bs->log ? (log10(v) - bs->lo) / (bs->hi - bs->lo) : v / bs->hi;
}

/* The bar chart's title and grid: 6 lines, or one per decade */
static void bar_axes(GString *s, JsonObject *sc, const Chart *ch,
                     const BarScale *bs)
{
    double lo = bs->lo, hi = bs->hi;
    g_autofree char *title = NULL;
    int i;

    title = g_strdup_printf("%s: %s",
                            json_object_get_string_member(sc, "name"),
                            ch->bar_title);
    svg_text(s, CHART_W / 2, 28, "middle", 16, title);
    for (i = 0; i <= (bs->log ? (int)(hi - lo) : 5); i++) {
        double frac = bs->log ? i / (hi - lo) : i / 5.0;
        double y = PLOT_T + PLOT_H - PLOT_H * frac;
        g_autofree char *lab = bs->log ?
            report_fmt(pow(10, lo + i), lo + i < 0 ? (int)-(lo + i) : 0) :
            report_fmt(hi * frac, hi >= 50 ? 0 : 1);

        grid_line(s, y, lab);
    }
}

/* Column @c's group of bars, one per metric, each with its runs' range */
static void bar_group(GString *s, JsonArray *runs, GPtrArray *cols, guint c,
                      const char *kind, const Chart *ch, const BarScale *bs)
{
    Column *col = g_ptr_array_index(cols, c);
    double gx = PLOT_L + PLOT_W * c / cols->len, gw = PLOT_W / cols->len;
    double bw = gw * 0.8 / bs->nm;
    int i;

    for (i = 0; i < (int)bs->nm; i++) {
        const Metric *m = report_find_metric(kind, ch->bars[i]);
        double v = report_aggregate(runs, m, col, NULL, NULL);
        double frac, x = gx + gw * 0.1 + bw * i, rlo, rhi;

        if (isnan(v) || v <= 0) {
            continue;
        }
        frac = CLAMP(bar_frac(bs, v), 0, 1);
        g_string_append_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" "
                               "width=\"%.1f\" height=\"%.1f\" "
                               "fill=\"%s\"%s/>\n", x,
                               PLOT_T + PLOT_H - PLOT_H * frac, bw * 0.9,
                               PLOT_H * frac, report_palette[i],
                               col->control ? " fill-opacity=\"0.45\"" : "");
        /* the repeats' range, within the axis */
        if (spread(runs, m, col, NULL, &rlo, &rhi) && rlo > 0) {
            double f1 = bar_frac(bs, rlo), f2 = bar_frac(bs, rhi);

            error_bar(s, x + bw * 0.45,
                      PLOT_T + PLOT_H - PLOT_H * CLAMP(f1, 0, 1),
                      PLOT_T + PLOT_H - PLOT_H * CLAMP(f2, 0, 1));
        }
    }
    svg_text(s, gx + gw / 2, PLOT_T + PLOT_H + 18, "middle", 11, col->name);
}

/* Bars: for each column, one bar per chart metric; a legend of metrics */
static void bar_chart(GString *s, JsonObject *sc, JsonArray *runs,
                      GPtrArray *cols, const char *kind, const Chart *ch)
{
    BarScale bs;
    guint c;
    int i;

    bar_scale(runs, cols, kind, ch, &bs);
    bar_axes(s, sc, ch, &bs);
    for (c = 0; c < cols->len; c++) {
        bar_group(s, runs, cols, c, kind, ch, &bs);
    }
    for (i = 0; i < (int)bs.nm; i++) {
        const Metric *m = report_find_metric(kind, ch->bars[i]);

        legend_box(s, PLOT_L + 10 + 220 * i, report_palette[i], FALSE);
        svg_text(s, PLOT_L + 28 + 220 * i, CHART_H - 18, "start", 12,
                 m->label);
    }
}

char *report_svg_chart(JsonObject *sc, JsonArray *runs, GPtrArray *cols,
                       const char *kind)
{
    const Chart *ch = report_chart(kind);
    GString *s = g_string_new(NULL);
    JsonArray *points = json_object_has_member(sc, "sweep_values") ?
        json_object_get_array_member(sc, "sweep_values") : NULL;

    g_string_append_printf(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                           "width=\"%.0f\" height=\"%.0f\" "
                           "font-family=\"sans-serif\">\n", CHART_W, CHART_H);
    g_string_append_printf(s, "<rect width=\"%.0f\" height=\"%.0f\" "
                           "fill=\"white\"/>\n", CHART_W, CHART_H);
    if (!ch) {
        svg_text(s, CHART_W / 2, CHART_H / 2, "middle", 14,
                 "no chart for this workload");
        g_string_append(s, "</svg>\n");
        return g_string_free(s, FALSE);
    }
    if (points && json_array_get_length(points)) {
        sweep_chart(s, sc, runs, cols, report_find_metric(kind, ch->line),
                    points);
    } else {
        bar_chart(s, sc, runs, cols, kind, ch);
    }
    /* the axes */
    g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"black\"/>\n", PLOT_L,
                           PLOT_T + PLOT_H, PLOT_L + PLOT_W, PLOT_T + PLOT_H);
    g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"black\"/>\n", PLOT_L, PLOT_T,
                           PLOT_L, PLOT_T + PLOT_H);
    g_string_append(s, "</svg>\n");
    return g_string_free(s, FALSE);
}

/* ---- latency distributions, from the guest's whole histograms ---- */

/* Add the "hist=@what" RESULT line of @run into @hist (bucket counts) */
static gboolean add_hist(JsonObject *run, const char *what, guint64 *hist)
{
    JsonArray *lines = json_object_has_member(run, "result_lines") ?
        json_object_get_array_member(run, "result_lines") : NULL;
    g_autofree char *key = g_strdup_printf(" hist=%s buckets=", what);
    gboolean found = FALSE;
    guint i;

    for (i = 0; lines && i < json_array_get_length(lines); i++) {
        const char *l = json_array_get_string_element(lines, i);
        const char *p = strstr(l, key);

        if (!g_str_has_prefix(l, "workload=") || !p) {
            continue;
        }
        p += strlen(key);
        while (*p && *p != '-') {
            char *end;
            guint64 idx = g_ascii_strtoull(p, &end, 10), n;

            if (*end != ':') {
                break;
            }
            n = g_ascii_strtoull(end + 1, &end, 10);
            if (idx < SMMULAB_HIST_BUCKETS) {
                hist[idx] += n;
                found = TRUE;
            }
            p = *end == ',' ? end + 1 : end;
            if (!*end || *end == ' ') {
                break;
            }
        }
    }
    return found;
}

/*
 * The distribution of unmap (or flush) latency per column, over all its
 * runs: the fraction of operations at or below each bucket's top, on a log
 * axis; controls dashed.  NULL when no run kept its histogram.
 */
char *report_cdf_svg(JsonObject *sc, JsonArray *runs, GPtrArray *cols)
{
    const double W = 760, H = 420, L = 70, R = 20, T = 50, B = 90;
    const double pw = W - L - R, ph = H - T - B;
    g_autofree guint64 *all = g_new0(guint64, (gsize)SMMULAB_HIST_BUCKETS *
                                     cols->len);
    gboolean any = FALSE;
    double xmin = INFINITY, xmax = 0, lo, hi;
    GString *s;
    guint c, i, j;
    g_autofree char *title = NULL;

    for (c = 0; c < cols->len; c++) {
        guint64 *h = all + (gsize)SMMULAB_HIST_BUCKETS * c;

        for (i = 0; i < json_array_get_length(runs); i++) {
            JsonObject *r = json_array_get_object_element(runs, i);

            if (report_run_matches(r, g_ptr_array_index(cols, c), NULL) &&
                report_run_counts(r)) {
                any |= add_hist(r, "unmap", h);
            }
        }
        for (j = 0; j < SMMULAB_HIST_BUCKETS; j++) {
            if (h[j]) {
                xmin = MIN(xmin, smmulab_hist_top(j) / 1e3);
                xmax = MAX(xmax, smmulab_hist_top(j) / 1e3);
            }
        }
    }
    if (!any) {
        return NULL;
    }
    lo = floor(log10(MAX(xmin, 1e-3)));
    hi = ceil(log10(MAX(xmax, 1e-3)));
    if (hi <= lo) {
        hi = lo + 1;
    }
    s = g_string_new(NULL);
    g_string_append_printf(s, "<svg class=\"cdf\" xmlns=\"http://www.w3.org/2000/svg\" "
                           "width=\"%.0f\" height=\"%.0f\" "
                           "font-family=\"sans-serif\">\n", W, H);
    g_string_append_printf(s, "<rect width=\"%.0f\" height=\"%.0f\" "
                           "fill=\"white\"/>\n", W, H);
    title = g_strdup_printf("%s: distribution of unmap latency, all runs",
                            json_object_get_string_member(sc, "name"));
    svg_text(s, W / 2, 28, "middle", 16, title);
    for (i = 0; i <= 4; i++) {
        double y = T + ph - ph * i / 4;
        g_autofree char *lab = g_strdup_printf("%.2f", i / 4.0);

        g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                               "y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y, L + pw, y);
        svg_text(s, L - 6, y + 4, "end", 11, lab);
    }
    for (i = 0; i <= (guint)(hi - lo); i++) {
        double x = L + pw * i / (hi - lo);
        g_autofree char *lab = report_fmt(pow(10, lo + i), lo + i < 0 ? (int)-(lo + i) : 0);

        g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                               "y2=\"%.1f\" stroke=\"#eee\"/>\n", x, T, x, T + ph);
        svg_text(s, x, T + ph + 16, "middle", 11, lab);
    }
    svg_text(s, L + pw / 2, T + ph + 34, "middle", 12,
             "unmap latency (us, log scale)");
    g_string_append_printf(s, "<text x=\"16\" y=\"%.1f\" font-size=\"12\" "
                           "text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">"
                           "fraction of unmaps at or below</text>\n", T + ph / 2,
                           T + ph / 2);
    for (c = 0; c < cols->len; c++) {
        Column *col = g_ptr_array_index(cols, c);
        guint64 *h = all + (gsize)SMMULAB_HIST_BUCKETS * c, total = 0, cum = 0;
        const char *color = report_variant_color(cols, col);
        g_autoptr(GString) path = g_string_new(NULL);
        double lx = L + 10 + (pw - 10) * c / cols->len, py = T + ph;

        for (j = 0; j < SMMULAB_HIST_BUCKETS; j++) {
            total += h[j];
        }
        if (!total) {
            continue;
        }
        for (j = 0; j < SMMULAB_HIST_BUCKETS; j++) {
            double x, y;

            if (!h[j]) {
                continue;
            }
            cum += h[j];
            x = L + pw * (log10(MAX(smmulab_hist_top(j) / 1e3, 1e-3)) - lo) /
                (hi - lo);
            y = T + ph - ph * (double)cum / total;
            /* steps: up at each bucket's top */
            g_string_append_printf(path, "%s%.1f,%.1f %.1f,%.1f",
                                   path->len ? " " : "", x, py, x, y);
            py = y;
        }
        g_string_append_printf(s, "<polyline points=\"%s\" fill=\"none\" "
                               "stroke=\"%s\" stroke-width=\"2\"%s/>\n",
                               path->str, color, col->control ?
                               " stroke-dasharray=\"6 4\" stroke-opacity=\"0.6\"" : "");
        g_string_append_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
                               "height=\"12\" fill=\"%s\"%s/>\n", lx, H - 28,
                               color, col->control ? " fill-opacity=\"0.45\"" : "");
        svg_text(s, lx + 16, H - 18, "start", 11, col->name);
    }
    g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"black\"/>\n", L, T + ph, L + pw,
                           T + ph);
    g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"black\"/>\n", L, T, L, T + ph);
    g_string_append(s, "</svg>\n");
    return g_string_free(s, FALSE);
}

/* ---- a timeline per run (report.html) ---- */

static const char *event_color(const char *kind)
{
    return !strcmp(kind, "soft lockup") ? "#d62728" :
           !strcmp(kind, "CMDQ timeout") ? "#ff7f0e" : "#9467bd";
}

/*
 * One run over time: the model's pending commands (polled each second),
 * PROD writes that found the queue full, and the console's soft lockups
 * and timeouts, in host seconds from QEMU's start.
 */
void report_timeline_svg(GString *h, JsonObject *run)
{
    JsonArray *tl = json_object_has_member(run, "timeline") ?
        json_object_get_array_member(run, "timeline") : NULL;
    JsonArray *ev = json_object_has_member(run, "events") ?
        json_object_get_array_member(run, "events") : NULL;
    const double W = 720, H = 190, L = 60, R = 20, T = 12, B = 46;
    const double pw = W - L - R, ph = H - T - B;
    guint n = tl ? json_array_get_length(tl) : 0;
    guint ne = ev ? json_array_get_length(ev) : 0, i;
    double tmax = 1, pmax = 1, x, y;
    gint64 last_full = -1;
    GString *path = g_string_new(NULL);

    g_string_append_printf(h, "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" "
                           "width=\"%.0f\" height=\"%.0f\" "
                           "font-family=\"sans-serif\" font-size=\"11\">\n", W, H);
    if (!n && !ne) {
        svg_text(h, W / 2, H / 2, "middle", 12,
                 "no timeline recorded for this run");
        g_string_append(h, "</svg>\n");
        g_string_free(path, TRUE);
        return;
    }
    for (i = 0; i < n; i++) {
        JsonArray *sm = json_array_get_array_element(tl, i);

        tmax = MAX(tmax, json_array_get_double_element(sm, 0));
        pmax = MAX(pmax, json_array_get_int_element(sm, 3));
    }
    for (i = 0; i < ne; i++) {
        tmax = MAX(tmax, json_array_get_double_element(
            json_array_get_array_element(ev, i), 0));
    }
    tmax = axis_max(tmax);
    pmax = axis_max(pmax);
    for (i = 0; i <= 4; i++) {
        g_autofree char *lab = report_fmt(pmax * i / 4, 0);

        y = T + ph - ph * i / 4;
        g_string_append_printf(h, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                               "y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y, L + pw, y);
        svg_text(h, L - 5, y + 4, "end", 10, lab);
    }
    for (i = 0; i <= 5; i++) {
        g_autofree char *lab = report_fmt(tmax * i / 5, tmax >= 10 ? 0 : 1);

        x = L + pw * i / 5;
        svg_text(h, x, T + ph + 14, "middle", 10, lab);
    }
    svg_text(h, L + pw / 2, T + ph + 28, "middle", 11,
             "time since QEMU started (s, host)");
    g_string_append_printf(h, "<text x=\"12\" y=\"%.1f\" font-size=\"11\" "
                           "text-anchor=\"middle\" transform=\"rotate(-90 12 %.1f)\">"
                           "commands pending</text>\n", T + ph / 2, T + ph / 2);
    for (i = 0; i < ne; i++) {
        JsonArray *e = json_array_get_array_element(ev, i);
        const char *kind = json_array_get_string_element(e, 1);

        x = L + pw * json_array_get_double_element(e, 0) / tmax;
        g_string_append_printf(h, "<line class=\"event\" x1=\"%.1f\" y1=\"%.1f\" "
                               "x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                               "stroke-width=\"1.5\"><title>%s</title></line>\n",
                               x, T, x, T + ph, event_color(kind), kind);
    }
    for (i = 0; i < n; i++) {
        JsonArray *sm = json_array_get_array_element(tl, i);
        gint64 full = json_array_get_int_element(sm, 2);

        x = L + pw * json_array_get_double_element(sm, 0) / tmax;
        y = T + ph - ph * json_array_get_int_element(sm, 3) / pmax;
        g_string_append_printf(path, "%s%.1f,%.1f", path->len ? " " : "", x, y);
        if (last_full >= 0 && full > last_full) {
            g_string_append_printf(h, "<rect class=\"full\" x=\"%.1f\" y=\"%.1f\" "
                                   "width=\"3\" height=\"6\" fill=\"#2ca02c\">"
                                   "<title>%" G_GINT64_FORMAT " PROD writes "
                                   "filled the queue</title></rect>\n",
                                   x - 1.5, T + ph - 6, full - last_full);
        }
        last_full = full;
    }
    g_string_append_printf(h, "<polyline points=\"%s\" fill=\"none\" "
                           "stroke=\"#1f77b4\" stroke-width=\"1.5\"/>\n", path->str);
    g_string_append_printf(h, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"black\"/>\n", L, T + ph, L + pw,
                           T + ph);
    g_string_append_printf(h, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"black\"/>\n", L, T, L, T + ph);
    g_string_append(h, "</svg>\n");
    g_string_free(path, TRUE);
}
