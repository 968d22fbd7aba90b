/* SPDX-License-Identifier: GPL-2.0-only */
/* Percentiles of smmulab_bench latency histograms (guest and host tests). */
#ifndef SMMULAB_HIST_H
#define SMMULAB_HIST_H

#include <stdint.h>

/* Total count of a histogram of SMMULAB_HIST_BUCKETS buckets */
uint64_t hist_count(const uint64_t *hist);

/*
 * The @per_mille-th per-mille (500 = median, 990 = p99, 999 = p99.9): the
 * top of the first bucket whose cumulative count reaches ceil(count * p),
 * never above @max (the exact largest sample).  0 for an empty histogram.
 */
uint64_t hist_percentile(const uint64_t *hist, unsigned int per_mille,
			 uint64_t max);

#endif
