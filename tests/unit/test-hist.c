/*
 * Host unit tests of the guest's latency histogram (guest/init/hist.c and
 * the bucket arithmetic of guest/module/smmulab_bench.h)
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include <glib.h>
#include <string.h>

#include "hist.h"
#include "../module/smmulab_bench.h"

static uint64_t hist[SMMULAB_HIST_BUCKETS];

static void add(uint64_t ns)
{
    hist[smmulab_hist_index(ns)]++;
}

/* Every value falls in a bucket whose top is >= it and within 1/32 */
static void test_buckets(void)
{
    uint64_t v;
    unsigned int i, last = 0;

    for (v = 0; v < 64; v++) {
        g_assert_cmpuint(smmulab_hist_index(v), ==, v);
        g_assert_cmpuint(smmulab_hist_top(v), ==, v);
    }
    for (v = 64; v < (1ULL << 40); v += v / 7 + 1) {
        i = smmulab_hist_index(v);
        g_assert_cmpuint(i, <, SMMULAB_HIST_BUCKETS);
        g_assert_cmpuint(i, >=, last);
        last = i;
        g_assert_cmpuint(smmulab_hist_top(i), >=, v);
        g_assert_cmpuint(smmulab_hist_top(i) - v, <=, v / 32);
        /* the bucket's top maps back to the bucket, one more to the next */
        g_assert_cmpuint(smmulab_hist_index(smmulab_hist_top(i)), ==, i);
        g_assert_cmpuint(smmulab_hist_index(smmulab_hist_top(i) + 1), ==, i + 1);
    }
    g_assert_cmpuint(smmulab_hist_index(UINT64_MAX), ==,
                     SMMULAB_HIST_BUCKETS - 1);
    g_assert_cmpuint(smmulab_hist_top(SMMULAB_HIST_BUCKETS - 1), ==,
                     UINT64_MAX);
}

static void test_percentiles(void)
{
    uint64_t v;

    memset(hist, 0, sizeof(hist));
    g_assert_cmpuint(hist_percentile(hist, 500, 0), ==, 0);
    /* 1..1000 ns */
    for (v = 1; v <= 1000; v++) {
        add(v);
    }
    g_assert_cmpuint(hist_count(hist), ==, 1000);
    /* true p50 = 500, p99 = 990, p99.9 = 999: buckets within 3% above */
    g_assert_cmpuint(hist_percentile(hist, 500, 1000), >=, 500);
    g_assert_cmpuint(hist_percentile(hist, 500, 1000), <=, 500 + 500 / 32);
    g_assert_cmpuint(hist_percentile(hist, 990, 1000), >=, 990);
    g_assert_cmpuint(hist_percentile(hist, 990, 1000), <=, 1000);
    g_assert_cmpuint(hist_percentile(hist, 999, 1000), >=, 999);
    g_assert_cmpuint(hist_percentile(hist, 999, 1000), <=, 1000);
    /* never above the exact max */
    g_assert_cmpuint(hist_percentile(hist, 1000, 1000), ==, 1000);
}

static void test_outlier(void)
{
    int i;

    memset(hist, 0, sizeof(hist));
    for (i = 0; i < 999; i++) {
        add(100);
    }
    add(5000000);
    /* 100 shares a 2 ns wide bucket with 101: its top is reported */
    g_assert_cmpuint(smmulab_hist_top(smmulab_hist_index(100)), ==, 101);
    g_assert_cmpuint(hist_percentile(hist, 500, 5000000), ==, 101);
    g_assert_cmpuint(hist_percentile(hist, 990, 5000000), ==, 101);
    g_assert_cmpuint(hist_percentile(hist, 999, 5000000), ==, 101);
    g_assert_cmpuint(hist_percentile(hist, 1000, 5000000), ==, 5000000);
    /* one sample: every percentile is it */
    memset(hist, 0, sizeof(hist));
    add(777);
    g_assert_cmpuint(hist_percentile(hist, 1, 777), ==, 777);
    g_assert_cmpuint(hist_percentile(hist, 999, 777), ==, 777);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/hist/buckets", test_buckets);
    g_test_add_func("/hist/percentiles", test_percentiles);
    g_test_add_func("/hist/outlier", test_outlier);
    return g_test_run();
}
