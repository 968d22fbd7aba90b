/*
 * smmulab: small helpers over json-glib's builder, used by every room
 * that writes JSON (runs.json, report.json, --list)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_JSON_H
#define SMMULAB_JSON_H

#include <glib.h>
#include <json-glib/json-glib.h>

/* @name: @value, or null when @value is NULL */
void smmulab_json_add_string(JsonBuilder *b, const char *name,
                             const char *value);
/* @name: @value, a number or a boolean */
void smmulab_json_add_int(JsonBuilder *b, const char *name, gint64 value);
void smmulab_json_add_bool(JsonBuilder *b, const char *name, gboolean value);

#endif
