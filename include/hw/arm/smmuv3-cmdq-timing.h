/*
 * SMMUv3 command queue timing: the arithmetic of smmulab's slow CMDQ model
 *
 * Pure C with no QEMU dependency, so that host unit tests can cover it:
 * the cost of a command, its retire time, the jitter generator, queue index
 * arithmetic and the counters.  hw/arm/smmuv3-cmdq.c drives it from a
 * QEMU_CLOCK_VIRTUAL timer.
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_ARM_SMMUV3_CMDQ_TIMING_H
#define HW_ARM_SMMUV3_CMDQ_TIMING_H

/* Largest CMDQS/EVENTQS the model accepts (as upstream QEMU advertises) */
#define SMMU_CMDQ_TIMING_MAX_QS 19

/* Opcodes are 8 bits: per-opcode counters */
#define SMMU_CMDQ_NR_OPCODES      256

/*
 * What a command costs and counts as.  The device model classifies
 * opcodes (with hw/arm/smmuv3-internal.h's SMMUCommandType); this unit
 * only does the arithmetic.
 */
typedef enum SMMUCmdqClass {
    SMMU_CMDQ_CLASS_OTHER,
    SMMU_CMDQ_CLASS_SYNC,
    SMMU_CMDQ_CLASS_CFGI,
    SMMU_CMDQ_CLASS_TLBI_ADDR,  /* TLBI by address: costs per page */
} SMMUCmdqClass;

/* Virtual-time costs, in ns (the cmdq-*-ns device properties) */
typedef struct SMMUCmdqCosts {
    uint64_t cmd_ns;        /* every command */
    uint64_t sync_ns;       /* extra for CMD_SYNC */
    uint64_t cfgi_ns;       /* extra for each CFGI_* */
    uint64_t tlbi_page_ns;  /* extra per page a TLBI-by-address covers */
    uint64_t jitter_ns;     /* plus uniform 0..jitter_ns-1 per command */
} SMMUCmdqCosts;

/*
 * Jitter generator: SplitMix64 (Steele, Lea, Flood 2014; as published by
 * Vigna).  64-bit state, one add, two multiply-xorshift rounds: the same
 * seed gives the same sequence on any host.
 */
typedef struct SMMUCmdqPrng {
    uint64_t state;
} SMMUCmdqPrng;

/* What one command decodes to, for costing and counting */
typedef struct SMMUCmdqCmdInfo {
    uint8_t opcode;
    uint8_t cls;      /* SMMUCmdqClass */
    bool range;       /* TLBI carrying range fields (TG != 0) */
    uint8_t tg;
    uint8_t num;      /* CMD_NUM: pages - 1 (in units of 2^scale) */
    uint8_t scale;
} SMMUCmdqCmdInfo;

/*
 * The counters.  Commands executed, and the CMD_SYNCs among them, are not
 * counted apart: they are the sums of @opcodes (smmu_cmdq_stats_retired(),
 * and the device's classes for CMD_SYNC), taken when the counters are read
 * or migrated, as nothing else needs them and counting them would cost
 * every command of the untimed path.
 */
typedef struct SMMUCmdqStats {
    uint64_t max_pending;       /* most commands visible and not retired */
    uint64_t full;              /* PROD writes that left the queue full */
    uint64_t cons_reads_busy;   /* CONS reads while work was pending */
    uint64_t prod_writes;       /* CMDQ_PROD writes */
    uint64_t busy_ns;           /* virtual time spent retiring commands */
    uint64_t max_sync_wait_ns;  /* longest CMD_SYNC: visible -> retired */
    uint64_t total_sync_wait_ns;
    uint64_t max_queued_ns;     /* longest wait before work started */
    uint64_t tlbi_pages;        /* pages covered by TLBIs by address */
    uint64_t ril_off_ranges;    /* range TLBIs seen with ril=off */
    uint64_t late_retired;      /* retirements applied after their due time */
    uint64_t late_max_ns;       /* the latest of them */
    uint64_t late_total_ns;
    uint64_t msi_writes;        /* CMD_SYNC completions signalled by MSI */
    uint64_t msi_aborts;        /* ... whose write aborted */
    uint64_t msi_late_max_ns;   /* latest MSI write after its due time */
    uint64_t msi_late_total_ns;
    uint64_t opcodes[SMMU_CMDQ_NR_OPCODES];    /* commands executed */
} SMMUCmdqStats;

uint64_t smmu_cmdq_prng_next(SMMUCmdqPrng *p);
void smmu_cmdq_prng_seed(SMMUCmdqPrng *p, uint64_t seed);
/* Uniform in 0..bound-1 (0 when bound is 0) */
uint64_t smmu_cmdq_prng_below(SMMUCmdqPrng *p, uint64_t bound);

/* Does any cost make the queue timed?  (All zero: upstream behaviour.) */
bool smmu_cmdq_costs_timed(const SMMUCmdqCosts *c);

/*
 * Pages a TLBI by address covers: (NUM + 1) << SCALE with range fields
 * honoured (ril), 1 otherwise.  Inline, as the counting below: both run
 * for every command of the cost-0 path.
 */
static inline uint64_t smmu_cmdq_tlbi_pages(const SMMUCmdqCmdInfo *cmd,
                                            bool ril)
{
    if (!cmd->range || !ril) {
        return 1;
    }
    /* NUM is 5 bits and SCALE 5 bits: at most 32 << 31, no overflow */
    return ((uint64_t)cmd->num + 1) << cmd->scale;
}

/*
 * Cost of one command in ns, drawing its jitter from @prng (only when
 * jitter_ns is non-zero, so the sequence does not move otherwise).
 * Saturating: never wraps however large the properties are.
 */
uint64_t smmu_cmdq_cost(const SMMUCmdqCosts *c, SMMUCmdqPrng *prng,
                        const SMMUCmdqCmdInfo *cmd, bool ril);

/* start + cost, saturating at INT64_MAX (QEMU's clocks are int64_t) */
int64_t smmu_cmdq_retire_time(int64_t start, uint64_t cost);

void smmu_cmdq_stats_reset(SMMUCmdqStats *st);
/* Pages a TLBI by address covered, saturating */
static inline void smmu_cmdq_stats_add_pages(SMMUCmdqStats *st,
                                             uint64_t pages)
{
    if (__builtin_add_overflow(st->tlbi_pages, pages, &st->tlbi_pages)) {
        st->tlbi_pages = UINT64_MAX;
    }
}
/*
 * Count one executed command (@pages: pages a TLBI by address covered,
 * 0 for other commands): all the accounting of the untimed path, which
 * the device inlines in its own form (smmuv3_cmdq_retired()).
 */
static inline void smmu_cmdq_stats_count(SMMUCmdqStats *st,
                                         const SMMUCmdqCmdInfo *cmd,
                                         uint64_t pages)
{
    st->opcodes[cmd->opcode]++;
    smmu_cmdq_stats_add_pages(st, pages);
}
/* Commands executed: the sum of the per-opcode counts */
uint64_t smmu_cmdq_stats_retired(const SMMUCmdqStats *st);
/*
 * Account one retired command: @queued_ns the time from visibility to start
 * of work, @wait_ns from visibility to retirement.
 */
void smmu_cmdq_stats_retire(SMMUCmdqStats *st, const SMMUCmdqCmdInfo *cmd,
                            uint64_t queued_ns, uint64_t cost_ns,
                            uint64_t wait_ns, uint64_t pages);
/* @pending commands visible and not retired after a PROD write */
static inline void smmu_cmdq_stats_pending(SMMUCmdqStats *st,
                                           uint32_t pending)
{
    if (pending > st->max_pending) {
        st->max_pending = pending;
    }
}
/* A retirement applied @late_ns after its due time (0: on time) */
void smmu_cmdq_stats_late(SMMUCmdqStats *st, uint64_t late_ns);
/* Mean lateness over all retirements of the timed path */
uint64_t smmu_cmdq_stats_late_mean(const SMMUCmdqStats *st);

/*
 * When each visible command became visible, as a FIFO of PROD writes: one
 * entry per write (how many commands it made visible, and when), popped a
 * command at a time as they retire.  O(1) per PROD write and per
 * retirement, and no larger than the number of writes still pending.
 */
typedef struct SMMUCmdqVisBatch {
    uint32_t n;         /* commands still pending from this write */
    int64_t ns;         /* virtual time they became visible */
} SMMUCmdqVisBatch;

typedef struct SMMUCmdqVis {
    SMMUCmdqVisBatch *b;    /* ring of @cap entries */
    uint32_t cap;
    uint32_t head;          /* oldest entry */
    uint32_t len;           /* entries in use */
    uint64_t total;         /* sum of their n: the commands tracked */
} SMMUCmdqVis;

void smmu_cmdq_vis_free(SMMUCmdqVis *v);
void smmu_cmdq_vis_clear(SMMUCmdqVis *v);
/*
 * Make the FIFO track @pending commands: when more are pending than
 * tracked, the new ones became visible at @now; when fewer (the guest
 * moved PROD back or CONS forward), drop the newest (@newest) or the
 * oldest ones.
 */
void smmu_cmdq_vis_sync(SMMUCmdqVis *v, uint64_t pending, int64_t now,
                        bool newest);
/* When the oldest tracked command became visible; @dflt if none */
int64_t smmu_cmdq_vis_front(const SMMUCmdqVis *v, int64_t dflt);
/* The oldest tracked command retired */
void smmu_cmdq_vis_pop(SMMUCmdqVis *v);
/* Entries 0..len-1 in order, head 0 (before migrating b[0..len-1]) */
void smmu_cmdq_vis_linearize(SMMUCmdqVis *v);
/* After b[0..len-1] was loaded: rebuild the rest; false if inconsistent */
bool smmu_cmdq_vis_loaded(SMMUCmdqVis *v);

#endif /* HW_ARM_SMMUV3_CMDQ_TIMING_H */
