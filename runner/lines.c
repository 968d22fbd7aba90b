/*
 * The line-transfer model's counters, named from System.map.
 *
 * Copyright (c) 2026 smmulab contributors
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "lines.h"

typedef struct Sym {
    guint64 addr;
    char *name;
} Sym;

static gint sym_cmp(gconstpointer a, gconstpointer b)
{
    const Sym *x = a, *y = b;

    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void sym_clear(gpointer p)
{
    g_free(((Sym *)p)->name);
}

/* The symbols of @path that have an address in the kernel image, sorted */
static GArray *syms_load(const char *path, guint64 *end)
{
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    GArray *a;
    guint i;

    *end = 0;
    if (!path || !g_file_get_contents(path, &text, NULL, NULL)) {
        return NULL;
    }
    a = g_array_new(FALSE, FALSE, sizeof(Sym));
    g_array_set_clear_func(a, sym_clear);
    lines = g_strsplit(text, "\n", -1);
    for (i = 0; lines[i]; i++) {
        char type, name[256];
        guint64 addr;
        Sym s;

        if (sscanf(lines[i], "%" G_GINT64_MODIFIER "x %c %255s", &addr,
                   &type, name) != 3 || !strchr("TtDdBbRr", type)) {
            continue;
        }
        if (!strcmp(name, "_end")) {
            *end = addr;
        }
        s.addr = addr;
        s.name = g_strdup(name);
        g_array_append_val(a, s);
    }
    g_array_sort(a, sym_cmp);
    return a;
}

/* "sym+0xoff" for @addr, or "" outside the image */
static char *syms_name(GArray *a, guint64 end, guint64 addr)
{
    guint lo = 0, hi;

    if (!a || !a->len || addr < g_array_index(a, Sym, 0).addr ||
        (end && addr >= end)) {
        return g_strdup("");
    }
    hi = a->len;
    while (hi - lo > 1) {
        guint mid = (lo + hi) / 2;

        if (g_array_index(a, Sym, mid).addr <= addr) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return g_strdup_printf("%s+0x%" G_GINT64_MODIFIER "x",
                           g_array_index(a, Sym, lo).name,
                           addr - g_array_index(a, Sym, lo).addr);
}

JsonNode *smmulab_lines_parse(const char *text, const char *system_map,
                              guint64 insn_ns)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", -1);
    g_autoptr(GArray) syms = NULL;
    guint64 transfers = 0, stall = 0, waits = 0, end;
    gint64 line_ns = -1;
    guint i;

    for (i = 0; lines[i]; i++) {
        gint64 ns, insns;
        guint64 rounds;

        if (sscanf(lines[i], "line-ns %" G_GINT64_MODIFIER "d (%"
                   G_GINT64_MODIFIER "d insns) rounds %" G_GINT64_MODIFIER
                   "u", &ns, &insns, &rounds) == 3) {
            line_ns = ns;
        }
    }
    if (line_ns < 0) {
        return NULL;
    }
    syms = syms_load(system_map, &end);
    json_builder_begin_object(b);
    smmulab_json_add_int(b, "line_ns", line_ns);
    json_builder_set_member_name(b, "hottest");
    json_builder_begin_array(b);
    for (i = 0; lines[i]; i++) {
        guint64 t, s, w, acc, addr, pc;
        int cpu;

        if (sscanf(lines[i], "cpu %d accesses %" G_GINT64_MODIFIER
                   "u transfers %" G_GINT64_MODIFIER "u stall_insns %"
                   G_GINT64_MODIFIER "u waits %" G_GINT64_MODIFIER "u",
                   &cpu, &acc, &t, &s, &w) == 5) {
            transfers += t;
            stall += s;
            waits += w;
        } else if (sscanf(lines[i], "line 0x%" G_GINT64_MODIFIER
                          "x transfers %" G_GINT64_MODIFIER "u stall_insns %"
                          G_GINT64_MODIFIER "u pc 0x%" G_GINT64_MODIFIER "x",
                          &addr, &t, &s, &pc) == 4) {
            g_autofree char *ahex = g_strdup_printf("0x%" G_GINT64_MODIFIER
                                                    "x", addr);
            g_autofree char *phex = g_strdup_printf("0x%" G_GINT64_MODIFIER
                                                    "x", pc);
            g_autofree char *fn = syms_name(syms, end, pc);
            g_autofree char *data = syms_name(syms, end, addr);

            json_builder_begin_object(b);
            smmulab_json_add_string(b, "addr", ahex);
            smmulab_json_add_string(b, "data", data);
            smmulab_json_add_string(b, "pc", phex);
            smmulab_json_add_string(b, "function", fn);
            smmulab_json_add_int(b, "transfers", t);
            smmulab_json_add_int(b, "stall_insns", s);
            json_builder_end_object(b);
        }
    }
    json_builder_end_array(b);
    smmulab_json_add_int(b, "transfers", transfers);
    smmulab_json_add_int(b, "stall_insns", stall);
    smmulab_json_add_int(b, "stall_ns", stall * insn_ns);
    smmulab_json_add_int(b, "waits", waits);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}
