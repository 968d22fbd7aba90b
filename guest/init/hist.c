// SPDX-License-Identifier: GPL-2.0-only
/* Percentiles of smmulab_bench latency histograms. */
#include "hist.h"
#include "../module/smmulab_bench.h"

uint64_t hist_count(const uint64_t *hist)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < SMMULAB_HIST_BUCKETS; i++)
		n += hist[i];
	return n;
}

uint64_t hist_percentile(const uint64_t *hist, unsigned int per_mille,
			 uint64_t max)
{
	uint64_t n = hist_count(hist), want, cum = 0, top;
	unsigned int i;

	if (!n)
		return 0;
	/* ceil(n * p / 1000), at least 1 */
	want = (n * per_mille + 999) / 1000;
	if (!want)
		want = 1;
	for (i = 0; i < SMMULAB_HIST_BUCKETS; i++) {
		cum += hist[i];
		if (cum >= want) {
			top = smmulab_hist_top(i);
			return top < max ? top : max;
		}
	}
	return max;
}
