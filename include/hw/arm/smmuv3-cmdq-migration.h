/*
 * smmulab: the SMMUv3 command queue engine's state in a migration stream
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_ARM_SMMUV3_CMDQ_MIGRATION_H
#define HW_ARM_SMMUV3_CMDQ_MIGRATION_H

#include "migration/vmstate.h"
#include "hw/arm/smmuv3-cmdq-timing.h"

/*
 * The engine's state as a migration stream carries it.  A stream is
 * loaded into this copy, never into the engine itself, and taken only
 * once the device's post_load has validated all of it against this
 * device: a stream that is refused, wherever its load stops, leaves the
 * engine as it was.
 */
typedef struct SMMUv3CmdqMig {
    SMMUCmdqPrng prng;
    bool busy;
    uint32_t head_cons;
    int64_t head_start;
    int64_t head_due;
    uint64_t head_cost;
    uint64_t head_pages;
    SMMUCmdqCmdInfo head;
    bool head_fetched;
    uint32_t head_words[4];
    int32_t vis_len;            /* visibility records, oldest first */
    SMMUCmdqVisBatch *vis;
    SMMUCmdqStats stats;
    /* Sums of stats.opcodes, carried for the reader of a stream */
    uint64_t retired;
    uint64_t syncs;
    bool loaded;                /* this stream carried it, not yet taken */
} SMMUv3CmdqMig;

/* The engine's migration subsection of vmstate_smmuv3 */
extern const VMStateDescription vmstate_smmuv3_cmdq_engine;

#endif /* HW_ARM_SMMUV3_CMDQ_MIGRATION_H */
