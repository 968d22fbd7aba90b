/*
 * smmulab: the hooks between hw/arm/smmuv3.c and its command queue engine
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_ARM_SMMUV3_CMDQ_INTERNAL_H
#define HW_ARM_SMMUV3_CMDQ_INTERNAL_H

#include "hw/arm/smmuv3.h"
#include "smmuv3-internal.h"

/* Device life cycle */
void smmuv3_cmdq_engine_class_init(ObjectClass *klass);
bool smmuv3_cmdq_engine_realize(SMMUv3State *s, Error **errp);
void smmuv3_cmdq_engine_unrealize(SMMUv3State *s);
void smmuv3_cmdq_engine_reset(SMMUv3State *s);
/* Before and after any migration stream, with or without the subsection */
void smmuv3_cmdq_engine_pre_load(SMMUv3State *s);
int smmuv3_cmdq_engine_post_load(SMMUv3State *s);

/* Register hooks */
void smmuv3_cmdq_mmio_enter(SMMUv3State *s);
void smmuv3_cmdq_kick(SMMUv3State *s);
void smmuv3_cmdq_prod_written(SMMUv3State *s);
void smmuv3_cmdq_cons_written(SMMUv3State *s);
void smmuv3_cmdq_cons_read(SMMUv3State *s);

/* Command hooks, from smmuv3_cmdq_consume() */
void smmuv3_cmdq_retired(SMMUv3State *s, const Cmd *cmd);
uint64_t smmuv3_cmdq_msi_written(SMMUv3State *s, bool ok);

/*
 * Provided by smmuv3.c: execute up to @max commands from CONS, stopping
 * early on an empty or disabled queue or a command error.  @first, when
 * not NULL, is the command at CONS as already fetched from memory.
 */
void smmuv3_cmdq_consume(SMMUv3State *s, uint32_t max, const Cmd *first);

#endif /* HW_ARM_SMMUV3_CMDQ_INTERNAL_H */
