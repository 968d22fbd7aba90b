/*
 * smmulab: migration of the SMMUv3 command queue engine's state
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "smmuv3-cmdq-hooks.h"

/*
 * Migration.  A stream carries the engine's state only when the
 * destination could not rebuild it: a command in progress, the visibility
 * records of pending commands, or a jitter generator that has moved.  An
 * idle device's stream is then that of a device without the engine (its
 * counters start again from 0 on the destination), so any QEMU with the
 * same ID properties loads it, upstream's included at upstream's values.
 */
static bool cmdq_engine_needed(void *opaque)
{
    SMMUv3State *s = opaque;
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    return e->timed && (e->busy || e->vis.len ||
                        (e->costs.jitter_ns && e->prng.state != e->seed));
}

static void cmdq_mig_clear(SMMUv3CmdqMig *m)
{
    g_free(m->vis);
    memset(m, 0, sizeof(*m));
}

static int cmdq_engine_pre_save(void *opaque)
{
    SMMUv3State *s = opaque;
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUv3CmdqMig *m = &s->cmdq_mig;

    cmdq_mig_clear(m);
    m->prng = e->prng;
    m->busy = e->busy;
    m->head_cons = e->head_cons;
    m->head_start = e->head_start;
    m->head_due = e->head_due;
    m->head_cost = e->head_cost;
    m->head_pages = e->head_pages;
    m->head = e->head;
    m->head_fetched = e->head_fetched;
    memcpy(m->head_words, e->head_words, sizeof(m->head_words));
    /* Only what is pending travels, oldest first */
    smmu_cmdq_vis_linearize(&e->vis);
    m->vis_len = e->vis.len;
    m->vis = g_memdup2(e->vis.b, sizeof(*m->vis) * e->vis.len);
    m->stats = e->stats;
    cmdq_stats_sums(&e->stats, &m->retired, &m->syncs);
    return 0;
}

static int cmdq_engine_post_save(void *opaque)
{
    SMMUv3State *s = opaque;

    cmdq_mig_clear(&s->cmdq_mig);
    return 0;
}

void smmuv3_cmdq_mig_unrealize(SMMUv3State *s)
{
    g_clear_pointer(&s->cmdq_mig.vis, g_free);
}

/* Before any stream: forget what an earlier one left unused */
void smmuv3_cmdq_engine_pre_load(SMMUv3State *s)
{
    cmdq_mig_clear(&s->cmdq_mig);
}

static int cmdq_engine_post_load(void *opaque, int version_id)
{
    SMMUv3State *s = opaque;

    /*
     * Checked and taken by smmuv3_cmdq_engine_post_load(), once the
     * device's ID properties and queues are
     */
    s->cmdq_mig.loaded = true;
    return 0;
}

/*
 * Whether the engine state a stream carried is one this device's engine
 * can be in (the stream's ID properties and queue sizes already match the
 * device); if not, say what is wrong, in one line.
 */
static bool cmdq_mig_valid(SMMUv3State *s)
{
    SMMUv3CmdqMig *m = &s->cmdq_mig;
    uint32_t max = 1U << s->cmdqs;
    SMMUCmdqCmdInfo info = { };
    uint64_t pages, total = 0, retired, syncs;
    Cmd cmd = { };
    int32_t i;

    /* CONS of the command in progress: an index and its wrap flag */
    if (m->head_cons >= 2 * max) {
        error_report("arm-smmuv3: migration stream has a command in "
                     "progress at CONS 0x%x, past a queue of %u entries "
                     "(cmdqs=%u)", m->head_cons, max, s->cmdqs);
        return false;
    }
    /* Its due time is its start plus its cost: never negative */
    if (m->head_start < 0 ||
        m->head_due != smmu_cmdq_retire_time(m->head_start, m->head_cost)) {
        error_report("arm-smmuv3: migration stream has a command in "
                     "progress started at %" PRId64 " ns with a cost of %"
                     PRIu64 " ns due at %" PRId64 " ns", m->head_start,
                     m->head_cost, m->head_due);
        return false;
    }
    /* It is what its words decode to (all 0 when they were not read) */
    if (m->head_fetched) {
        memcpy(cmd.word, m->head_words, sizeof(cmd.word));
    }
    pages = cmdq_decode_info(s, &cmd, &info);
    if (info.opcode != m->head.opcode || info.cls != m->head.cls ||
        info.range != m->head.range || pages != m->head_pages ||
        (info.cls == SMMU_CMDQ_CLASS_TLBI_ADDR &&
         (info.tg != m->head.tg || info.num != m->head.num ||
          info.scale != m->head.scale))) {
        error_report("arm-smmuv3: migration stream has a command in "
                     "progress taken for opcode 0x%x over %" PRIu64
                     " pages, which its words (opcode 0x%x, %" PRIu64
                     " pages) are not", m->head.opcode, m->head_pages,
                     info.opcode, pages);
        return false;
    }
    /* Visibility records: at least one command each, at a virtual time */
    for (i = 0; i < m->vis_len; i++) {
        if (!m->vis[i].n || m->vis[i].ns < 0) {
            error_report("arm-smmuv3: migration stream has a visibility "
                         "record of %u commands at %" PRId64 " ns",
                         m->vis[i].n, m->vis[i].ns);
            return false;
        }
        total += m->vis[i].n;
    }
    if (total > max) {
        error_report("arm-smmuv3: migration stream has %" PRIu64
                     " commands pending, this device's queue at most %u "
                     "(cmdqs=%u)", total, max, s->cmdqs);
        return false;
    }
    /* Commands executed and CMD_SYNCs: the sums of the per-opcode counts */
    cmdq_stats_sums(&m->stats, &retired, &syncs);
    if (m->retired != retired || m->syncs != syncs) {
        error_report("arm-smmuv3: migration stream has %" PRIu64
                     " commands retired and %" PRIu64 " CMD_SYNCs, its "
                     "per-opcode counts %" PRIu64 " and %" PRIu64,
                     m->retired, m->syncs, retired, syncs);
        return false;
    }
    return true;
}

static void cmdq_mig_take(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUv3CmdqMig *m = &s->cmdq_mig;

    e->prng = m->prng;
    e->busy = m->busy;
    e->head_cons = m->head_cons;
    e->head_start = m->head_start;
    e->head_due = m->head_due;
    e->head_cost = m->head_cost;
    e->head_pages = m->head_pages;
    e->head = m->head;
    e->head_fetched = m->head_fetched;
    memcpy(e->head_words, m->head_words, sizeof(e->head_words));
    smmu_cmdq_vis_free(&e->vis);
    e->vis.b = g_steal_pointer(&m->vis);
    e->vis.len = m->vis_len;
    /* Every record was checked: this only rebuilds the FIFO around them */
    smmu_cmdq_vis_loaded(&e->vis);
    e->stats = m->stats;
    cmdq_mig_clear(m);
}

/*
 * Run for every stream, whether it carried the engine's subsection or not
 * (upstream QEMU's, this device's when idle or at cost 0), once the
 * device's own checks passed.
 */
int smmuv3_cmdq_engine_post_load(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    if (s->cmdq_mig.loaded) {
        if (!cmdq_mig_valid(s)) {
            cmdq_mig_clear(&s->cmdq_mig);
            return -EINVAL;
        }
        cmdq_mig_take(s);
    }
    if (!e->timed) {
        /*
         * Commands a timed source left pending retire as soon as the VM
         * runs, as commands do here once visible.  Not now: the devices
         * an MSI may write to are not all loaded yet.
         */
        e->busy = false;
        if (!smmuv3_q_empty(&s->cmdq)) {
            timer_mod(e->timer, 0);
            e->armed_ns = 0;
        }
        return 0;
    }
    /*
     * Pending work goes on from the stream's due times, which need no
     * clock; what else needs the time waits for smmuv3_cmdq_after_load().
     */
    e->loaded = true;
    e->fetch_n = 0;     /* fetch again what the head does not hold */
    e->access_ns = -1;
    e->armed_ns = -2;   /* unknown: force smmuv3_cmdq_arm() to act */
    smmuv3_cmdq_arm(s);
    return 0;
}

/*
 * The number of visibility records sizes the allocation of the array that
 * follows it in the stream: checked before that allocation, against what
 * this device's queue can have pending (a record is one command or more).
 */
static bool cmdq_mig_vis_len_valid(void *opaque, int version_id)
{
    SMMUv3CmdqMig *m = opaque;
    SMMUv3State *s = container_of(m, SMMUv3State, cmdq_mig);
    int32_t max = 1 << s->cmdqs;

    if (m->vis_len < 0 || m->vis_len > max) {
        error_report("arm-smmuv3: migration stream has %" PRId32
                     " visibility records, this device at most %" PRId32
                     " (cmdqs=%u)", m->vis_len, max, s->cmdqs);
        return false;
    }
    return true;
}

static const VMStateDescription vmstate_smmuv3_cmdq_vis_batch = {
    .name = "smmuv3/cmdq-vis-batch",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(n, SMMUCmdqVisBatch),
        VMSTATE_INT64(ns, SMMUCmdqVisBatch),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_smmuv3_cmdq_mig = {
    .name = "smmuv3/cmdq-engine-state",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(prng.state, SMMUv3CmdqMig),
        VMSTATE_BOOL(busy, SMMUv3CmdqMig),
        VMSTATE_UINT32(head_cons, SMMUv3CmdqMig),
        VMSTATE_INT64(head_start, SMMUv3CmdqMig),
        VMSTATE_INT64(head_due, SMMUv3CmdqMig),
        VMSTATE_UINT64(head_cost, SMMUv3CmdqMig),
        VMSTATE_UINT64(head_pages, SMMUv3CmdqMig),
        VMSTATE_UINT8(head.opcode, SMMUv3CmdqMig),
        VMSTATE_UINT8(head.cls, SMMUv3CmdqMig),
        VMSTATE_BOOL(head.range, SMMUv3CmdqMig),
        VMSTATE_UINT8(head.tg, SMMUv3CmdqMig),
        VMSTATE_UINT8(head.num, SMMUv3CmdqMig),
        VMSTATE_UINT8(head.scale, SMMUv3CmdqMig),
        VMSTATE_BOOL(head_fetched, SMMUv3CmdqMig),
        VMSTATE_UINT32_ARRAY(head_words, SMMUv3CmdqMig, 4),
        VMSTATE_INT32(vis_len, SMMUv3CmdqMig),
        VMSTATE_VALIDATE("visibility records within the queue",
                         cmdq_mig_vis_len_valid),
        VMSTATE_STRUCT_VARRAY_ALLOC(vis, SMMUv3CmdqMig, vis_len, 1,
                                    vmstate_smmuv3_cmdq_vis_batch,
                                    SMMUCmdqVisBatch),
        VMSTATE_UINT64(retired, SMMUv3CmdqMig),
        VMSTATE_UINT64(syncs, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.max_pending, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.full, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.cons_reads_busy, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.prod_writes, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.busy_ns, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.max_sync_wait_ns, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.total_sync_wait_ns, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.max_queued_ns, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.tlbi_pages, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.ril_off_ranges, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.late_retired, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.late_max_ns, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.late_total_ns, SMMUv3CmdqMig),
        VMSTATE_UINT64_ARRAY(stats.opcodes, SMMUv3CmdqMig,
                             SMMU_CMDQ_NR_OPCODES),
        VMSTATE_UINT64(stats.msi_writes, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.msi_aborts, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.msi_late_max_ns, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.msi_late_total_ns, SMMUv3CmdqMig),
        VMSTATE_END_OF_LIST()
    }
};

const VMStateDescription vmstate_smmuv3_cmdq_engine = {
    .name = "smmuv3/cmdq-engine",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = cmdq_engine_needed,
    .pre_save = cmdq_engine_pre_save,
    .post_save = cmdq_engine_post_save,
    .post_load = cmdq_engine_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(cmdq_mig, SMMUv3State, 1,
                       vmstate_smmuv3_cmdq_mig, SMMUv3CmdqMig),
        VMSTATE_END_OF_LIST()
    }
};
