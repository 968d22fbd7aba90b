/*
 * smmulab: the hooks hw/arm/smmuv3.c calls to drive its command queue
 * engine (hw/arm/smmuv3-cmdq-regs.c), report its counters
 * (smmuv3-cmdq-stats.c) and migrate it (smmuv3-cmdq-migration.c)
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_ARM_SMMUV3_CMDQ_HOOKS_H
#define HW_ARM_SMMUV3_CMDQ_HOOKS_H

#include "smmuv3-cmdq-internal.h"
#include "trace.h"

/* The cost properties: described, and checked before realize */
void smmuv3_cmdq_class_init(ObjectClass *klass);
bool smmuv3_cmdq_validate(SMMUv3State *s, Error **errp);

/*
 * Register hooks.  With every cost 0 they are upstream's path of every
 * command batch, so the register accesses' hooks below are inline: a
 * test of the mode, and the cost-0 accounting; what the timed engine does
 * is out of line, in hw/arm/smmuv3-cmdq-regs.c.
 */
void smmuv3_cmdq_mmio_enter_timed(SMMUv3State *s);
void smmuv3_cmdq_kick_timed(SMMUv3State *s);
void smmuv3_cmdq_prod_written_timed(SMMUv3State *s);
void smmuv3_cmdq_pending(SMMUv3State *s);
void smmuv3_cmdq_cons_written(SMMUv3State *s);

/* Command hooks, from smmuv3_cmdq_consume() (and smmuv3_cmdq_retired()) */
void smmuv3_cmdq_retired_timed(SMMUv3State *s);
uint64_t smmuv3_cmdq_msi_written(SMMUv3State *s, bool ok);

/*
 * Start of a register access: the guest observes one virtual instant per
 * access, so the timed engine takes the time once, and first retires what
 * is due by then.
 */
static inline void smmuv3_cmdq_mmio_enter(SMMUv3State *s)
{
    if (unlikely(s->cmdq_engine.timed)) {
        smmuv3_cmdq_mmio_enter_timed(s);
    }
}

/*
 * The queue may have work: after a PROD write, CR0 write (enable or
 * disable) or GERRORN acknowledge.  With every cost 0, upstream's
 * consumption of every visible command.
 */
static inline void smmuv3_cmdq_kick(SMMUv3State *s)
{
    if (unlikely(s->cmdq_engine.timed)) {
        smmuv3_cmdq_kick_timed(s);
    } else {
        smmuv3_cmdq_consume(s, UINT32_MAX, NULL);
    }
}

/*
 * The guest wrote CMDQ_PROD: count the write, and what it left pending
 * (smmuv3_cmdq_pending()).  With every cost 0 the write usually consumes
 * every command, leaving CONS equal to PROD, bit for bit: nothing is
 * pending then, and nothing more is computed.
 */
static inline void smmuv3_cmdq_prod_written(SMMUv3State *s)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    SMMUQueue *q = &s->cmdq;

    e->stats.prod_writes++;
    if (unlikely(e->timed)) {
        smmuv3_cmdq_prod_written_timed(s);
    } else {
        smmuv3_cmdq_consume(s, UINT32_MAX, NULL);
    }
    if (q->cons != q->prod) {
        smmuv3_cmdq_pending(s);
    }
}

/*
 * The guest read CMDQ_CONS: count the reads that find work pending (CONS
 * equal to PROD, bit for bit, is an empty queue)
 */
static inline void smmuv3_cmdq_cons_read(SMMUv3State *s)
{
    SMMUQueue *q = &s->cmdq;

    if (q->cons != q->prod && !smmuv3_q_empty(q)) {
        s->cmdq_engine.stats.cons_reads_busy++;
    }
}

/* The x-cmdq-stats property (hw/arm/smmuv3-cmdq-stats.c) */
void smmuv3_cmdq_stats_class_init(ObjectClass *klass);

/* Migration (hw/arm/smmuv3-cmdq-migration.c) */
void smmuv3_cmdq_mig_unrealize(SMMUv3State *s);
/* Before and after any migration stream, with or without the subsection */
void smmuv3_cmdq_engine_pre_load(SMMUv3State *s);
int smmuv3_cmdq_engine_post_load(SMMUv3State *s);

/*
 * Account a command smmuv3_cmdq_consume() executed, before CONS moves.
 * Inline, as with every cost 0 this is the upstream path's per-command
 * cost: count it by opcode (commands executed and CMD_SYNCs are sums of
 * these counts), a TLBI by address by the pages it covers, and trace it.
 * The timed engine accounts the head, decoded when its work began.
 */
static inline void smmuv3_cmdq_retired(SMMUv3State *s, const Cmd *cmd)
{
    SMMUv3CmdqEngine *e = &s->cmdq_engine;
    uint8_t opcode = CMD_TYPE(cmd);

    if (unlikely(e->timed)) {
        smmuv3_cmdq_retired_timed(s);
        return;
    }
    e->stats.opcodes[opcode]++;
    if (cmdq_class(opcode) == SMMU_CMDQ_CLASS_TLBI_ADDR) {
        SMMUCmdqCmdInfo info;

        smmu_cmdq_stats_add_pages(&e->stats, cmdq_decode(s, cmd, &info));
    }
    trace_smmuv3_engine_retire(opcode, Q_CONS(&s->cmdq), 0, 0);
}

#endif /* HW_ARM_SMMUV3_CMDQ_HOOKS_H */
