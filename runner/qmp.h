/*
 * smmulab: a minimal QMP client (GLib, GIO, json-glib)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_QMP_H
#define SMMULAB_QMP_H

#include <glib.h>
#include <json-glib/json-glib.h>

typedef struct SmmulabQmp SmmulabQmp;

/*
 * Connect to QEMU's QMP unix socket at @path ("@NAME": NAME in Linux's
 * abstract namespace), retrying for up to
 * @timeout_ms while QEMU starts, and leave capabilities negotiation done.
 */
/* Seconds any QMP read or write may block before it fails */
#define SMMULAB_QMP_TIMEOUT_S 5

SmmulabQmp *smmulab_qmp_connect(const char *path, guint timeout_ms,
                                GError **err);
void smmulab_qmp_close(SmmulabQmp *q);

/*
 * Run @command with @args_json (a JSON object text, or NULL) and return a
 * new reference to the "return" member; QMP errors become GErrors.
 * Events read meanwhile are remembered (see smmulab_qmp_wait_event).
 */
JsonNode *smmulab_qmp_execute(SmmulabQmp *q, const char *command,
                              const char *args_json, GError **err);

/* Wait up to @timeout_ms for event @name (already seen ones count). */
gboolean smmulab_qmp_wait_event(SmmulabQmp *q, const char *name,
                                guint timeout_ms, GError **err);

/* Has event @name been read (during any command or wait)? */
gboolean smmulab_qmp_event_seen(SmmulabQmp *q, const char *name);

/* QOM path of the (first) arm-smmuv3 device, found under /machine. */
char *smmulab_qmp_find_smmu(SmmulabQmp *q, GError **err);

/* qom-get PATH x-cmdq-stats */
JsonNode *smmulab_qmp_cmdq_stats(SmmulabQmp *q, const char *smmu_path,
                                 GError **err);

#endif
