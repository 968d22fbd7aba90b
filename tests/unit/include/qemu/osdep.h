/*
 * The host unit tests' stand-in for QEMU's qemu/osdep.h: what the
 * QEMU-free units (hw/arm/smmuv3-cmdq-timing.c) take from it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef SMMULAB_UNIT_OSDEP_H
#define SMMULAB_UNIT_OSDEP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <glib.h>

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

#endif
