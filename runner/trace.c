/*
 * smmulab: a run's timeline for Perfetto's UI (Chrome JSON trace format)
 *
 * Tracks:
 *   "SMMU model (virtual time)"
 *     "command at the head"  one slice per command, from the start of its
 *                            work to its retirement, named by opcode
 *     "commands pending"     a counter, at each command's start
 *     "CMD_SYNC waits"       one slice per CMD_SYNC, from when it became
 *                            visible to its retirement
 *     "queue full"           an instant at each PROD write that filled it
 *   "guest (its own clock)"
 *     "CPU#N"                an instant at each soft lockup it reported
 *     "driver"               an instant at each CMDQ or CMD_SYNC timeout
 *                            the console printed
 * Times are microseconds; the model's are QEMU's virtual clock, the
 * guest's its printk clock, which under icount runs with it (both start
 * near 0 at reset).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

enum { PID_MODEL = 1, PID_GUEST = 2 };
enum { TID_HEAD = 1, TID_SYNC = 2, TID_FULL = 3, TID_DRIVER = 1000 };

typedef struct Event {
    double ts;                  /* us */
    char *json;                 /* the event, without "ts" */
} Event;

static const char *opcode_name(unsigned op)
{
    switch (op) {
    case 0x01: return "PREFETCH_CONFIG";
    case 0x02: return "PREFETCH_ADDR";
    case 0x03: return "CFGI_STE";
    case 0x04: return "CFGI_STE_RANGE";
    case 0x05: return "CFGI_CD";
    case 0x06: return "CFGI_CD_ALL";
    case 0x07: return "CFGI_VMS_PIDM";
    case 0x10: return "TLBI_NH_ALL";
    case 0x11: return "TLBI_NH_ASID";
    case 0x12: return "TLBI_NH_VA";
    case 0x13: return "TLBI_NH_VAA";
    case 0x18: return "TLBI_EL3_ALL";
    case 0x1a: return "TLBI_EL3_VA";
    case 0x20: return "TLBI_EL2_ALL";
    case 0x21: return "TLBI_EL2_ASID";
    case 0x22: return "TLBI_EL2_VA";
    case 0x23: return "TLBI_EL2_VAA";
    case 0x28: return "TLBI_S12_VMALL";
    case 0x2a: return "TLBI_S2_IPA";
    case 0x30: return "TLBI_NSNH_ALL";
    case 0x40: return "ATC_INV";
    case 0x41: return "PRI_RESP";
    case 0x44: return "RESUME";
    case 0x45: return "STALL_TERM";
    case 0x46: return "CMD_SYNC";
    default: return NULL;
    }
}

static void add(GArray *ev, double ts, char *json)
{
    Event e = { ts, json };

    g_array_append_val(ev, e);
}

static int cmp_event(const void *a, const void *b)
{
    const Event *x = a, *y = b;

    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void meta(GString *out, int pid, int tid, const char *what,
                 const char *name)
{
    g_string_append_printf(out, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                           "\"name\":\"%s\",\"args\":{\"name\":\"%s\"}},\n",
                           pid, tid, what, name);
}

/* The model's events, from QEMU's log backend lines */
static void model_events(const char *text, GArray *ev)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    int64_t last_due = -1;
    guint i;

    for (i = 0; lines[i]; i++) {
        const char *l = strstr(lines[i], "smmuv3_engine_");
        unsigned op, cons, pending, prod;
        int64_t start, due, at;
        uint64_t wait;

        if (!l) {
            continue;
        }
        if (sscanf(l, "smmuv3_engine_start opcode=0x%x cons=0x%x "
                   "pending=%u start=%" SCNd64 "ns due=%" SCNd64 "ns",
                   &op, &cons, &pending, &start, &due) == 5) {
            const char *name = opcode_name(op);
            g_autofree char *other = name ? NULL :
                g_strdup_printf("opcode 0x%02x", op);

            add(ev, start / 1e3, g_strdup_printf(
                "\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\","
                "\"dur\":%.3f,\"args\":{\"cons\":%u,\"pending\":%u}",
                PID_MODEL, TID_HEAD, name ? name : other,
                (due - start) / 1e3, cons, pending));
            add(ev, start / 1e3, g_strdup_printf(
                "\"ph\":\"C\",\"pid\":%d,\"name\":\"commands pending\","
                "\"args\":{\"pending\":%u}", PID_MODEL, pending));
            last_due = due;
        } else if (sscanf(l, "smmuv3_engine_sync_done cons=0x%x "
                          "wait=%" SCNu64 "ns", &cons, &wait) == 2 &&
                   last_due >= 0) {
            add(ev, (last_due - (int64_t)wait) / 1e3, g_strdup_printf(
                "\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"name\":\"CMD_SYNC\","
                "\"dur\":%.3f,\"args\":{\"cons\":%u}", PID_MODEL, TID_SYNC,
                wait / 1e3, cons));
        } else if (sscanf(l, "smmuv3_engine_full prod=0x%x cons=0x%x "
                          "at=%" SCNd64 "ns", &prod, &cons, &at) == 3) {
            add(ev, at / 1e3, g_strdup_printf(
                "\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,"
                "\"name\":\"queue full\",\"args\":{\"prod\":%u,"
                "\"cons\":%u}", PID_MODEL, TID_FULL, prod, cons));
        }
    }
}

/* The guest's soft lockups and timeouts; the CPUs seen, in @cpus */
static void guest_events(const char *text, GArray *ev, GHashTable *cpus)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    guint i;

    for (i = 0; lines[i]; i++) {
        const char *l = lines[i], *p;
        double t;
        int cpu, n;

        if (sscanf(l, "[ %lf]%n", &t, &n) != 1) {
            continue;
        }
        p = l + n;
        if ((p = strstr(p, "soft lockup - CPU#")) &&
            sscanf(p, "soft lockup - CPU#%d", &cpu) == 1) {
            g_hash_table_add(cpus, GINT_TO_POINTER(cpu + 1));
            add(ev, t * 1e6, g_strdup_printf(
                "\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,"
                "\"name\":\"soft lockup\"", PID_GUEST, cpu + 1));
        } else if (strstr(l + n, "CMD_SYNC timeout") ||
                   strstr(l + n, "CMDQ timeout")) {
            add(ev, t * 1e6, g_strdup_printf(
                "\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,"
                "\"name\":\"%s\"", PID_GUEST, TID_DRIVER,
                strstr(l + n, "CMD_SYNC timeout") ? "CMD_SYNC timeout" :
                "CMDQ timeout"));
        }
    }
}

gboolean smmulab_trace_write(const char *qemu_log, const char *console_log,
                             const char *out, GError **err)
{
    g_autofree char *qtext = NULL, *ctext = NULL;
    g_autoptr(GArray) ev = g_array_new(FALSE, FALSE, sizeof(Event));
    g_autoptr(GHashTable) cpus = g_hash_table_new(NULL, NULL);
    g_autoptr(GString) s = g_string_new("{\"displayTimeUnit\":\"ns\","
                                        "\"traceEvents\":[\n");
    g_autoptr(GList) tids = NULL;
    GList *l;
    guint i;

    if (!g_file_get_contents(qemu_log, &qtext, NULL, err)) {
        return FALSE;
    }
    if (console_log) {
        g_file_get_contents(console_log, &ctext, NULL, NULL);
    }
    model_events(qtext, ev);
    if (ctext) {
        guest_events(ctext, ev, cpus);
    }
    /* Timestamps in order, for viewers that read them so */
    g_array_sort(ev, cmp_event);

    meta(s, PID_MODEL, 0, "process_name", "SMMU model (virtual time)");
    meta(s, PID_MODEL, TID_HEAD, "thread_name", "command at the head");
    meta(s, PID_MODEL, TID_SYNC, "thread_name", "CMD_SYNC waits");
    meta(s, PID_MODEL, TID_FULL, "thread_name", "queue full");
    meta(s, PID_GUEST, 0, "process_name", "guest (its own clock)");
    meta(s, PID_GUEST, TID_DRIVER, "thread_name", "driver timeouts");
    tids = g_hash_table_get_keys(cpus);
    for (l = tids; l; l = l->next) {
        g_autofree char *name = g_strdup_printf("CPU#%d",
                                                GPOINTER_TO_INT(l->data) - 1);

        meta(s, PID_GUEST, GPOINTER_TO_INT(l->data), "thread_name", name);
    }
    for (i = 0; i < ev->len; i++) {
        Event *e = &g_array_index(ev, Event, i);

        g_string_append_printf(s, "{\"ts\":%.3f,%s}%s\n", e->ts, e->json,
                               i + 1 < ev->len ? "," : "");
        g_free(e->json);
    }
    if (!ev->len) {
        /* drop the comma after the last metadata event */
        g_string_truncate(s, s->len - 2);
        g_string_append_c(s, '\n');
    }
    g_string_append(s, "]}\n");
    return g_file_set_contents(out, s->str, s->len, err);
}
