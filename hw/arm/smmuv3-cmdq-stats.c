/*
 * smmulab: the SMMUv3 command queue's counters, the x-cmdq-stats property
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "smmuv3-cmdq-hooks.h"

static const char *cmdq_opcode_name(uint8_t opcode, char *buf, size_t len)
{
    const char *name = smmu_cmd_string(opcode);

    if (g_str_has_prefix(name, "SMMU_CMD_")) {
        return name + strlen("SMMU_CMD_");
    }
    snprintf(buf, len, "0x%02x", opcode);
    return buf;
}

static void smmuv3_cmdq_get_stats(Object *obj, Visitor *v, const char *name,
                                  void *opaque, Error **errp)
{
    SMMUv3State *s = ARM_SMMUV3(obj);
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUCmdqStats *st = &e->stats;
    uint64_t retired, syncs, pending, late_mean, msi_late_mean;
    bool timed = e->timed, ok;
    char buf[8];
    int i;
    struct {
        const char *name;
        uint64_t *val;
    } fields[] = {
        { "retired", &retired },
        { "syncs", &syncs },
        { "max-pending", &st->max_pending },
        { "full", &st->full },
        { "cons-reads-busy", &st->cons_reads_busy },
        { "prod-writes", &st->prod_writes },
        { "busy-ns", &st->busy_ns },
        { "max-sync-wait-ns", &st->max_sync_wait_ns },
        { "total-sync-wait-ns", &st->total_sync_wait_ns },
        { "max-queued-ns", &st->max_queued_ns },
        { "tlbi-pages", &st->tlbi_pages },
        { "ril-off-ranges", &st->ril_off_ranges },
        { "late-retired", &st->late_retired },
        { "late-max-ns", &st->late_max_ns },
        { "late-mean-ns", &late_mean },
        { "msi-writes", &st->msi_writes },
        { "msi-aborts", &st->msi_aborts },
        { "msi-late-max-ns", &st->msi_late_max_ns },
        { "msi-late-mean-ns", &msi_late_mean },
        { "pending", &pending },
    };

    /*
     * Counters as of the engine's last step.  Retiring what is due from
     * here would change the device from a monitor thread at a
     * host-dependent moment, and with it icount's determinism; except a
     * lazy head (smmuv3_cmdq_head_silent()), whose retirement nothing but CONS
     * and these counters can see: count it if it is due.
     */
    if (timed && e->busy && e->head_lazy && smmuv3_cmdq_head_silent(s) &&
        e->head_due <= cmdq_now()) {
        smmuv3_cmdq_advance_outside_io(s);
    }
    cmdq_stats_sums(st, &retired, &syncs);
    pending = cmdq_visible(&s->cmdq);
    late_mean = smmu_cmdq_stats_late_mean(st);
    msi_late_mean = st->msi_writes ?
                    st->msi_late_total_ns / st->msi_writes : 0;

    if (!visit_start_struct(v, name, NULL, 0, errp)) {
        return;
    }
    ok = true;
    for (i = 0; ok && i < ARRAY_SIZE(fields); i++) {
        ok = visit_type_uint64(v, fields[i].name, fields[i].val, errp);
    }
    ok = ok && visit_type_bool(v, "timed", &timed, errp);
    if (ok && visit_start_struct(v, "opcodes", NULL, 0, errp)) {
        for (i = 0; ok && i < SMMU_CMDQ_NR_OPCODES; i++) {
            if (st->opcodes[i]) {
                ok = visit_type_uint64(v, cmdq_opcode_name(i, buf, sizeof(buf)),
                                       &st->opcodes[i], errp);
            }
        }
        ok = ok && visit_check_struct(v, errp);
        visit_end_struct(v, NULL);
    } else {
        ok = false;
    }
    if (ok) {
        visit_check_struct(v, errp);
    }
    visit_end_struct(v, NULL);
}

void smmuv3_cmdq_stats_class_init(ObjectClass *klass)
{
    /* Unstable: its members change with the engine (docs: x- prefix) */
    object_class_property_add(klass, "x-cmdq-stats", "any",
                              smmuv3_cmdq_get_stats, NULL, NULL, NULL);
    object_class_property_set_description(klass, "x-cmdq-stats",
                                          "command queue counters, an "
                                          "object (read only, unstable)");
}
