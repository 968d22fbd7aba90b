/*
 * smmulab: a run's timeline as a trace Perfetto's UI (and chrome://tracing)
 * opens: the model's command queue from QEMU's smmuv3_engine_* trace events
 * (virtual time) and the guest's soft lockups and timeouts from its console
 * (the guest's clock)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_TRACE_H
#define SMMULAB_TRACE_H

#include <glib.h>

/* The -trace pattern the runner gives QEMU for a timeline */
#define SMMULAB_TRACE_EVENTS "smmuv3_engine_*"

/*
 * Write @out, a Chrome JSON trace, from @qemu_log (QEMU's -D file with the
 * smmuv3_engine_* events) and @console_log (the guest's console; may be
 * NULL).  FALSE with @err when a file cannot be read or written.
 */
gboolean smmulab_trace_write(const char *qemu_log, const char *console_log,
                             const char *out, GError **err);

#endif
