/*
 * smmulab: a slow SMMUv3 command queue
 *
 * Commands that retire one at a time, in order, at a configured pace in
 * QEMU_CLOCK_VIRTUAL time.  With every cost 0 the device behaves as
 * upstream: commands are consumed inside the CMDQ_PROD write.
 *
 * This header is what the device's state and properties need; the hooks
 * smmuv3.c calls are in hw/arm/smmuv3-cmdq-internal.h.
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_ARM_SMMUV3_CMDQ_H
#define HW_ARM_SMMUV3_CMDQ_H

#include "qemu/timer.h"
#include "hw/arm/smmuv3-cmdq-timing.h"

/* Visible commands read ahead: at most this many per guest-memory read */
#define SMMU_CMDQ_FETCH_AHEAD 16

typedef struct SMMUv3CmdqEngine {
    /* Properties */
    SMMUCmdqCosts costs;
    uint64_t seed;

    /* Set at realize: some cost is non-zero, commands retire on a timer */
    bool timed;
    QEMUTimer *timer;

    /* When each pending command became visible */
    SMMUCmdqVis vis;
    /*
     * A stream was loaded: the first look after it (when the virtual clock
     * is loaded too) tracks pending commands the stream had no record of
     */
    bool loaded;

    /* Retirement state */
    SMMUCmdqPrng prng;
    bool busy;                  /* the command at CONS is being worked on */
    uint32_t head_cons;         /* CONS (index and wrap) of that command */
    int64_t head_start;         /* virtual ns its work started */
    int64_t head_due;           /* virtual ns it retires */
    uint64_t head_cost;
    uint64_t head_pages;
    SMMUCmdqCmdInfo head;
    bool head_fetched;          /* head_words holds the command at CONS */
    uint32_t head_words[4];     /* as fetched when its work began */

    /* Commands read ahead from the queue (not migrated: read again) */
    uint32_t fetch_pos;         /* CONS (index and wrap) of fetch_buf[0] */
    uint32_t fetch_n;           /* valid entries, 0: empty */
    uint32_t fetch_buf[SMMU_CMDQ_FETCH_AHEAD][4];

    /* Virtual time of the register access being handled, -1 unread */
    int64_t access_ns;
    /* What the timer is armed for, -1 not armed */
    int64_t armed_ns;
    /*
     * The head retires at the next look instead of by the timer: it is
     * the last pending command and nothing but CONS shows its retirement.
     */
    bool head_lazy;

    SMMUCmdqStats stats;
} SMMUv3CmdqEngine;

/* The largest cost property, in ns: 1000 s */
#define SMMU_CMDQ_MAX_COST_NS 1000000000000ULL

#endif /* HW_ARM_SMMUV3_CMDQ_H */
