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
 * This file is the retirement engine; the register hooks that feed it are
 * in smmuv3-cmdq-regs.c.
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "system/dma.h"
#include "smmuv3-cmdq-internal.h"
#include "trace.h"

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
void smmuv3_cmdq_start_head(SMMUv3State *s, int64_t start)
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
bool smmuv3_cmdq_head_silent(SMMUv3State *s)
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
void smmuv3_cmdq_arm(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    int64_t due = -1;

    e->head_lazy = false;
    if (e->busy) {
        e->head_lazy = smmuv3_cmdq_head_silent(s);
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

void smmuv3_cmdq_stop(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    if (e->busy) {
        trace_smmuv3_engine_stop(Q_CONS(&s->cmdq), smmuv3_cmdq_enabled(s),
                               cmdq_err_pending(s));
    }
    e->busy = false;
    e->fetch_n = 0;
    smmuv3_cmdq_arm(s);
}

/*
 * Retire every command due at or before @now, then re-arm the timer.  Each
 * is applied at @now, late by @now minus its due time when the host woke
 * the timer late (or a register access found it overdue): the guest sees
 * no lateness through a register, but it shows in what it observes
 * otherwise (an interrupt, a translation), so it is counted.
 */
void smmuv3_cmdq_advance(SMMUv3State *s, int64_t now)
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
            smmuv3_cmdq_start_head(s, t);
            continue;
        }
        smmuv3_cmdq_consume(s, 1, e->head_fetched ? cmdq_head_cmd(e) : NULL);
        if (cmdq_pos(q, q->cons) == before) {
            /* Disabled, CMDQ_ERR pending, or this command failed */
            smmuv3_cmdq_stop(s);
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
        smmuv3_cmdq_start_head(s, t);
    }
    smmuv3_cmdq_arm(s);
}

/*
 * The first look after a migration stream was loaded, at virtual time
 * @now (post_load runs before the virtual clock itself is loaded, so it
 * cannot read it): commands pending that the stream carried no visibility
 * record for (from a source at cost 0, or a CONS written while idle)
 * count as visible from now.
 */
void smmuv3_cmdq_after_load(SMMUv3State *s, int64_t now)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    e->loaded = false;
    smmu_cmdq_vis_sync(&e->vis, cmdq_visible(&s->cmdq), now, true);
}

/* Retire what is due now, from outside a register access */
void smmuv3_cmdq_advance_outside_io(SMMUv3State *s)
{
    MemReentrancyGuard *guard = &DEVICE(s)->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;
    int64_t now = cmdq_now();

    /*
     * As during an MMIO access: the engine's reads of guest memory must
     * not reach the SMMU's own registers (a queue based in its MMIO
     * window) and re-enter it halfway through a command.  Such a read
     * fails instead, and the command raises CERROR_ABT, in both paths.
     * QEMU's helper for this, qemu_bh_new_guarded(), is for bottom
     * halves: a bottom half scheduled from the timer would run after the
     * vCPU went on, so a retirement would no longer happen at its due
     * virtual time under icount.  Timers have no such helper.
     */
    guard->engaged_in_io = true;
    if (!s->cmdq_engine.timed) {
        /* Commands a timed source left pending (post_load) */
        smmuv3_cmdq_consume(s, UINT32_MAX, NULL);
    } else {
        if (unlikely(s->cmdq_engine.loaded)) {
            smmuv3_cmdq_after_load(s, now);
        }
        smmuv3_cmdq_advance(s, now);
    }
    guard->engaged_in_io = engaged;
}

static void cmdq_timer_cb(void *opaque)
{
    SMMUv3State *s = opaque;

    /* The timer fired: it is no longer armed */
    s->cmdq_engine.armed_ns = -1;
    smmuv3_cmdq_advance_outside_io(s);
}

void smmuv3_cmdq_engine_realize(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    e->timed = smmu_cmdq_costs_timed(&e->costs);
    e->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, cmdq_timer_cb, s);
    e->armed_ns = -1;
    e->access_ns = -1;
}

void smmuv3_cmdq_engine_unrealize(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    timer_free(e->timer);
    e->timer = NULL;
    smmu_cmdq_vis_free(&e->vis);
}

void smmuv3_cmdq_engine_reset(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    smmuv3_cmdq_stop(s);
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
