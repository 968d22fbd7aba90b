/*
 * smmulab: what a scenario asks of its kernels, checked before any boot
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_PREFLIGHT_H
#define SMMULAB_PREFLIGHT_H

#include <glib.h>

#include "scenario.h"

/*
 * Each variant's kernel parameters (the scenario's [guest] append= and
 * the variant's own) against the parameter list beside its kernel
 * (KERNEL.params, written when the kernel was built): an unknown
 * parameter or a value it does not take is refused, and so are two
 * variants that would boot identically configured (the same kernel and
 * initrd, the same parameters once the defaults are written out): an A/A.
 * @kernel and @initrd are the scenario's (a variant's own replace them).
 * FALSE with @err, one line.  @notes, if not NULL, gets one line per
 * variant saying how it will boot, for --check.
 */
gboolean smmulab_preflight(const SmmulabScenario *sc, const char *kernel,
                           const char *initrd, GString *notes, GError **err);

#endif
