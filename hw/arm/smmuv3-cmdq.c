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
#include "qemu/log.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/arm/smmuv3.h"
#include "hw/arm/smmuv3-cmdq.h"
#include "hw/core/qdev-prop-internal.h"
#include "smmuv3-internal.h"
#include "system/dma.h"
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

static uint32_t cmdq_pending(SMMUv3State *s)
{
    return smmu_cmdq_pending(s->cmdq.prod, s->cmdq.cons, s->cmdq.log2size);
}

static void cmdq_decode(const Cmd *cmd, SMMUCmdqCmdInfo *info)
{
    info->opcode = CMD_TYPE(cmd);
    info->tg = CMD_TG(cmd);
    info->num = CMD_NUM(cmd);
    info->scale = CMD_SCALE(cmd);
    info->range = info->tg != 0 &&
        smmu_cmdq_classify(info->opcode) == SMMU_CMDQ_CLASS_TLBI_ADDR;
}

static uint64_t cmdq_pages(SMMUv3CmdqEngine *e, const SMMUCmdqCmdInfo *info)
{
    if (smmu_cmdq_classify(info->opcode) != SMMU_CMDQ_CLASS_TLBI_ADDR) {
        return 0;
    }
    return smmu_cmdq_tlbi_pages(info, e->ril);
}

/* Begin work on the command at CONS at virtual time @start. */
/*
 * Fetch the command at CONS into @words, reading up to
 * SMMU_CMDQ_FETCH_AHEAD visible commands in one go when it is not in the
 * fetch buffer already.  Commands the guest made visible are its promise
 * not to change them, so reading them early is what prefetching hardware
 * does; the buffer is dropped whenever the engine stops.
 */
static bool cmdq_fetch(SMMUv3State *s, uint32_t words[4])
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;
    uint32_t idx = Q_CONS(q), size = 1U << q->log2size;
    uint32_t n, i;

    if (e->fetch_n && idx - e->fetch_idx < e->fetch_n &&
        e->fetch_idx <= idx) {
        memcpy(words, e->fetch_buf[idx - e->fetch_idx], 16);
        return true;
    }
    /* Visible commands from CONS, up to the end of the ring */
    n = MIN(cmdq_pending(s), SMMU_CMDQ_FETCH_AHEAD);
    n = MAX(MIN(n, size - idx), 1);
    e->fetch_n = 0;
    if (dma_memory_read(&address_space_memory, Q_CONS_ENTRY(q), e->fetch_buf,
                        16 * n, MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
        return false;
    }
    for (i = 0; i < n * 4; i++) {
        le32_to_cpus(&e->fetch_buf[i / 4][i % 4]);
    }
    e->fetch_idx = idx;
    e->fetch_n = n;
    memcpy(words, e->fetch_buf[0], 16);
    return true;
}

/* Begin work on the command at CONS at virtual time @start. */
static void cmdq_start_head(SMMUv3State *s, int64_t start)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;
    Cmd cmd;

    memset(&cmd, 0, sizeof(cmd));
    /*
     * The command is executed as fetched.  A failed read is costed as
     * opcode 0 and read again at retirement, which then raises CERROR_ABT.
     */
    e->head_fetched = cmdq_fetch(s, cmd.word);
    if (e->head_fetched) {
        memcpy(e->head_words, cmd.word, sizeof(e->head_words));
    }
    cmdq_decode(&cmd, &e->head);
    e->head_pages = cmdq_pages(e, &e->head);
    e->head_cost = smmu_cmdq_cost(&e->costs, &e->prng, &e->head, e->ril);
    e->head_cons = q->cons;
    e->head_start = start;
    e->head_due = smmu_cmdq_retire_time(start, e->head_cost);
    e->busy = true;
    trace_smmuv3_cmdq_start(e->head.opcode, Q_CONS(q), e->head_start,
                            e->head_due);
}

/*
 * Arm the timer for the head's due time, or disarm it; leave it alone when
 * it is already so (most register accesses change nothing), as timer_mod()
 * is not cheap.
 */
static void cmdq_arm(SMMUv3CmdqEngine *e)
{
    int64_t due = e->busy ? e->head_due : -1;

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
        trace_smmuv3_cmdq_stop(Q_CONS(&s->cmdq), smmuv3_cmdq_enabled(s),
                               cmdq_err_pending(s));
    }
    e->busy = false;
    e->fetch_n = 0;
    cmdq_arm(e);
}

/* Retire every command due at or before @now, then re-arm the timer. */
static void cmdq_advance(SMMUv3State *s, int64_t now)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;

    while (e->busy && e->head_due <= now) {
        uint32_t before = cmdq_pos(q, q->cons);
        int64_t t = e->head_due;

        if (before != cmdq_pos(q, e->head_cons)) {
            /* The guest moved CONS under us: restart from the new head */
            cmdq_start_head(s, t);
            continue;
        }
        if (e->head_fetched) {
            Cmd cmd;

            memcpy(cmd.word, e->head_words, sizeof(cmd.word));
            smmuv3_cmdq_consume(s, 1, &cmd);
        } else {
            smmuv3_cmdq_consume(s, 1, NULL);
        }
        if (cmdq_pos(q, q->cons) == before) {
            /* Disabled, CMDQ_ERR pending, or this command failed */
            cmdq_stop(s);
            return;
        }
        if (smmuv3_q_empty(q)) {
            e->busy = false;
            e->fetch_n = 0;
            break;
        }
        cmdq_start_head(s, t);
    }
    cmdq_arm(e);
}

static void cmdq_timer_cb(void *opaque)
{
    SMMUv3State *s = opaque;

    /* The timer fired: it is no longer armed */
    s->cmdq_engine.armed_ns = -1;
    cmdq_advance(s, cmdq_now());
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
    cmdq_advance(s, now);
    if (!smmuv3_cmdq_enabled(s) || cmdq_err_pending(s)) {
        cmdq_stop(s);
        return;
    }
    if (!e->busy && !smmuv3_q_empty(&s->cmdq)) {
        cmdq_start_head(s, now);
        /* Commands that cost nothing retire now */
        cmdq_advance(s, now);
    }
}

void smmuv3_cmdq_prod_written(SMMUv3State *s, uint32_t old_prod)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;
    uint32_t added, i, idx_mask, pending;

    e->stats.prod_writes++;
    if (e->timed) {
        int64_t now = cmdq_access_now(e);

        /* Entries old_prod..prod-1 became visible at this access */
        added = smmu_cmdq_pending(q->prod, old_prod, q->log2size);
        idx_mask = (1U << q->log2size) - 1;
        for (i = 0; i < added; i++) {
            e->visible_ns[(old_prod + i) & idx_mask] = now;
        }
    }
    smmuv3_cmdq_kick(s);
    pending = cmdq_pending(s);
    smmu_cmdq_stats_pending(&e->stats, pending);
    if (pending >= 1U << q->log2size) {
        e->stats.full++;
        trace_smmuv3_cmdq_full(q->prod, q->cons);
    }
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
    SMMUCmdqCmdInfo info;
    uint64_t queued = 0, wait = 0;
    int64_t visible;

    if (!e->timed) {
        uint8_t op = CMD_TYPE(cmd);
        uint64_t pages = 0;

        /* Kept cheap: this is the upstream path's per-command cost */
        if (smmu_cmdq_classify(op) == SMMU_CMDQ_CLASS_TLBI_ADDR) {
            cmdq_decode(cmd, &info);
            pages = smmu_cmdq_tlbi_pages(&info, e->ril);
        }
        smmu_cmdq_stats_count(&e->stats, op, pages);
        return;
    }
    /* The command executed is the head, decoded when its work began */
    visible = e->visible_ns[Q_CONS(q)];
    if (e->head_start > visible) {
        queued = e->head_start - visible;
    }
    if (e->head_due > visible) {
        wait = e->head_due - visible;
    }
    smmu_cmdq_stats_retire(&e->stats, &e->head, queued, e->head_cost, wait,
                           e->head_pages);
    trace_smmuv3_cmdq_retire(e->head.opcode, Q_CONS(q), queued,
                             e->head_cost);
    if (e->head.opcode == SMMU_CMD_SYNC) {
        trace_smmuv3_cmdq_sync_done(Q_CONS(q), wait);
    }
}

/*
 * The TG a TLBI by address is executed with.  Without RIL, range fields are
 * a guest error: invalidate the single page at the address instead, as
 * hardware without range invalidation would.
 */
uint8_t smmuv3_cmdq_range_tg(SMMUv3State *s, const Cmd *cmd)
{
    uint8_t tg = CMD_TG(cmd);

    if (tg && !s->cmdq_engine.ril) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "%s: %s with range fields (TG=%u NUM=%u SCALE=%u) "
                      "but IDR3.RIL=0: invalidating one page\n", __func__,
                      smmu_cmd_string(CMD_TYPE(cmd)), tg, CMD_NUM(cmd),
                      CMD_SCALE(cmd));
        s->cmdq_engine.stats.ril_off_ranges++;
        return 0;
    }
    return tg;
}

void smmuv3_cmdq_engine_realize(SMMUv3State *s, Error **errp)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    if (e->cmdqs > SMMU_CMDQ_TIMING_MAX_QS) {
        error_setg(errp, "arm-smmuv3: cmdqs=%u is out of range 0..%u",
                   e->cmdqs, SMMU_CMDQ_TIMING_MAX_QS);
        return;
    }
    if (e->eventqs > SMMU_CMDQ_TIMING_MAX_QS) {
        error_setg(errp, "arm-smmuv3: eventqs=%u is out of range 0..%u",
                   e->eventqs, SMMU_CMDQ_TIMING_MAX_QS);
        return;
    }
    e->timed = smmu_cmdq_costs_timed(&e->costs);
    e->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, cmdq_timer_cb, s);
    e->armed_ns = -1;
    e->access_ns = -1;
    if (e->timed) {
        e->nvisible = 1U << e->cmdqs;
        e->visible_ns = g_new0(int64_t, e->nvisible);
    }
}

void smmuv3_cmdq_engine_reset(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    cmdq_stop(s);
    memset(&e->head, 0, sizeof(e->head));
    e->head_fetched = false;
    e->head_cons = 0;
    e->head_start = 0;
    e->head_due = 0;
    e->head_cost = 0;
    e->head_pages = 0;
    smmu_cmdq_prng_seed(&e->prng, e->seed);
    smmu_cmdq_stats_reset(&e->stats);
}

static void cmdq_get_u63(Object *obj, Visitor *v, const char *name,
                         void *opaque, Error **errp)
{
    const Property *prop = opaque;
    uint64_t *ptr = object_field_prop_ptr(obj, prop);

    visit_type_uint64(v, name, ptr, errp);
}

static void cmdq_set_u63(Object *obj, Visitor *v, const char *name,
                         void *opaque, Error **errp)
{
    const Property *prop = opaque;
    uint64_t *ptr = object_field_prop_ptr(obj, prop);
    int64_t value;

    if (!visit_type_int64(v, name, &value, errp)) {
        return;
    }
    if (value < 0) {
        error_setg(errp, "arm-smmuv3: %s=%" PRId64 " is out of range 0..%"
                   PRId64, name, value, INT64_MAX);
        return;
    }
    *ptr = value;
}

const PropertyInfo smmuv3_cmdq_prop_u63 = {
    .type = "uint64",
    .description = "0..9223372036854775807",
    .get = cmdq_get_u63,
    .set = cmdq_set_u63,
    .set_default_value = qdev_propinfo_set_default_value_uint,
};

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
    uint64_t pending;
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
        { "pending", &pending },
    };

    /*
     * A pure read: counters as of the engine's last step.  Retiring what
     * is due from here would change the device from a monitor thread at a
     * host-dependent moment, and with it icount's determinism.
     */
    pending = cmdq_pending(s);

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
        { "cmdqs", "log2 of command queue entries advertised in "
          "IDR1.CMDQS (0..19); CMDQ_BASE.LOG2SIZE is clamped to it" },
        { "eventqs", "log2 of event queue entries advertised in "
          "IDR1.EVENTQS (0..19)" },
        { "ril", "advertise range invalidation (IDR3.RIL)" },
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
    object_class_property_add(klass, "cmdq-stats", "SMMUv3CmdqStats",
                              smmuv3_cmdq_get_stats, NULL, NULL, NULL);
    object_class_property_set_description(klass, "cmdq-stats",
                                          "command queue counters "
                                          "(read only)");
}

static bool cmdq_engine_needed(void *opaque)
{
    SMMUv3State *s = opaque;

    /* Cost-0 streams stay exactly upstream's */
    return s->cmdq_engine.timed;
}

static int cmdq_engine_post_load(void *opaque, int version_id)
{
    SMMUv3State *s = opaque;
    SMMUv3CmdqEngine *e = &s->cmdq_engine;

    /* visible_ns has 1 << cmdqs entries: refuse a queue larger than that */
    if (s->cmdq.log2size > e->cmdqs) {
        error_report("smmuv3/cmdq-engine: CMDQ LOG2SIZE %u > cmdqs %u in the "
                     "migration stream", s->cmdq.log2size, e->cmdqs);
        return -EINVAL;
    }
    e->fetch_n = 0;     /* fetch again what the head does not hold */
    e->armed_ns = -2;   /* unknown: force cmdq_arm() to act */
    cmdq_arm(e);
    return 0;
}

#define E(f) cmdq_engine.f
const VMStateDescription vmstate_smmuv3_cmdq_engine = {
    .name = "smmuv3/cmdq-engine",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = cmdq_engine_needed,
    .post_load = cmdq_engine_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(E(prng.state), SMMUv3State),
        VMSTATE_BOOL(E(busy), SMMUv3State),
        VMSTATE_UINT32(E(head_cons), SMMUv3State),
        VMSTATE_INT64(E(head_start), SMMUv3State),
        VMSTATE_INT64(E(head_due), SMMUv3State),
        VMSTATE_UINT64(E(head_cost), SMMUv3State),
        VMSTATE_UINT64(E(head_pages), SMMUv3State),
        VMSTATE_UINT8(E(head.opcode), SMMUv3State),
        VMSTATE_BOOL(E(head.range), SMMUv3State),
        VMSTATE_UINT8(E(head.tg), SMMUv3State),
        VMSTATE_UINT8(E(head.num), SMMUv3State),
        VMSTATE_UINT8(E(head.scale), SMMUv3State),
        VMSTATE_BOOL(E(head_fetched), SMMUv3State),
        VMSTATE_UINT32_ARRAY(E(head_words), SMMUv3State, 4),
        VMSTATE_UINT32_EQUAL(E(nvisible), SMMUv3State, NULL),
        VMSTATE_VARRAY_UINT32(E(visible_ns), SMMUv3State, E(nvisible), 0,
                              vmstate_info_int64, int64_t),
        VMSTATE_UINT64(E(stats.retired), SMMUv3State),
        VMSTATE_UINT64(E(stats.syncs), SMMUv3State),
        VMSTATE_UINT64(E(stats.max_pending), SMMUv3State),
        VMSTATE_UINT64(E(stats.full), SMMUv3State),
        VMSTATE_UINT64(E(stats.cons_reads_busy), SMMUv3State),
        VMSTATE_UINT64(E(stats.prod_writes), SMMUv3State),
        VMSTATE_UINT64(E(stats.busy_ns), SMMUv3State),
        VMSTATE_UINT64(E(stats.max_sync_wait_ns), SMMUv3State),
        VMSTATE_UINT64(E(stats.total_sync_wait_ns), SMMUv3State),
        VMSTATE_UINT64(E(stats.max_queued_ns), SMMUv3State),
        VMSTATE_UINT64(E(stats.tlbi_pages), SMMUv3State),
        VMSTATE_UINT64(E(stats.ril_off_ranges), SMMUv3State),
        VMSTATE_UINT64_ARRAY(E(stats.opcodes), SMMUv3State,
                             SMMU_CMDQ_NR_OPCODES),
        VMSTATE_END_OF_LIST()
    }
};
#undef E
