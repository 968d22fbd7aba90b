/*
 * SMMUv3 command queue timing: the arithmetic of smmulab's slow CMDQ model
 *
 * No QEMU headers here on purpose: tests/unit/test-smmuv3-cmdq-timing.c
 * builds this file on the host with plain GLib.
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <string.h>

#include "hw/arm/smmuv3-cmdq-timing.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a) {
        return UINT64_MAX;
    }
    return a * b;
}

void smmu_cmdq_prng_seed(SMMUCmdqPrng *p, uint64_t seed)
{
    p->state = seed;
}

uint64_t smmu_cmdq_prng_next(SMMUCmdqPrng *p)
{
    uint64_t z = (p->state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t smmu_cmdq_prng_below(SMMUCmdqPrng *p, uint64_t bound)
{
    uint64_t threshold, r;

    if (bound == 0) {
        return 0;
    }
    /* Rejection sampling: no modulo bias, and still one draw in practice */
    threshold = -bound % bound;
    do {
        r = smmu_cmdq_prng_next(p);
    } while (r < threshold);
    return r % bound;
}

SMMUCmdqClass smmu_cmdq_classify(uint8_t opcode)
{
    switch (opcode) {
    case SMMU_CMDQ_OP_SYNC:
        return SMMU_CMDQ_CLASS_SYNC;
    case SMMU_CMDQ_OP_TLBI_NH_VA:
    case SMMU_CMDQ_OP_TLBI_NH_VAA:
    case SMMU_CMDQ_OP_TLBI_EL3_VA:
    case SMMU_CMDQ_OP_TLBI_EL2_VA:
    case SMMU_CMDQ_OP_TLBI_EL2_VAA:
    case SMMU_CMDQ_OP_TLBI_S2_IPA:
        return SMMU_CMDQ_CLASS_TLBI_ADDR;
    default:
        if (opcode >= SMMU_CMDQ_OP_CFGI_FIRST &&
            opcode <= SMMU_CMDQ_OP_CFGI_LAST) {
            return SMMU_CMDQ_CLASS_CFGI;
        }
        return SMMU_CMDQ_CLASS_OTHER;
    }
}

bool smmu_cmdq_costs_timed(const SMMUCmdqCosts *c)
{
    return c->cmd_ns || c->sync_ns || c->cfgi_ns || c->tlbi_page_ns ||
           c->jitter_ns;
}

uint64_t smmu_cmdq_tlbi_pages(const SMMUCmdqCmdInfo *cmd, bool ril)
{
    if (!cmd->range || !ril) {
        return 1;
    }
    /* NUM is 5 bits and SCALE 5 bits: at most 32 << 31, no overflow */
    return ((uint64_t)cmd->num + 1) << cmd->scale;
}

uint64_t smmu_cmdq_cost(const SMMUCmdqCosts *c, SMMUCmdqPrng *prng,
                        const SMMUCmdqCmdInfo *cmd, bool ril)
{
    uint64_t cost = c->cmd_ns;

    switch (smmu_cmdq_classify(cmd->opcode)) {
    case SMMU_CMDQ_CLASS_SYNC:
        cost = sat_add(cost, c->sync_ns);
        break;
    case SMMU_CMDQ_CLASS_CFGI:
        cost = sat_add(cost, c->cfgi_ns);
        break;
    case SMMU_CMDQ_CLASS_TLBI_ADDR:
        cost = sat_add(cost, sat_mul(c->tlbi_page_ns,
                                     smmu_cmdq_tlbi_pages(cmd, ril)));
        break;
    default:
        break;
    }
    if (c->jitter_ns) {
        cost = sat_add(cost, smmu_cmdq_prng_below(prng, c->jitter_ns));
    }
    return cost;
}

int64_t smmu_cmdq_retire_time(int64_t start, uint64_t cost)
{
    if (start < 0) {
        start = 0;
    }
    if (cost > (uint64_t)(INT64_MAX - start)) {
        return INT64_MAX;
    }
    return start + (int64_t)cost;
}

uint32_t smmu_cmdq_pending(uint32_t prod, uint32_t cons, uint8_t log2size)
{
    uint32_t idx_mask = (1U << log2size) - 1;
    uint32_t wrap_mask = 1U << log2size;
    uint32_t p = prod & idx_mask, c = cons & idx_mask;

    if ((prod & wrap_mask) == (cons & wrap_mask)) {
        return p >= c ? p - c : 0;
    }
    return (1U << log2size) - c + p;
}

bool smmu_cmdq_is_full(uint32_t prod, uint32_t cons, uint8_t log2size)
{
    return smmu_cmdq_pending(prod, cons, log2size) >= (1U << log2size);
}

uint32_t smmu_cmdq_index_incr(uint32_t idx, uint8_t log2size)
{
    uint32_t mask = (1U << (log2size + 1)) - 1;

    return (idx & ~mask) | ((idx + 1) & mask);
}

void smmu_cmdq_stats_reset(SMMUCmdqStats *st)
{
    memset(st, 0, sizeof(*st));
}

void smmu_cmdq_stats_count(SMMUCmdqStats *st, uint8_t opcode, uint64_t pages)
{
    st->retired++;
    st->opcodes[opcode]++;
    if (opcode == SMMU_CMDQ_OP_SYNC) {
        st->syncs++;
    }
    st->tlbi_pages = sat_add(st->tlbi_pages, pages);
}

void smmu_cmdq_stats_retire(SMMUCmdqStats *st, const SMMUCmdqCmdInfo *cmd,
                            uint64_t queued_ns, uint64_t cost_ns,
                            uint64_t wait_ns, uint64_t pages)
{
    smmu_cmdq_stats_count(st, cmd->opcode, pages);
    st->busy_ns = sat_add(st->busy_ns, cost_ns);
    if (queued_ns > st->max_queued_ns) {
        st->max_queued_ns = queued_ns;
    }
    if (cmd->opcode == SMMU_CMDQ_OP_SYNC) {
        st->total_sync_wait_ns = sat_add(st->total_sync_wait_ns, wait_ns);
        if (wait_ns > st->max_sync_wait_ns) {
            st->max_sync_wait_ns = wait_ns;
        }
    }
}

void smmu_cmdq_stats_pending(SMMUCmdqStats *st, uint32_t pending)
{
    if (pending > st->max_pending) {
        st->max_pending = pending;
    }
}
