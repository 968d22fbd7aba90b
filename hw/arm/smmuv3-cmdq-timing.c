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

#include "qemu/osdep.h"
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

bool smmu_cmdq_costs_timed(const SMMUCmdqCosts *c)
{
    return c->cmd_ns || c->sync_ns || c->cfgi_ns || c->tlbi_page_ns ||
           c->jitter_ns;
}

uint64_t smmu_cmdq_cost(const SMMUCmdqCosts *c, SMMUCmdqPrng *prng,
                        const SMMUCmdqCmdInfo *cmd, bool ril)
{
    uint64_t cost = c->cmd_ns;

    switch (cmd->cls) {
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

void smmu_cmdq_stats_reset(SMMUCmdqStats *st)
{
    memset(st, 0, sizeof(*st));
}

void smmu_cmdq_stats_retire(SMMUCmdqStats *st, const SMMUCmdqCmdInfo *cmd,
                            uint64_t queued_ns, uint64_t cost_ns,
                            uint64_t wait_ns, uint64_t pages)
{
    smmu_cmdq_stats_count(st, cmd, pages);
    st->busy_ns = sat_add(st->busy_ns, cost_ns);
    if (queued_ns > st->max_queued_ns) {
        st->max_queued_ns = queued_ns;
    }
    if (cmd->cls == SMMU_CMDQ_CLASS_SYNC) {
        st->total_sync_wait_ns = sat_add(st->total_sync_wait_ns, wait_ns);
        if (wait_ns > st->max_sync_wait_ns) {
            st->max_sync_wait_ns = wait_ns;
        }
    }
}

void smmu_cmdq_stats_late(SMMUCmdqStats *st, uint64_t late_ns)
{
    if (late_ns) {
        st->late_retired++;
        st->late_total_ns = sat_add(st->late_total_ns, late_ns);
        if (late_ns > st->late_max_ns) {
            st->late_max_ns = late_ns;
        }
    }
}

uint64_t smmu_cmdq_stats_retired(const SMMUCmdqStats *st)
{
    uint64_t n = 0;
    int i;

    for (i = 0; i < SMMU_CMDQ_NR_OPCODES; i++) {
        n += st->opcodes[i];
    }
    return n;
}

uint64_t smmu_cmdq_stats_late_mean(const SMMUCmdqStats *st)
{
    uint64_t retired = smmu_cmdq_stats_retired(st);

    return retired ? st->late_total_ns / retired : 0;
}

void smmu_cmdq_vis_free(SMMUCmdqVis *v)
{
    g_free(v->b);
    memset(v, 0, sizeof(*v));
}

void smmu_cmdq_vis_clear(SMMUCmdqVis *v)
{
    v->head = v->len = 0;
    v->total = 0;
}

static SMMUCmdqVisBatch *vis_at(const SMMUCmdqVis *v, uint32_t i)
{
    return &v->b[(v->head + i) & (v->cap - 1)];
}

static void vis_push(SMMUCmdqVis *v, uint64_t n, int64_t now)
{
    SMMUCmdqVisBatch *last = v->len ? vis_at(v, v->len - 1) : NULL;

    /* n is at most a queue's worth (2^20), an entry holds 2^32 - 1 */
    if (last && last->ns == now && last->n <= UINT32_MAX - n) {
        last->n += n;
        v->total += n;
        return;
    }
    if (v->len == v->cap) {
        /* Double the ring (a power of two) and unwrap it */
        uint32_t cap = v->cap ? v->cap * 2 : 16;
        SMMUCmdqVisBatch *b = g_new(SMMUCmdqVisBatch, cap);
        uint32_t i;

        for (i = 0; i < v->len; i++) {
            b[i] = *vis_at(v, i);
        }
        g_free(v->b);
        v->b = b;
        v->cap = cap;
        v->head = 0;
    }
    v->len++;
    last = vis_at(v, v->len - 1);
    last->n = n;
    last->ns = now;
    v->total += n;
}

void smmu_cmdq_vis_sync(SMMUCmdqVis *v, uint64_t pending, int64_t now,
                        bool newest)
{
    if (pending > v->total) {
        vis_push(v, pending - v->total, now);
        return;
    }
    while (v->total > pending) {
        SMMUCmdqVisBatch *e = vis_at(v, newest ? v->len - 1 : 0);
        uint64_t drop = MIN(e->n, v->total - pending);

        e->n -= drop;
        v->total -= drop;
        if (!e->n) {
            if (!newest) {
                v->head = (v->head + 1) & (v->cap - 1);
            }
            v->len--;
        }
    }
}

int64_t smmu_cmdq_vis_front(const SMMUCmdqVis *v, int64_t dflt)
{
    return v->len ? vis_at(v, 0)->ns : dflt;
}

void smmu_cmdq_vis_pop(SMMUCmdqVis *v)
{
    SMMUCmdqVisBatch *e;

    if (!v->len) {
        return;
    }
    e = vis_at(v, 0);
    v->total--;
    if (!--e->n) {
        v->head = (v->head + 1) & (v->cap - 1);
        v->len--;
    }
}

void smmu_cmdq_vis_linearize(SMMUCmdqVis *v)
{
    SMMUCmdqVisBatch *b;
    uint32_t i;

    if (!v->head) {
        return;
    }
    b = g_new(SMMUCmdqVisBatch, v->cap);
    for (i = 0; i < v->len; i++) {
        b[i] = *vis_at(v, i);
    }
    g_free(v->b);
    v->b = b;
    v->head = 0;
}

bool smmu_cmdq_vis_loaded(SMMUCmdqVis *v)
{
    uint32_t i, cap = 16;

    v->head = 0;
    v->total = 0;
    for (i = 0; i < v->len; i++) {
        if (!v->b[i].n) {
            return false;
        }
        v->total += v->b[i].n;
    }
    /* The ring's capacity must be a power of two at least len */
    while (cap < v->len) {
        cap *= 2;
    }
    v->b = g_renew(SMMUCmdqVisBatch, v->b, cap);
    v->cap = cap;
    return true;
}
