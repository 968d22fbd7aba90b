/*
 * smmulab: the run records (runs.json)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_RECORD_H
#define SMMULAB_RECORD_H

#include <glib.h>
#include <json-glib/json-glib.h>

#include "json.h"
#include "plan.h"
#include "run.h"
#include "scenario.h"

/* What runs.json says of the scenario */
JsonNode *smmulab_record_scenario(const SmmulabScenario *sc,
                                  const char *topologies);

/* One boot's record; @log and @cmdline relative to runs.json */
JsonNode *smmulab_record_run(const SmmulabBoot *pl, const SmmulabRun *r,
                             const char *log, const char *cmdline);

/*
 * DIR/runs.json, or NULL with @err: one line naming the run and the key
 * when a key a reader relies on is missing or of another type
 */
JsonNode *smmulab_runs_load(const char *dir, GError **err);

/* Write DIR/runs.json, its runs in plan order (by "index") */
gboolean smmulab_record_save(const char *dir, JsonNode *scenario,
                             JsonNode *provenance, JsonArray *runs,
                             GError **err);

/*
 * The runs of shards of one plan (directories with a runs.json) into @out,
 * in plan order with their logs: 0, or the exit status of a refused merge
 * (its line printed).  The caller writes the report.
 */
int smmulab_record_merge(char **dirs, int n, const char *out,
                         gboolean partial);

#endif
