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

#include <stdbool.h>
#include <stdint.h>

/* Largest CMDQS/EVENTQS the model accepts (as upstream QEMU advertises) */
#define SMMU_CMDQ_TIMING_MAX_QS 19

/* Command opcodes the cost model distinguishes (SMMUv3 spec, 4.1) */
#define SMMU_CMDQ_OP_CFGI_FIRST   0x03  /* CFGI_STE */
#define SMMU_CMDQ_OP_CFGI_LAST    0x06  /* CFGI_CD_ALL; CFGI_ALL is 0x04 */
#define SMMU_CMDQ_OP_TLBI_NH_VA   0x12
#define SMMU_CMDQ_OP_TLBI_NH_VAA  0x13
#define SMMU_CMDQ_OP_TLBI_EL3_VA  0x1a
#define SMMU_CMDQ_OP_TLBI_EL2_VA  0x22
#define SMMU_CMDQ_OP_TLBI_EL2_VAA 0x23
#define SMMU_CMDQ_OP_TLBI_S2_IPA  0x2a
#define SMMU_CMDQ_OP_SYNC         0x46
#define SMMU_CMDQ_NR_OPCODES      256

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
    bool range;       /* TLBI carrying range fields (TG != 0) */
    uint8_t tg;
    uint8_t num;      /* CMD_NUM: pages - 1 (in units of 2^scale) */
    uint8_t scale;
} SMMUCmdqCmdInfo;

typedef struct SMMUCmdqStats {
    uint64_t retired;           /* commands executed */
    uint64_t syncs;             /* CMD_SYNCs among them */
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
    uint64_t opcodes[SMMU_CMDQ_NR_OPCODES];
} SMMUCmdqStats;

uint64_t smmu_cmdq_prng_next(SMMUCmdqPrng *p);
void smmu_cmdq_prng_seed(SMMUCmdqPrng *p, uint64_t seed);
/* Uniform in 0..bound-1 (0 when bound is 0) */
uint64_t smmu_cmdq_prng_below(SMMUCmdqPrng *p, uint64_t bound);

SMMUCmdqClass smmu_cmdq_classify(uint8_t opcode);

/* Does any cost make the queue timed?  (All zero: upstream behaviour.) */
bool smmu_cmdq_costs_timed(const SMMUCmdqCosts *c);

/*
 * Pages a TLBI by address covers: (NUM + 1) << SCALE with range fields
 * honoured (ril), 1 otherwise.  Saturates at UINT64_MAX.
 */
uint64_t smmu_cmdq_tlbi_pages(const SMMUCmdqCmdInfo *cmd, bool ril);

/*
 * Cost of one command in ns, drawing its jitter from @prng (only when
 * jitter_ns is non-zero, so the sequence does not move otherwise).
 * Saturating: never wraps however large the properties are.
 */
uint64_t smmu_cmdq_cost(const SMMUCmdqCosts *c, SMMUCmdqPrng *prng,
                        const SMMUCmdqCmdInfo *cmd, bool ril);

/* start + cost, saturating at INT64_MAX (QEMU's clocks are int64_t) */
int64_t smmu_cmdq_retire_time(int64_t start, uint64_t cost);

/*
 * Queue index arithmetic: PROD/CONS hold an index in bits [log2size-1:0]
 * and the wrap flag in bit log2size.
 */
uint32_t smmu_cmdq_pending(uint32_t prod, uint32_t cons, uint8_t log2size);
bool smmu_cmdq_is_full(uint32_t prod, uint32_t cons, uint8_t log2size);
uint32_t smmu_cmdq_index_incr(uint32_t idx, uint8_t log2size);

void smmu_cmdq_stats_reset(SMMUCmdqStats *st);
/*
 * Count one executed command (@pages: pages a TLBI by address covered,
 * 0 for other commands): all the accounting of the untimed path.
 */
void smmu_cmdq_stats_count(SMMUCmdqStats *st, uint8_t opcode, uint64_t pages);
/*
 * Account one retired command: @queued_ns the time from visibility to start
 * of work, @wait_ns from visibility to retirement.
 */
void smmu_cmdq_stats_retire(SMMUCmdqStats *st, const SMMUCmdqCmdInfo *cmd,
                            uint64_t queued_ns, uint64_t cost_ns,
                            uint64_t wait_ns, uint64_t pages);
void smmu_cmdq_stats_pending(SMMUCmdqStats *st, uint32_t pending);

#endif /* HW_ARM_SMMUV3_CMDQ_TIMING_H */
