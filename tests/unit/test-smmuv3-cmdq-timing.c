/*
 * Host unit tests of hw/arm/smmuv3-cmdq-timing.c (no QEMU needed)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/arm/smmuv3-cmdq-timing.h"

/* Opcodes as the device classifies them (hw/arm/smmuv3-cmdq.c) */
static SMMUCmdqCmdInfo cmd(uint8_t opcode)
{
    SMMUCmdqCmdInfo c = { .opcode = opcode, .cls = SMMU_CMDQ_CLASS_OTHER };

    switch (opcode) {
    case 0x46:
        c.cls = SMMU_CMDQ_CLASS_SYNC;
        break;
    case 0x03:
        c.cls = SMMU_CMDQ_CLASS_CFGI;
        break;
    case 0x12:
        c.cls = SMMU_CMDQ_CLASS_TLBI_ADDR;
        break;
    }
    return c;
}

static SMMUCmdqCmdInfo tlbi_range(uint8_t num, uint8_t scale)
{
    SMMUCmdqCmdInfo c = {
        .opcode = 0x12, .cls = SMMU_CMDQ_CLASS_TLBI_ADDR, .range = true,
        .tg = 1, .num = num, .scale = scale,
    };

    return c;
}

/* SplitMix64 reference values for seed 0 (Vigna's splitmix64.c) */
static void test_prng_reference(void)
{
    SMMUCmdqPrng p;

    smmu_cmdq_prng_seed(&p, 0);
    g_assert_cmphex(smmu_cmdq_prng_next(&p), ==, 0xe220a8397b1dcdafULL);
    g_assert_cmphex(smmu_cmdq_prng_next(&p), ==, 0x6e789e6aa1b965f4ULL);
    g_assert_cmphex(smmu_cmdq_prng_next(&p), ==, 0x06c45d188009454fULL);
}

static void test_prng_same_seed(void)
{
    SMMUCmdqPrng a, b, c;
    bool differ = false;
    int i;

    smmu_cmdq_prng_seed(&a, 42);
    smmu_cmdq_prng_seed(&b, 42);
    smmu_cmdq_prng_seed(&c, 43);
    for (i = 0; i < 1000; i++) {
        uint64_t x = smmu_cmdq_prng_next(&a);

        g_assert_cmpuint(x, ==, smmu_cmdq_prng_next(&b));
        differ |= x != smmu_cmdq_prng_next(&c);
    }
    g_assert_true(differ);
}

static void test_prng_below(void)
{
    SMMUCmdqPrng p;
    unsigned hist[10] = { 0 };
    int i;

    smmu_cmdq_prng_seed(&p, 7);
    g_assert_cmpuint(smmu_cmdq_prng_below(&p, 0), ==, 0);
    g_assert_cmpuint(smmu_cmdq_prng_below(&p, 1), ==, 0);
    for (i = 0; i < 100000; i++) {
        uint64_t v = smmu_cmdq_prng_below(&p, 10);

        g_assert_cmpuint(v, <, 10);
        hist[v]++;
    }
    /* uniform: each bucket within 5% of 10000 */
    for (i = 0; i < 10; i++) {
        g_assert_cmpuint(hist[i], >, 9500);
        g_assert_cmpuint(hist[i], <, 10500);
    }
    /* the largest bound works and stays in range */
    for (i = 0; i < 100; i++) {
        g_assert_cmpuint(smmu_cmdq_prng_below(&p, UINT64_MAX), <, UINT64_MAX);
    }
}

static void test_cost_kinds(void)
{
    SMMUCmdqCosts c = {
        .cmd_ns = 1000, .sync_ns = 200, .cfgi_ns = 30, .tlbi_page_ns = 4,
    };
    SMMUCmdqPrng p;
    SMMUCmdqCmdInfo sync = cmd(0x46), cfgi = cmd(0x03), va = cmd(0x12);
    SMMUCmdqCmdInfo other = cmd(0x11), rng = tlbi_range(3, 2);

    smmu_cmdq_prng_seed(&p, 0);
    g_assert_true(smmu_cmdq_costs_timed(&c));
    g_assert_cmpuint(smmu_cmdq_cost(&c, &p, &sync, true), ==, 1200);
    g_assert_cmpuint(smmu_cmdq_cost(&c, &p, &cfgi, true), ==, 1030);
    g_assert_cmpuint(smmu_cmdq_cost(&c, &p, &va, true), ==, 1004);
    g_assert_cmpuint(smmu_cmdq_cost(&c, &p, &other, true), ==, 1000);
    /* (NUM + 1) << SCALE = 4 << 2 = 16 pages with RIL, 1 without */
    g_assert_cmpuint(smmu_cmdq_cost(&c, &p, &rng, true), ==, 1000 + 16 * 4);
    g_assert_cmpuint(smmu_cmdq_cost(&c, &p, &rng, false), ==, 1000 + 4);
    /* no jitter: the generator does not move */
    g_assert_cmpuint(p.state, ==, 0);
}

static void test_tlbi_pages(void)
{
    SMMUCmdqCmdInfo va = cmd(0x12);
    SMMUCmdqCmdInfo r0 = tlbi_range(0, 0), rmax = tlbi_range(31, 31);

    g_assert_cmpuint(smmu_cmdq_tlbi_pages(&va, true), ==, 1);
    g_assert_cmpuint(smmu_cmdq_tlbi_pages(&r0, true), ==, 1);
    g_assert_cmpuint(smmu_cmdq_tlbi_pages(&rmax, true), ==, 32ULL << 31);
    g_assert_cmpuint(smmu_cmdq_tlbi_pages(&rmax, false), ==, 1);
}

static void test_cost_jitter(void)
{
    SMMUCmdqCosts c = { .cmd_ns = 100, .jitter_ns = 50 };
    SMMUCmdqCmdInfo x = cmd(0x46);
    SMMUCmdqPrng p, q;
    uint64_t min = UINT64_MAX, max = 0;
    int i;

    g_assert_true(smmu_cmdq_costs_timed(&c));
    smmu_cmdq_prng_seed(&p, 1234);
    smmu_cmdq_prng_seed(&q, 1234);
    for (i = 0; i < 10000; i++) {
        uint64_t a = smmu_cmdq_cost(&c, &p, &x, true);

        g_assert_cmpuint(a, ==, smmu_cmdq_cost(&c, &q, &x, true));
        min = MIN(min, a);
        max = MAX(max, a);
    }
    g_assert_cmpuint(min, ==, 100);
    g_assert_cmpuint(max, ==, 149);
}

static void test_cost_saturates(void)
{
    SMMUCmdqCosts c = {
        .cmd_ns = UINT64_MAX - 10, .sync_ns = 100,
        .tlbi_page_ns = UINT64_MAX / 2, .jitter_ns = UINT64_MAX,
    };
    SMMUCmdqCmdInfo sync = cmd(0x46), rng = tlbi_range(31, 31);
    SMMUCmdqPrng p;
    SMMUCmdqCosts zero = { 0 };

    smmu_cmdq_prng_seed(&p, 0);
    g_assert_false(smmu_cmdq_costs_timed(&zero));
    g_assert_cmpuint(smmu_cmdq_cost(&c, &p, &sync, true), ==, UINT64_MAX);
    g_assert_cmpuint(smmu_cmdq_cost(&c, &p, &rng, true), ==, UINT64_MAX);
}

static void test_retire_time(void)
{
    g_assert_cmpint(smmu_cmdq_retire_time(0, 0), ==, 0);
    g_assert_cmpint(smmu_cmdq_retire_time(1000, 50000), ==, 51000);
    g_assert_cmpint(smmu_cmdq_retire_time(INT64_MAX - 5, 5), ==, INT64_MAX);
    g_assert_cmpint(smmu_cmdq_retire_time(INT64_MAX - 5, 6), ==, INT64_MAX);
    g_assert_cmpint(smmu_cmdq_retire_time(1, UINT64_MAX), ==, INT64_MAX);
    g_assert_cmpint(smmu_cmdq_retire_time(INT64_MAX, 0), ==, INT64_MAX);
}

static void test_stats(void)
{
    SMMUCmdqStats st;
    SMMUCmdqCmdInfo sync = cmd(0x46), va = cmd(0x12);

    smmu_cmdq_stats_reset(&st);
    smmu_cmdq_stats_retire(&st, &va, 0, 50000, 50000, 1);
    smmu_cmdq_stats_retire(&st, &sync, 50000, 50000, 100000, 0);
    smmu_cmdq_stats_retire(&st, &sync, 10, 70, 80, 0);
    smmu_cmdq_stats_pending(&st, 2);
    smmu_cmdq_stats_pending(&st, 1);
    g_assert_cmpuint(smmu_cmdq_stats_retired(&st), ==, 3);
    g_assert_cmpuint(st.opcodes[0x46], ==, 2);
    g_assert_cmpuint(st.opcodes[0x12], ==, 1);
    g_assert_cmpuint(st.max_sync_wait_ns, ==, 100000);
    g_assert_cmpuint(st.total_sync_wait_ns, ==, 100080);
    g_assert_cmpuint(st.max_queued_ns, ==, 50000);
    g_assert_cmpuint(st.busy_ns, ==, 100070);
    g_assert_cmpuint(st.tlbi_pages, ==, 1);
    g_assert_cmpuint(st.max_pending, ==, 2);
}

/* The untimed path's accounting agrees with the timed one's */
static void test_stats_count(void)
{
    SMMUCmdqStats a, b;
    SMMUCmdqCmdInfo sync = cmd(0x46), rng = tlbi_range(3, 2), cfgi = cmd(0x03);

    smmu_cmdq_stats_reset(&a);
    smmu_cmdq_stats_reset(&b);
    smmu_cmdq_stats_count(&a, &sync, 0);
    smmu_cmdq_stats_count(&a, &rng, 16);
    smmu_cmdq_stats_count(&a, &cfgi, 0);
    smmu_cmdq_stats_retire(&b, &sync, 0, 0, 0, 0);
    smmu_cmdq_stats_retire(&b, &rng, 0, 0, 0, 16);
    smmu_cmdq_stats_retire(&b, &cfgi, 0, 0, 0, 0);
    g_assert_cmpmem(&a, sizeof(a), &b, sizeof(b));
    g_assert_cmpuint(smmu_cmdq_stats_retired(&a), ==, 3);
    g_assert_cmpuint(a.opcodes[0x46], ==, 1);
    g_assert_cmpuint(a.tlbi_pages, ==, 16);
    g_assert_cmpuint(a.opcodes[0x03], ==, 1);
}

/* Lateness: counted only when late, mean over every retirement */
static void test_stats_late(void)
{
    SMMUCmdqStats st;
    SMMUCmdqCmdInfo sync = cmd(0x46);
    int i;

    smmu_cmdq_stats_reset(&st);
    g_assert_cmpuint(smmu_cmdq_stats_late_mean(&st), ==, 0);
    for (i = 0; i < 4; i++) {
        smmu_cmdq_stats_retire(&st, &sync, 0, 0, 0, 0);
    }
    smmu_cmdq_stats_late(&st, 0);
    smmu_cmdq_stats_late(&st, 0);
    smmu_cmdq_stats_late(&st, 3000);
    smmu_cmdq_stats_late(&st, 1000);
    g_assert_cmpuint(st.late_retired, ==, 2);
    g_assert_cmpuint(st.late_max_ns, ==, 3000);
    g_assert_cmpuint(smmu_cmdq_stats_late_mean(&st), ==, 1000);
}

/* Visibility FIFO: PROD writes in, retirements out, in order */
static void test_vis_fifo(void)
{
    SMMUCmdqVis v = { 0 };
    int i;

    g_assert_cmpint(smmu_cmdq_vis_front(&v, -7), ==, -7);
    smmu_cmdq_vis_pop(&v);                  /* empty: nothing happens */
    g_assert_cmpuint(v.total, ==, 0);
    smmu_cmdq_vis_sync(&v, 2, 100, true);   /* 2 visible at 100 */
    smmu_cmdq_vis_sync(&v, 2, 150, true);   /* nothing new */
    smmu_cmdq_vis_sync(&v, 5, 200, true);   /* 3 more at 200 */
    g_assert_cmpuint(v.len, ==, 2);
    g_assert_cmpuint(v.total, ==, 5);
    g_assert_cmpint(smmu_cmdq_vis_front(&v, -1), ==, 100);
    smmu_cmdq_vis_pop(&v);
    g_assert_cmpint(smmu_cmdq_vis_front(&v, -1), ==, 100);
    smmu_cmdq_vis_pop(&v);
    g_assert_cmpint(smmu_cmdq_vis_front(&v, -1), ==, 200);
    g_assert_cmpuint(v.len, ==, 1);
    /* two writes at one instant share an entry */
    smmu_cmdq_vis_sync(&v, 4, 300, true);
    smmu_cmdq_vis_sync(&v, 6, 300, true);
    g_assert_cmpuint(v.len, ==, 2);
    /* PROD moved back by 3: the newest go; CONS forward by 2: the oldest */
    smmu_cmdq_vis_sync(&v, 3, 400, true);
    g_assert_cmpuint(v.len, ==, 1);
    g_assert_cmpuint(v.total, ==, 3);
    smmu_cmdq_vis_sync(&v, 1, 400, false);
    g_assert_cmpuint(v.total, ==, 1);
    g_assert_cmpint(smmu_cmdq_vis_front(&v, -1), ==, 200);
    smmu_cmdq_vis_clear(&v);
    g_assert_cmpuint(v.total, ==, 0);

    /* Many writes of one command each: the ring grows and wraps */
    for (i = 0; i < 1000; i++) {
        smmu_cmdq_vis_sync(&v, v.total + 1, i, true);
        if (i % 3 == 2) {
            smmu_cmdq_vis_pop(&v);
        }
    }
    g_assert_cmpuint(v.len, ==, 1000 - 333);
    g_assert_cmpint(smmu_cmdq_vis_front(&v, -1), ==, 333);
    smmu_cmdq_vis_free(&v);
}

/* What migration sends and loads: entries in order, ring rebuilt */
static void test_vis_migrate(void)
{
    SMMUCmdqVis v = { 0 }, w = { 0 };
    int i;

    for (i = 0; i < 40; i++) {
        smmu_cmdq_vis_sync(&v, v.total + 2, i * 10, true);
        if (i < 30) {
            smmu_cmdq_vis_pop(&v);
            smmu_cmdq_vis_pop(&v);
        }
    }
    g_assert_cmpuint(v.head, !=, 0);
    smmu_cmdq_vis_linearize(&v);
    g_assert_cmpuint(v.head, ==, 0);
    g_assert_cmpuint(v.len, ==, 10);
    w.len = v.len;
    w.b = g_memdup2(v.b, v.len * sizeof(*v.b));
    g_assert_true(smmu_cmdq_vis_loaded(&w));
    g_assert_cmpuint(w.total, ==, 20);
    for (i = 30; i < 40; i++) {
        g_assert_cmpint(smmu_cmdq_vis_front(&w, -1), ==, i * 10);
        smmu_cmdq_vis_pop(&w);
        smmu_cmdq_vis_pop(&w);
    }
    g_assert_cmpuint(w.total, ==, 0);
    /* a record of no command is refused */
    w.len = 1;
    w.b[0].n = 0;
    g_assert_false(smmu_cmdq_vis_loaded(&w));
    smmu_cmdq_vis_free(&v);
    smmu_cmdq_vis_free(&w);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/smmuv3-cmdq-timing/prng/reference", test_prng_reference);
    g_test_add_func("/smmuv3-cmdq-timing/prng/same-seed", test_prng_same_seed);
    g_test_add_func("/smmuv3-cmdq-timing/prng/below", test_prng_below);
    g_test_add_func("/smmuv3-cmdq-timing/cost/kinds", test_cost_kinds);
    g_test_add_func("/smmuv3-cmdq-timing/cost/tlbi-pages", test_tlbi_pages);
    g_test_add_func("/smmuv3-cmdq-timing/cost/jitter", test_cost_jitter);
    g_test_add_func("/smmuv3-cmdq-timing/cost/saturates", test_cost_saturates);
    g_test_add_func("/smmuv3-cmdq-timing/retire-time", test_retire_time);
    g_test_add_func("/smmuv3-cmdq-timing/stats", test_stats);
    g_test_add_func("/smmuv3-cmdq-timing/stats-count", test_stats_count);
    g_test_add_func("/smmuv3-cmdq-timing/stats-late", test_stats_late);
    g_test_add_func("/smmuv3-cmdq-timing/vis/fifo", test_vis_fifo);
    g_test_add_func("/smmuv3-cmdq-timing/vis/migrate", test_vis_migrate);
    return g_test_run();
}
