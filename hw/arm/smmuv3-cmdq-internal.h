/*
 * smmulab: the command queue engine's interface, within hw/arm/ (its
 * life cycle for smmuv3.c; its steps and helpers for the files that
 * drive it)
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_ARM_SMMUV3_CMDQ_INTERNAL_H
#define HW_ARM_SMMUV3_CMDQ_INTERNAL_H

#include "qemu/timer.h"
#include "hw/arm/smmuv3.h"
#include "smmuv3-internal.h"

/* Device life cycle (hw/arm/smmuv3-cmdq.c) */
void smmuv3_cmdq_engine_realize(SMMUv3State *s);
void smmuv3_cmdq_engine_unrealize(SMMUv3State *s);
void smmuv3_cmdq_engine_reset(SMMUv3State *s);

/*
 * Provided by smmuv3.c: execute up to @max commands from CONS, stopping
 * early on an empty or disabled queue or a command error.  @first, when
 * not NULL, is the command at CONS as already fetched from memory.
 */
void smmuv3_cmdq_consume(SMMUv3State *s, uint32_t max, const Cmd *first);

/*
 * The retirement engine (hw/arm/smmuv3-cmdq.c), for the register hooks,
 * the counters and migration.
 */
void smmuv3_cmdq_start_head(SMMUv3State *s, int64_t start);
bool smmuv3_cmdq_head_silent(SMMUv3State *s);
void smmuv3_cmdq_arm(SMMUv3State *s);
void smmuv3_cmdq_stop(SMMUv3State *s);
void smmuv3_cmdq_advance(SMMUv3State *s, int64_t now);
void smmuv3_cmdq_after_load(SMMUv3State *s, int64_t now);
void smmuv3_cmdq_advance_outside_io(SMMUv3State *s);

static inline int64_t cmdq_now(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static inline bool cmdq_err_pending(SMMUv3State *s)
{
    return FIELD_EX32(s->gerror ^ s->gerrorn, GERROR, CMDQ_ERR);
}

/* CONS or PROD without the ERR field: index and wrap flag */
static inline uint32_t cmdq_pos(SMMUQueue *q, uint32_t val)
{
    return val & ((2U << q->log2size) - 1);
}

/*
 * Commands visible and not consumed: what smmuv3_cmdq_consume() would
 * execute, from CONS up to PROD, the wrap flag included.
 */
static inline uint32_t cmdq_pending(SMMUQueue *q)
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
static inline uint32_t cmdq_visible(SMMUQueue *q)
{
    uint32_t n = cmdq_pending(q);

    return n <= 1U << q->log2size ? n : 0;
}

/*
 * What each opcode costs and counts as: a table, as this is on the
 * upstream path of every command.  Not SMMU_CMD_CFGI_ALL (0x07): no
 * command has that opcode (the architecture's CMD_CFGI_ALL is
 * CFGI_STE_RANGE with Range 31), and smmuv3_cmdq_consume() raises
 * CERROR_ILL for it.  Unlisted opcodes are SMMU_CMDQ_CLASS_OTHER (0).
 */
static const uint8_t cmdq_classes[256] = {
    [SMMU_CMD_SYNC] = SMMU_CMDQ_CLASS_SYNC,
    [SMMU_CMD_CFGI_STE] = SMMU_CMDQ_CLASS_CFGI,
    [SMMU_CMD_CFGI_STE_RANGE] = SMMU_CMDQ_CLASS_CFGI,
    [SMMU_CMD_CFGI_CD] = SMMU_CMDQ_CLASS_CFGI,
    [SMMU_CMD_CFGI_CD_ALL] = SMMU_CMDQ_CLASS_CFGI,
    [SMMU_CMD_TLBI_NH_VA] = SMMU_CMDQ_CLASS_TLBI_ADDR,
    [SMMU_CMD_TLBI_NH_VAA] = SMMU_CMDQ_CLASS_TLBI_ADDR,
    [SMMU_CMD_TLBI_EL3_VA] = SMMU_CMDQ_CLASS_TLBI_ADDR,
    [SMMU_CMD_TLBI_EL2_VA] = SMMU_CMDQ_CLASS_TLBI_ADDR,
    [SMMU_CMD_TLBI_EL2_VAA] = SMMU_CMDQ_CLASS_TLBI_ADDR,
    [SMMU_CMD_TLBI_S2_IPA] = SMMU_CMDQ_CLASS_TLBI_ADDR,
};

static inline SMMUCmdqClass cmdq_class(uint8_t opcode)
{
    return cmdq_classes[opcode];
}

/*
 * Commands executed and the CMD_SYNCs among them, from the per-opcode
 * counts (neither is counted per command: see SMMUCmdqStats)
 */
static inline void cmdq_stats_sums(const SMMUCmdqStats *st,
                                   uint64_t *retired, uint64_t *syncs)
{
    int i;

    *retired = *syncs = 0;
    for (i = 0; i < SMMU_CMDQ_NR_OPCODES; i++) {
        *retired += st->opcodes[i];
        if (cmdq_class(i) == SMMU_CMDQ_CLASS_SYNC) {
            *syncs += st->opcodes[i];
        }
    }
}

/*
 * Decode what costing and counting need; returns the pages a TLBI by
 * address covers (0 for other commands).  Without RIL, range fields are a
 * guest error (smmuv3.c logs it), and the command covers one page, as on
 * hardware without range invalidation.
 */
static inline uint64_t cmdq_decode_info(SMMUv3State *s, const Cmd *cmd,
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
static inline uint64_t cmdq_decode(SMMUv3State *s, const Cmd *cmd,
                                   SMMUCmdqCmdInfo *info)
{
    uint64_t pages = cmdq_decode_info(s, cmd, info);

    if (info->range && !s->ril) {
        s->cmdq_engine.stats.ril_off_ranges++;
    }
    return pages;
}

#endif /* HW_ARM_SMMUV3_CMDQ_INTERNAL_H */
