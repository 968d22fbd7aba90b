/*
 * smmulab: a slow SMMUv3 command queue
 *
 * Configurable queue sizes (IDR1.CMDQS/EVENTQS), range invalidation on or
 * off (IDR3.RIL), and commands that retire one at a time, in order, at a
 * configured pace in QEMU_CLOCK_VIRTUAL time.  With every cost 0 the device
 * behaves as upstream: commands are consumed inside the CMDQ_PROD write.
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

typedef struct SMMUv3State SMMUv3State;
struct Cmd;

/* Visible commands read ahead: at most this many per guest-memory read */
#define SMMU_CMDQ_FETCH_AHEAD 16

typedef struct SMMUv3CmdqEngine {
    /* Properties */
    uint8_t cmdqs;
    uint8_t eventqs;
    bool ril;
    SMMUCmdqCosts costs;
    uint64_t seed;

    /* Set at realize: some cost is non-zero, commands retire on a timer */
    bool timed;
    QEMUTimer *timer;
    uint32_t nvisible;          /* 1 << cmdqs entries in visible_ns */
    int64_t *visible_ns;        /* when each queue entry became visible */

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
    uint32_t fetch_idx;         /* queue index of fetch_buf[0] */
    uint32_t fetch_n;           /* valid entries, 0: empty */
    uint32_t fetch_buf[SMMU_CMDQ_FETCH_AHEAD][4];

    /* Virtual time of the register access being handled, -1 unread */
    int64_t access_ns;
    /* What the timer is armed for, -1 not armed */
    int64_t armed_ns;

    SMMUCmdqStats stats;
} SMMUv3CmdqEngine;

/*
 * Costs and the seed: uint64 properties that, unlike qdev's uint64, refuse
 * negative input (which qdev would wrap to 2^64 - 1): 0..INT64_MAX.
 */
extern const PropertyInfo smmuv3_cmdq_prop_u63;
#define DEFINE_PROP_SMMUV3_U63(_n, _s, _f)                                  \
    DEFINE_PROP_UNSIGNED(_n, _s, _f, 0, smmuv3_cmdq_prop_u63, uint64_t)

#define DEFINE_SMMUV3_CMDQ_PROPERTIES(_state, _f)                           \
    DEFINE_PROP_UINT8("cmdqs", _state, _f.cmdqs, SMMU_CMDQ_TIMING_MAX_QS),  \
    DEFINE_PROP_UINT8("eventqs", _state, _f.eventqs,                        \
                      SMMU_CMDQ_TIMING_MAX_QS),                             \
    DEFINE_PROP_BOOL("ril", _state, _f.ril, true),                          \
    DEFINE_PROP_SMMUV3_U63("cmdq-cmd-ns", _state, _f.costs.cmd_ns),         \
    DEFINE_PROP_SMMUV3_U63("cmdq-sync-ns", _state, _f.costs.sync_ns),       \
    DEFINE_PROP_SMMUV3_U63("cmdq-cfgi-ns", _state, _f.costs.cfgi_ns),       \
    DEFINE_PROP_SMMUV3_U63("cmdq-tlbi-page-ns", _state,                     \
                           _f.costs.tlbi_page_ns),                          \
    DEFINE_PROP_SMMUV3_U63("cmdq-jitter-ns", _state, _f.costs.jitter_ns),   \
    DEFINE_PROP_SMMUV3_U63("cmdq-seed", _state, _f.seed)

extern const VMStateDescription vmstate_smmuv3_cmdq_engine;

/* Device life cycle, called from smmuv3.c */
void smmuv3_cmdq_engine_class_init(ObjectClass *klass);
void smmuv3_cmdq_engine_realize(SMMUv3State *s, Error **errp);
void smmuv3_cmdq_engine_reset(SMMUv3State *s);

/* Register hooks, called from smmuv3.c */
void smmuv3_cmdq_mmio_enter(SMMUv3State *s);
void smmuv3_cmdq_kick(SMMUv3State *s);
void smmuv3_cmdq_prod_written(SMMUv3State *s, uint32_t old_prod);
void smmuv3_cmdq_cons_read(SMMUv3State *s);
void smmuv3_cmdq_retired(SMMUv3State *s, const struct Cmd *cmd);
uint8_t smmuv3_cmdq_range_tg(SMMUv3State *s, const struct Cmd *cmd);

/*
 * Provided by smmuv3.c: execute up to @max commands from CONS, stopping
 * early on an empty or disabled queue or a command error.  @first, when
 * not NULL, is the command at CONS as already fetched from memory.
 */
void smmuv3_cmdq_consume(SMMUv3State *s, uint32_t max,
                         const struct Cmd *first);

#endif /* HW_ARM_SMMUV3_CMDQ_H */
