/*
 * smmulab: a slow SMMUv3 command queue, the hooks its registers call
 *
 * A PROD write makes commands visible, CONS and PROD writes while busy
 * move the engine (smmuv3-cmdq.c), and every register access first
 * retires what is due by its virtual time.
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "smmuv3-cmdq-hooks.h"
#include "trace.h"

/*
 * Before the device is realized (and its IOMMU set up): every cost within
 * 0..SMMU_CMDQ_MAX_COST_NS, or one line naming the property.
 */
bool smmuv3_cmdq_validate(SMMUv3State *s, Error **errp)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    const struct {
        const char *name;
        uint64_t val;
    } costs[] = {
        { "cmdq-cmd-ns", e->costs.cmd_ns },
        { "cmdq-sync-ns", e->costs.sync_ns },
        { "cmdq-cfgi-ns", e->costs.cfgi_ns },
        { "cmdq-tlbi-page-ns", e->costs.tlbi_page_ns },
        { "cmdq-jitter-ns", e->costs.jitter_ns },
    };
    int i;

    for (i = 0; i < ARRAY_SIZE(costs); i++) {
        if (costs[i].val > SMMU_CMDQ_MAX_COST_NS) {
            error_setg(errp, "%s=%" PRIu64 " is out of range 0..%llu",
                       costs[i].name, costs[i].val, SMMU_CMDQ_MAX_COST_NS);
            return false;
        }
    }
    return true;
}

/* smmuv3_cmdq_mmio_enter() of the timed engine */
void smmuv3_cmdq_mmio_enter_timed(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    if (unlikely(e->loaded)) {
        smmuv3_cmdq_after_load(s, cmdq_now());
    }
    if (!e->busy) {
        /* Nothing due: read the clock only if this access needs it */
        e->access_ns = -1;
        return;
    }
    e->access_ns = cmdq_now();
    smmuv3_cmdq_advance(s, e->access_ns);
}

/* The virtual time of the register access being handled */
static int64_t cmdq_access_now(SMMUv3CmdqEngine *e)
{
    if (e->access_ns < 0) {
        e->access_ns = cmdq_now();
    }
    return e->access_ns;
}

/* smmuv3_cmdq_kick() of the timed engine */
void smmuv3_cmdq_kick_timed(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    int64_t now = cmdq_access_now(e);

    if (e->busy) {
        /* (idle, the timer was disarmed when the engine stopped) */
        smmuv3_cmdq_advance(s, now);
    }
    if (!smmuv3_cmdq_enabled(s) || cmdq_err_pending(s)) {
        smmuv3_cmdq_stop(s);
        return;
    }
    if (!e->busy && cmdq_visible(&s->cmdq)) {
        /* CONS may have been written while idle: forget what it skipped */
        smmu_cmdq_vis_sync(&e->vis, cmdq_visible(&s->cmdq), now, false);
        smmuv3_cmdq_start_head(s, now);
        if (e->head_due <= now) {
            /* Commands that cost nothing retire now */
            smmuv3_cmdq_advance(s, now);
        } else {
            smmuv3_cmdq_arm(s);
        }
    }
}

/*
 * PROD may have moved back: the guest retracted commands it had published,
 * and may rewrite them before it publishes them again.  What was read
 * ahead from a slot no longer visible is dropped, and the command in
 * progress, if it is no longer visible, is abandoned at once: republished,
 * it starts afresh from that PROD write, read anew.
 */
static void cmdq_prod_moved(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;
    uint32_t visible = cmdq_visible(q);
    uint32_t off = cmdq_pos(q, q->cons - e->fetch_pos);

    /* fetch_buf[off] is the command at CONS, if the buffer holds it */
    e->fetch_n = off < e->fetch_n ? MIN(e->fetch_n, off + visible) : 0;
    if (e->busy && !visible && cmdq_pos(q, q->cons) == e->head_cons) {
        e->busy = false;
        smmuv3_cmdq_arm(s);
    }
}

/*
 * The timed engine's part of a PROD write (smmuv3_cmdq_prod_written(),
 * which counts the write and what it left pending)
 */
void smmuv3_cmdq_prod_written_timed(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    cmdq_prod_moved(s);
    /* The commands this write added became visible now */
    smmu_cmdq_vis_sync(&e->vis, cmdq_visible(&s->cmdq), cmdq_access_now(e),
                       true);
    smmuv3_cmdq_kick_timed(s);
}

/*
 * After a PROD write (smmuv3_cmdq_prod_written()) that left CONS and PROD
 * apart: count the commands pending, and a queue left full
 */
void smmuv3_cmdq_pending(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;
    uint32_t pending = cmdq_visible(q);

    smmu_cmdq_stats_pending(&e->stats, pending);
    if (pending >= 1U << q->log2size) {
        e->stats.full++;
        /* the clock is read only for a trace that records it */
        if (trace_event_get_state_backends(TRACE_SMMUV3_ENGINE_FULL)) {
            trace_smmuv3_engine_full(q->prod, q->cons, cmdq_now());
        }
    }
}

/*
 * The guest wrote CONS, which the architecture leaves to software not to
 * do while the queue is enabled.  The command in progress is abandoned
 * when it would have retired (smmuv3_cmdq_advance()), and what starts then may
 * signal: decide again whether the timer is needed (smmuv3_cmdq_head_silent()).
 * The visibility records follow CONS now: skipped commands are forgotten,
 * and commands CONS moved back over count as visible from now.
 */
void smmuv3_cmdq_cons_written(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    uint32_t visible;

    if (!e->timed || !e->busy) {
        /* Idle, smmuv3_cmdq_kick() catches up when work starts */
        return;
    }
    visible = cmdq_visible(&s->cmdq);
    if (visible > e->vis.total) {
        smmu_cmdq_vis_clear(&e->vis);
    }
    smmu_cmdq_vis_sync(&e->vis, visible, cmdq_access_now(e), false);
    smmuv3_cmdq_arm(s);
}

/*
 * The timed engine's account of a command smmuv3_cmdq_consume() executed
 * (smmuv3_cmdq_retired()), before CONS moves.
 */
void smmuv3_cmdq_retired_timed(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;
    uint64_t queued = 0, wait = 0;
    int64_t visible;

    /* The command executed is the head, decoded when its work began */
    visible = smmu_cmdq_vis_front(&e->vis, e->head_start);
    smmu_cmdq_vis_pop(&e->vis);
    if (e->head_start > visible) {
        queued = e->head_start - visible;
    }
    if (e->head_due > visible) {
        wait = e->head_due - visible;
    }
    smmu_cmdq_stats_retire(&e->stats, &e->head, queued, e->head_cost, wait,
                           e->head_pages);
    trace_smmuv3_engine_retire(e->head.opcode, Q_CONS(q), queued,
                               e->head_cost);
    if (e->head.cls == SMMU_CMDQ_CLASS_SYNC) {
        trace_smmuv3_engine_sync_done(Q_CONS(q), wait);
    }
}

/*
 * A CMD_SYNC signalled its completion by an MSI write (aborted or not).
 * Nothing shows it to the guest but memory, so how late the host applied
 * it is counted: its due time against the virtual time of the write.
 * Returns that lateness in ns.
 */
uint64_t smmuv3_cmdq_msi_written(SMMUv3State *s, bool ok)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUCmdqStats *st = &e->stats;
    int64_t now = cmdq_now();
    uint64_t late = 0;

    st->msi_writes++;
    st->msi_aborts += !ok;
    if (e->timed && now > e->head_due) {
        late = now - e->head_due;
    }
    st->msi_late_total_ns += late;
    st->msi_late_max_ns = MAX(st->msi_late_max_ns, late);
    return late;
}

void smmuv3_cmdq_class_init(ObjectClass *klass)
{
    static const struct {
        const char *prop, *desc;
    } desc[] = {
        { "cmdq-cmd-ns", "virtual-time cost of every command, in ns" },
        { "cmdq-sync-ns", "extra cost of CMD_SYNC, in ns" },
        { "cmdq-cfgi-ns", "extra cost of each CFGI_* command, in ns" },
        { "cmdq-tlbi-page-ns", "extra cost per page a TLBI by address "
          "covers, in ns" },
        { "cmdq-jitter-ns", "plus a pseudo-random 0..jitter-1 ns per "
          "command" },
        { "cmdq-seed", "seed of the jitter generator (SplitMix64)" },
    };
    int i;

    for (i = 0; i < ARRAY_SIZE(desc); i++) {
        object_class_property_set_description(klass, desc[i].prop,
                                              desc[i].desc);
    }
}
