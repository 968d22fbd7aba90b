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

/* Register hooks (hw/arm/smmuv3-cmdq-regs.c) */
void smmuv3_cmdq_mmio_enter(SMMUv3State *s);
void smmuv3_cmdq_kick(SMMUv3State *s);
void smmuv3_cmdq_prod_written(SMMUv3State *s);
void smmuv3_cmdq_cons_written(SMMUv3State *s);
void smmuv3_cmdq_cons_read(SMMUv3State *s);

/* Command hooks, from smmuv3_cmdq_consume() (and smmuv3_cmdq_retired()) */
void smmuv3_cmdq_retired_timed(SMMUv3State *s);
uint64_t smmuv3_cmdq_msi_written(SMMUv3State *s, bool ok);

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
