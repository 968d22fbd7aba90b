/*
 * smmulab: a slow SMMUv3 command queue
 *
 * Configurable queue sizes (IDR1.CMDQS/EVENTQS), range invalidation on or
 * off (IDR3.RIL), and commands that retire one at a time, in order, at a
 * configured pace in QEMU_CLOCK_VIRTUAL time.  With every cost 0 the device
 * behaves as upstream: commands are consumed inside the CMDQ_PROD write.
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
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "hw/arm/smmuv3-cmdq-timing.h"

/* Visible commands read ahead: at most this many per guest-memory read */
#define SMMU_CMDQ_FETCH_AHEAD 16

typedef struct SMMUv3CmdqEngine {
    /* Properties */
    uint8_t cmdqs;
    uint8_t eventqs;
    bool ril;
    bool msi;                   /* IDR0.MSI: CMD_SYNC completion by MSI */
    bool sev;                   /* IDR0.SEV */
    SMMUCmdqCosts costs;
    uint64_t seed;

    /* Set at realize: some cost is non-zero, commands retire on a timer */
    bool timed;
    QEMUTimer *timer;

    /* When each pending command became visible (migrated when timed) */
    SMMUCmdqVis vis;
    int32_t vis_mig_len;        /* vis.len, as the migration stream has it */
    /*
     * A stream was loaded: the first look after it (when the virtual clock
     * is loaded too) tracks pending commands the stream had no record of
     */
    bool loaded;
    /* IDR0.MSI and IDR0.SEV as the migration stream has them */
    uint32_t mig_idr0;

    /* Retirement state (migrated when timed) */
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

/* cmdqs and eventqs: 0..SMMU_CMDQ_TIMING_MAX_QS, refused otherwise */
extern const PropertyInfo smmuv3_cmdq_prop_qs;
/* Costs and the seed: the whole uint64 range, negative numbers refused */
extern const PropertyInfo smmuv3_cmdq_prop_u64;

#define DEFINE_PROP_SMMUV3_QS(_n, _s, _f)                                   \
    DEFINE_PROP_UNSIGNED(_n, _s, _f, SMMU_CMDQ_TIMING_MAX_QS,               \
                         smmuv3_cmdq_prop_qs, uint8_t)
#define DEFINE_PROP_SMMUV3_U64(_n, _s, _f)                                  \
    DEFINE_PROP_UNSIGNED(_n, _s, _f, 0, smmuv3_cmdq_prop_u64, uint64_t)

#define DEFINE_SMMUV3_CMDQ_PROPERTIES(_state, _f)                           \
    DEFINE_PROP_SMMUV3_QS("cmdqs", _state, _f.cmdqs),                       \
    DEFINE_PROP_SMMUV3_QS("eventqs", _state, _f.eventqs),                   \
    DEFINE_PROP_BOOL("ril", _state, _f.ril, true),                          \
    DEFINE_PROP_BOOL("msi", _state, _f.msi, false),                         \
    DEFINE_PROP_BOOL("sev", _state, _f.sev, false),                         \
    DEFINE_PROP_SMMUV3_U64("cmdq-cmd-ns", _state, _f.costs.cmd_ns),         \
    DEFINE_PROP_SMMUV3_U64("cmdq-sync-ns", _state, _f.costs.sync_ns),       \
    DEFINE_PROP_SMMUV3_U64("cmdq-cfgi-ns", _state, _f.costs.cfgi_ns),       \
    DEFINE_PROP_SMMUV3_U64("cmdq-tlbi-page-ns", _state,                     \
                           _f.costs.tlbi_page_ns),                          \
    DEFINE_PROP_SMMUV3_U64("cmdq-jitter-ns", _state, _f.costs.jitter_ns),   \
    DEFINE_PROP_SMMUV3_U64("cmdq-seed", _state, _f.seed)

/* The engine's migration subsections of vmstate_smmuv3 */
extern const VMStateDescription vmstate_smmuv3_cmdq_engine;
extern const VMStateDescription vmstate_smmuv3_cmdq_idr0;

#endif /* HW_ARM_SMMUV3_CMDQ_H */
