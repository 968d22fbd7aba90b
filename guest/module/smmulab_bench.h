/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * smmulab_bench: DMA map/unmap stress through the IOMMU, with latency
 * histograms.  Shared by the kernel module and the guest's init (ABI), and
 * by the host unit test of the histogram.
 */
#ifndef SMMULAB_BENCH_H
#define SMMULAB_BENCH_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/ioctl.h>
#include <linux/bitops.h>
#define smmulab_fls64(x) fls64(x)
#else
#include <stdint.h>
#include <sys/ioctl.h>
typedef uint32_t __u32;
typedef uint64_t __u64;
static inline int smmulab_fls64(__u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}
#endif

#define SMMULAB_BENCH_MAX_THREADS	64

enum smmulab_bench_mode {
	SMMULAB_BENCH_MAP_UNMAP = 0,	/* map + unmap one buffer, repeatedly */
	SMMULAB_BENCH_UNMAP_STORM = 1,	/* map TOTAL in SIZE chunks, unmap all */
	SMMULAB_BENCH_ASID_FLUSH = 2,	/* flush the domain's IOTLB, repeatedly */
};

/*
 * Latency histogram: exact below 64 ns, then 32 buckets per power of two
 * (at most 1/32 = 3% above the true value when a bucket's top is reported).
 */
#define SMMULAB_HIST_LINEAR	64
#define SMMULAB_HIST_SUB	32
#define SMMULAB_HIST_BUCKETS	(SMMULAB_HIST_LINEAR + (64 - 6) * SMMULAB_HIST_SUB)

static inline unsigned int smmulab_hist_index(__u64 ns)
{
	int e;

	if (ns < SMMULAB_HIST_LINEAR)
		return ns;
	e = smmulab_fls64(ns) - 1;	/* >= 6 */
	return SMMULAB_HIST_LINEAR + (e - 6) * SMMULAB_HIST_SUB +
	       ((ns >> (e - 5)) & (SMMULAB_HIST_SUB - 1));
}

/* Largest value that falls in bucket @idx */
static inline __u64 smmulab_hist_top(unsigned int idx)
{
	unsigned int e, sub;

	if (idx < SMMULAB_HIST_LINEAR)
		return idx;
	e = (idx - SMMULAB_HIST_LINEAR) / SMMULAB_HIST_SUB + 6;
	sub = (idx - SMMULAB_HIST_LINEAR) % SMMULAB_HIST_SUB;
	return (((__u64)SMMULAB_HIST_SUB + sub) << (e - 5)) +
	       ((1ULL << (e - 5)) - 1);
}

struct smmulab_bench_params {
	__u32 mode;		/* enum smmulab_bench_mode */
	__u32 threads;		/* 1..SMMULAB_BENCH_MAX_THREADS */
	__u32 seconds;		/* 1..3600 */
	__u32 size;		/* bytes per mapping: 4 KiB .. 64 MiB */
	__u64 total;		/* unmap-storm: bytes mapped before unmapping */
	__u64 hist_map;		/* user pointer: __u64[SMMULAB_HIST_BUCKETS] */
	__u64 hist_unmap;	/* user pointer: __u64[SMMULAB_HIST_BUCKETS] */
	__u64 seed;		/* 0, or each thread starts after a delay */
	__u64 reserved[3];
};

struct smmulab_bench_result {
	__u64 elapsed_ns;
	__u64 ops[SMMULAB_BENCH_MAX_THREADS];	/* map+unmap pairs per thread */
	__u64 map_sum_ns, map_max_ns, unmap_sum_ns, unmap_max_ns;
	__u64 errors;		/* failed maps, counted and skipped */
	__u64 reserved[7];
	/* Per thread: fastest and slowest map and unmap (0: none) */
	__u64 map_min[SMMULAB_BENCH_MAX_THREADS];
	__u64 map_max[SMMULAB_BENCH_MAX_THREADS];
	__u64 unmap_min[SMMULAB_BENCH_MAX_THREADS];
	__u64 unmap_max[SMMULAB_BENCH_MAX_THREADS];
};

struct smmulab_bench_args {
	struct smmulab_bench_params params;
	struct smmulab_bench_result result;
};

#define SMMULAB_BENCH_RUN	_IOWR('s', 1, struct smmulab_bench_args)

#endif /* SMMULAB_BENCH_H */
