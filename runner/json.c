/*
 * smmulab: small helpers over json-glib's builder (see json.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "json.h"

void smmulab_json_add_string(JsonBuilder *b, const char *name,
                             const char *value)
{
    json_builder_set_member_name(b, name);
    if (value) {
        json_builder_add_string_value(b, value);
    } else {
        json_builder_add_null_value(b);
    }
}

void smmulab_json_add_int(JsonBuilder *b, const char *name, gint64 value)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, value);
}

void smmulab_json_add_bool(JsonBuilder *b, const char *name, gboolean value)
{
    json_builder_set_member_name(b, name);
    json_builder_add_boolean_value(b, value);
}
