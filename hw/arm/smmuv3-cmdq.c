/*
 * smmulab: a slow SMMUv3 command queue
 *
 * Commands retire one at a time, in queue order.  Work on a command starts
 * when it becomes visible (the CMDQ_PROD write) or when the one before it
 * retires, whichever is later, and it retires its cost in ns of
 * QEMU_CLOCK_VIRTUAL time after that; only then does it take effect
 * (invalidation, CMD_SYNC signal, CONS moving past it).
 *
 * Retirement is driven by a virtual-clock timer, but the timer is only a
 * wake-up: every register access first retires all commands due at or before
 * the current virtual time, and every retirement is computed from due times,
 * never from when the host got round to it.  So host timer slack never adds
 * to the latency the guest sees.
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "system/dma.h"
#include "smmuv3-cmdq-internal.h"
#include "trace.h"

static int64_t cmdq_now(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static bool cmdq_err_pending(SMMUv3State *s)
{
    return FIELD_EX32(s->gerror ^ s->gerrorn, GERROR, CMDQ_ERR);
}

/* CONS or PROD without the ERR field: index and wrap flag */
static uint32_t cmdq_pos(SMMUQueue *q, uint32_t val)
{
    return val & ((2U << q->log2size) - 1);
}

/*
 * Commands visible and not consumed: what smmuv3_cmdq_consume() would
 * execute, from CONS up to PROD, the wrap flag included.
 */
static uint32_t cmdq_pending(SMMUQueue *q)
{
    return cmdq_pos(q, q->prod - q->cons);
}

/*
 * Commands the guest published and the engine may run: the pending ones,
 * or none when CONS is ahead of PROD.  No ring state has more than a
 * queue's worth pending, so with CONS written past PROD the slots from
 * CONS on were never published.  (With every cost 0, upstream's
 * smmuv3_cmdq_consume() runs through the ring up to PROD at the next
 * PROD, CR0 or GERRORN write; the timed engine waits for a PROD write
 * that puts PROD at or past CONS.)
 */
static uint32_t cmdq_visible(SMMUQueue *q)
{
    uint32_t n = cmdq_pending(q);

    return n <= 1U << q->log2size ? n : 0;
}

static SMMUCmdqClass cmdq_class(uint8_t opcode)
{
    switch ((SMMUCommandType)opcode) {
    case SMMU_CMD_SYNC:
        return SMMU_CMDQ_CLASS_SYNC;
    case SMMU_CMD_CFGI_STE:
    case SMMU_CMD_CFGI_STE_RANGE:
    case SMMU_CMD_CFGI_CD:
    case SMMU_CMD_CFGI_CD_ALL:
        /*
         * Not SMMU_CMD_CFGI_ALL (0x07): no command has that opcode (the
         * architecture's CMD_CFGI_ALL is CFGI_STE_RANGE with Range 31),
         * and smmuv3_cmdq_consume() raises CERROR_ILL for it.
         */
        return SMMU_CMDQ_CLASS_CFGI;
    case SMMU_CMD_TLBI_NH_VA:
    case SMMU_CMD_TLBI_NH_VAA:
    case SMMU_CMD_TLBI_EL3_VA:
    case SMMU_CMD_TLBI_EL2_VA:
    case SMMU_CMD_TLBI_EL2_VAA:
    case SMMU_CMD_TLBI_S2_IPA:
        return SMMU_CMDQ_CLASS_TLBI_ADDR;
    default:
        return SMMU_CMDQ_CLASS_OTHER;
    }
}

/*
 * Decode what costing and counting need; returns the pages a TLBI by
 * address covers (0 for other commands).  Without RIL, range fields are a
 * guest error (smmuv3.c logs it), and the command covers one page, as on
 * hardware without range invalidation.
 */
static uint64_t cmdq_decode_info(SMMUv3State *s, const Cmd *cmd,
                                 SMMUCmdqCmdInfo *info)
{
    info->opcode = CMD_TYPE(cmd);
    info->cls = cmdq_class(info->opcode);
    if (info->cls != SMMU_CMDQ_CLASS_TLBI_ADDR) {
        info->range = false;
        return 0;
    }
    info->tg = CMD_TG(cmd);
    info->num = CMD_NUM(cmd);
    info->scale = CMD_SCALE(cmd);
    info->range = info->tg != 0;
    return smmu_cmdq_tlbi_pages(info, s->ril);
}

/* As cmdq_decode_info(), counting range fields sent without RIL */
static uint64_t cmdq_decode(SMMUv3State *s, const Cmd *cmd,
                            SMMUCmdqCmdInfo *info)
{
    uint64_t pages = cmdq_decode_info(s, cmd, info);

    if (info->range && !s->ril) {
        s->cmdq_engine.stats.ril_off_ranges++;
    }
    return pages;
}

/*
 * Fetch the command at CONS into @words, reading up to
 * SMMU_CMDQ_FETCH_AHEAD visible commands in one go when it is not in the
 * fetch buffer already.  Commands the guest made visible are its promise
 * not to change them until they are consumed, so reading them early is what
 * prefetching hardware does; nothing else is read (a slot PROD has not
 * passed is not the guest's command yet).  The buffer is keyed by queue
 * position with its wrap flag (a slot's next lap is another command),
 * never straddles the end of the ring, and is dropped whenever the engine
 * stops or CONS is moved under it.
 */
static bool cmdq_fetch(SMMUv3State *s, uint32_t words[4])
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;
    uint32_t pos = cmdq_pos(q, q->cons), off = pos - e->fetch_pos;
    uint32_t size = 1U << q->log2size, n, i;

    if (off < e->fetch_n) {
        memcpy(words, e->fetch_buf[off], 16);
        return true;
    }
    /* Visible commands from CONS, up to the end of the ring */
    n = MIN(cmdq_visible(q), SMMU_CMDQ_FETCH_AHEAD);
    n = MIN(n, size - Q_CONS(q));
    e->fetch_n = 0;
    if (!n) {
        /* Callers start work only on a visible command: never here */
        return false;
    }
    if (dma_memory_read(&address_space_memory, Q_CONS_ENTRY(q), e->fetch_buf,
                        16 * n, MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
        return false;
    }
    for (i = 0; i < n * 4; i++) {
        le32_to_cpus(&e->fetch_buf[i / 4][i % 4]);
    }
    e->fetch_pos = pos;
    e->fetch_n = n;
    memcpy(words, e->fetch_buf[0], 16);
    return true;
}

/* The head's words as a command (Cmd is four 32-bit words) */
static Cmd *cmdq_head_cmd(SMMUv3CmdqEngine *e)
{
    QEMU_BUILD_BUG_ON(sizeof(Cmd) != sizeof(e->head_words));
    return (Cmd *)e->head_words;
}

/* Begin work on the command at CONS at virtual time @start. */
static void cmdq_start_head(SMMUv3State *s, int64_t start)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;

    /*
     * The command is executed as fetched.  A failed read is costed as
     * opcode 0 and read again at retirement, which then raises CERROR_ABT.
     */
    e->head_fetched = cmdq_fetch(s, e->head_words);
    if (!e->head_fetched) {
        memset(e->head_words, 0, sizeof(e->head_words));
    }
    e->head_pages = cmdq_decode(s, cmdq_head_cmd(e), &e->head);
    e->head_cost = smmu_cmdq_cost(&e->costs, &e->prng, &e->head, s->ril);
    e->head_cons = cmdq_pos(q, q->cons);
    e->head_start = start;
    e->head_due = smmu_cmdq_retire_time(start, e->head_cost);
    e->busy = true;
    trace_smmuv3_engine_start(e->head.opcode, Q_CONS(q), cmdq_visible(q),
                              e->head_start, e->head_due);
}

/*
 * Whether only a CONS read can tell that the head retired: a CMD_SYNC that
 * signals nothing, with nothing queued behind it.  smmuv3_cmdq_consume()
 * signals (an interrupt or an MSI) whenever CS has SIG_IRQ set, the
 * reserved CS=0b11 included: the same test here.  The retirement has no
 * effect elsewhere (no translation, interrupt or memory write), so it is
 * applied at the next look (a register access, the counters, migration) at
 * exactly its due time, without a timer.  Not when the guest moved CONS
 * under it: then the head is abandoned at its due time, and whatever is
 * at the new CONS starts then, which may signal.
 */
static bool cmdq_head_silent(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;

    if (!e->head_fetched || e->head.cls != SMMU_CMDQ_CLASS_SYNC ||
        cmdq_pos(q, q->cons) != e->head_cons || cmdq_visible(q) != 1) {
        return false;
    }
    return !(CMD_SYNC_CS(cmdq_head_cmd(e)) & CMD_SYNC_SIG_IRQ);
}

/*
 * Arm the timer for the head's due time, or disarm it; leave it alone when
 * it is already so (most register accesses change nothing), as timer_mod()
 * is not cheap.
 */
static void cmdq_arm(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    int64_t due = -1;

    e->head_lazy = false;
    if (e->busy) {
        e->head_lazy = cmdq_head_silent(s);
        if (!e->head_lazy) {
            due = e->head_due;
        }
    }

    if (due == e->armed_ns) {
        return;
    }
    if (due < 0) {
        timer_del(e->timer);
    } else {
        timer_mod(e->timer, due);
    }
    e->armed_ns = due;
}

static void cmdq_stop(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    if (e->busy) {
        trace_smmuv3_engine_stop(Q_CONS(&s->cmdq), smmuv3_cmdq_enabled(s),
                               cmdq_err_pending(s));
    }
    e->busy = false;
    e->fetch_n = 0;
    cmdq_arm(s);
}

/*
 * Retire every command due at or before @now, then re-arm the timer.  Each
 * is applied at @now, late by @now minus its due time when the host woke
 * the timer late (or a register access found it overdue): the guest sees
 * no lateness through a register, but it shows in what it observes
 * otherwise (an interrupt, a translation), so it is counted.
 */
static void cmdq_advance(SMMUv3State *s, int64_t now)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;

    while (e->busy && e->head_due <= now) {
        uint32_t before = cmdq_pos(q, q->cons);
        int64_t t = e->head_due;

        if (before != e->head_cons) {
            /*
             * The guest moved CONS under us (smmuv3_cmdq_cons_written()):
             * restart from the new head, if PROD has passed it; otherwise
             * (CONS at or past PROD) go idle until a PROD write publishes
             * it (then a full cost from that write).
             */
            uint32_t visible = cmdq_visible(q);

            e->fetch_n = 0;
            smmu_cmdq_vis_sync(&e->vis, visible, t, false);
            if (!visible) {
                e->busy = false;
                break;
            }
            cmdq_start_head(s, t);
            continue;
        }
        smmuv3_cmdq_consume(s, 1, e->head_fetched ? cmdq_head_cmd(e) : NULL);
        if (cmdq_pos(q, q->cons) == before) {
            /* Disabled, CMDQ_ERR pending, or this command failed */
            cmdq_stop(s);
            return;
        }
        if (!e->head_lazy) {
            smmu_cmdq_stats_late(&e->stats, now - t);
        }
        if (!cmdq_visible(q)) {
            e->busy = false;
            e->fetch_n = 0;
            break;
        }
        cmdq_start_head(s, t);
    }
    cmdq_arm(s);
}

/*
 * The first look after a migration stream was loaded, at virtual time
 * @now (post_load runs before the virtual clock itself is loaded, so it
 * cannot read it): commands pending that the stream carried no visibility
 * record for (from a source at cost 0, or a CONS written while idle)
 * count as visible from now.
 */
static void cmdq_after_load(SMMUv3State *s, int64_t now)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    e->loaded = false;
    smmu_cmdq_vis_sync(&e->vis, cmdq_visible(&s->cmdq), now, true);
}

/* Retire what is due now, from outside a register access */
static void cmdq_advance_outside_io(SMMUv3State *s)
{
    MemReentrancyGuard *guard = &DEVICE(s)->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;
    int64_t now = cmdq_now();

    /*
     * As during an MMIO access: the engine's reads of guest memory must
     * not reach the SMMU's own registers (a queue based in its MMIO
     * window) and re-enter it halfway through a command.  Such a read
     * fails instead, and the command raises CERROR_ABT, in both paths.
     */
    guard->engaged_in_io = true;
    if (!s->cmdq_engine.timed) {
        /* Commands a timed source left pending (post_load) */
        smmuv3_cmdq_consume(s, UINT32_MAX, NULL);
    } else {
        if (unlikely(s->cmdq_engine.loaded)) {
            cmdq_after_load(s, now);
        }
        cmdq_advance(s, now);
    }
    guard->engaged_in_io = engaged;
}

static void cmdq_timer_cb(void *opaque)
{
    SMMUv3State *s = opaque;

    /* The timer fired: it is no longer armed */
    s->cmdq_engine.armed_ns = -1;
    cmdq_advance_outside_io(s);
}

/*
 * Start of a register access: the guest observes one virtual instant per
 * access, so take the time once, and first retire what is due by then.
 */
void smmuv3_cmdq_mmio_enter(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    if (!e->timed) {
        return;
    }
    if (unlikely(e->loaded)) {
        cmdq_after_load(s, cmdq_now());
    }
    if (!e->busy) {
        /* Nothing due: read the clock only if this access needs it */
        e->access_ns = -1;
        return;
    }
    e->access_ns = cmdq_now();
    cmdq_advance(s, e->access_ns);
}

/* The virtual time of the register access being handled */
static int64_t cmdq_access_now(SMMUv3CmdqEngine *e)
{
    if (e->access_ns < 0) {
        e->access_ns = cmdq_now();
    }
    return e->access_ns;
}

/*
 * The queue may have work: after a PROD write, CR0 write (enable or
 * disable) or GERRORN acknowledge.
 */
void smmuv3_cmdq_kick(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    int64_t now;

    if (!e->timed) {
        smmuv3_cmdq_consume(s, UINT32_MAX, NULL);
        return;
    }
    now = cmdq_access_now(e);
    if (e->busy) {
        /* (idle, the timer was disarmed when the engine stopped) */
        cmdq_advance(s, now);
    }
    if (!smmuv3_cmdq_enabled(s) || cmdq_err_pending(s)) {
        cmdq_stop(s);
        return;
    }
    if (!e->busy && cmdq_visible(&s->cmdq)) {
        /* CONS may have been written while idle: forget what it skipped */
        smmu_cmdq_vis_sync(&e->vis, cmdq_visible(&s->cmdq), now, false);
        cmdq_start_head(s, now);
        if (e->head_due <= now) {
            /* Commands that cost nothing retire now */
            cmdq_advance(s, now);
        } else {
            cmdq_arm(s);
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
        cmdq_arm(s);
    }
}

void smmuv3_cmdq_prod_written(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;
    uint32_t pending;

    e->stats.prod_writes++;
    if (e->timed) {
        cmdq_prod_moved(s);
        /* The commands this write added became visible now */
        smmu_cmdq_vis_sync(&e->vis, cmdq_visible(q), cmdq_access_now(e),
                           true);
    }
    smmuv3_cmdq_kick(s);
    pending = cmdq_visible(q);
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
 * when it would have retired (cmdq_advance()), and what starts then may
 * signal: decide again whether the timer is needed (cmdq_head_silent()).
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
    cmdq_arm(s);
}

void smmuv3_cmdq_cons_read(SMMUv3State *s)
{
    if (!smmuv3_q_empty(&s->cmdq)) {
        s->cmdq_engine.stats.cons_reads_busy++;
    }
}

/* Account a command smmuv3_cmdq_consume() executed, before CONS moves. */
void smmuv3_cmdq_retired(SMMUv3State *s, const Cmd *cmd)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;
    uint64_t queued = 0, wait = 0;
    int64_t visible;

    if (!e->timed) {
        SMMUCmdqCmdInfo info;
        uint64_t pages = cmdq_decode(s, cmd, &info);

        /* Kept cheap: this is the upstream path's per-command cost */
        smmu_cmdq_stats_count(&e->stats, &info, pages);
        trace_smmuv3_engine_retire(info.opcode, Q_CONS(q), 0, 0);
        return;
    }
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

bool smmuv3_cmdq_engine_realize(SMMUv3State *s, Error **errp)
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
    e->timed = smmu_cmdq_costs_timed(&e->costs);
    e->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, cmdq_timer_cb, s);
    e->armed_ns = -1;
    e->access_ns = -1;
    return true;
}

void smmuv3_cmdq_engine_unrealize(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    timer_free(e->timer);
    e->timer = NULL;
    smmu_cmdq_vis_free(&e->vis);
    g_clear_pointer(&e->mig.vis, g_free);
}

void smmuv3_cmdq_engine_reset(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    cmdq_stop(s);
    memset(&e->head, 0, sizeof(e->head));
    e->head_fetched = false;
    memset(e->head_words, 0, sizeof(e->head_words));
    e->head_cons = 0;
    e->head_start = 0;
    e->head_due = 0;
    e->head_cost = 0;
    e->head_pages = 0;
    e->loaded = false;
    smmu_cmdq_vis_clear(&e->vis);
    smmu_cmdq_prng_seed(&e->prng, e->seed);
    smmu_cmdq_stats_reset(&e->stats);
}

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
    uint64_t pending, late_mean, msi_late_mean;
    bool timed = e->timed, ok;
    char buf[8];
    int i;
    struct {
        const char *name;
        uint64_t *val;
    } fields[] = {
        { "retired", &st->retired },
        { "syncs", &st->syncs },
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
     * lazy head (cmdq_head_silent()), whose retirement nothing but CONS
     * and these counters can see: count it if it is due.
     */
    if (timed && e->busy && e->head_lazy && cmdq_head_silent(s) &&
        e->head_due <= cmdq_now()) {
        cmdq_advance_outside_io(s);
    }
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

void smmuv3_cmdq_engine_class_init(ObjectClass *klass)
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
    /* Unstable: its members change with the engine (docs: x- prefix) */
    object_class_property_add(klass, "x-cmdq-stats", "any",
                              smmuv3_cmdq_get_stats, NULL, NULL, NULL);
    object_class_property_set_description(klass, "x-cmdq-stats",
                                          "command queue counters, an "
                                          "object (read only, unstable)");
}

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
    SMMUv3CmdqMig *m = &e->mig;

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
    return 0;
}

static int cmdq_engine_post_save(void *opaque)
{
    SMMUv3State *s = opaque;

    cmdq_mig_clear(&s->cmdq_engine.mig);
    return 0;
}

/* Before any stream: forget what an earlier one left unused */
void smmuv3_cmdq_engine_pre_load(SMMUv3State *s)
{
    cmdq_mig_clear(&s->cmdq_engine.mig);
}

static int cmdq_engine_post_load(void *opaque, int version_id)
{
    SMMUv3State *s = opaque;

    /*
     * Checked and taken by smmuv3_cmdq_engine_post_load(), once the
     * device's ID properties and queues are
     */
    s->cmdq_engine.mig.loaded = true;
    return 0;
}

/*
 * Whether the engine state a stream carried is one this device's engine
 * can be in (the stream's ID properties and queue sizes already match the
 * device); if not, say what is wrong, in one line.
 */
static bool cmdq_mig_valid(SMMUv3State *s)
{
    SMMUv3CmdqMig *m = &s->cmdq_engine.mig;
    uint32_t max = 1U << s->cmdqs;
    SMMUCmdqCmdInfo info = { };
    uint64_t pages, total = 0;
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
    return true;
}

static void cmdq_mig_take(SMMUv3CmdqEngine *e)
{
    SMMUv3CmdqMig *m = &e->mig;

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

    if (e->mig.loaded) {
        if (!cmdq_mig_valid(s)) {
            cmdq_mig_clear(&e->mig);
            return -EINVAL;
        }
        cmdq_mig_take(e);
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
     * clock; what else needs the time waits for cmdq_after_load().
     */
    e->loaded = true;
    e->fetch_n = 0;     /* fetch again what the head does not hold */
    e->access_ns = -1;
    e->armed_ns = -2;   /* unknown: force cmdq_arm() to act */
    cmdq_arm(s);
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
    SMMUv3State *s = container_of(m, SMMUv3State, cmdq_engine.mig);
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
        VMSTATE_UINT64(stats.retired, SMMUv3CmdqMig),
        VMSTATE_UINT64(stats.syncs, SMMUv3CmdqMig),
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
        VMSTATE_STRUCT(cmdq_engine.mig, SMMUv3State, 1,
                       vmstate_smmuv3_cmdq_mig, SMMUv3CmdqMig),
        VMSTATE_END_OF_LIST()
    }
};
