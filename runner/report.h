/*
 * smmulab: scenario reports (text table, JSON, SVG) from recorded runs
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_REPORT_H
#define SMMULAB_REPORT_H

#include <glib.h>
#include <json-glib/json-glib.h>

/*
 * @runs_doc is the runs.json the runner writes: {"scenario": {...},
 * "runs": [...]}.  Writes report.txt, report.json and report.svg into
 * @dir and returns the text report.
 */
char *smmulab_report_write(JsonNode *runs_doc, const char *dir, GError **err);

/* The same, reading DIR/runs.json */
char *smmulab_report_from_dir(const char *dir, GError **err);

#endif
