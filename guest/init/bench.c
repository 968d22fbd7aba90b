// SPDX-License-Identifier: GPL-2.0-only
/*
 * smmulab guest init: the "map-unmap" and "unmap-storm" workloads, run by
 * the project's smmulab_bench module (guest/module/).
 *
 * map-unmap    smmulab.threads (default: one per CPU), smmulab.seconds,
 *              smmulab.size (bytes per mapping, K/M/G suffixes; 4K)
 * unmap-storm  the same, with smmulab.size the chunk (default 2M) and
 *              smmulab.total what each thread maps before unmapping it all
 *              (default 64M)
 * asid-flush   smmulab.threads, smmulab.seconds: every thread flushes the
 *              device's whole IOTLB (TLBI by ASID + CMD_SYNC) in a loop;
 *              a flush is an op, its latency is reported as unmap_*
 *
 * All three: smmulab.seed (the runner gives every repeat its own) starts
 * each thread after a pseudo-random 0..999 us drawn from it; 0 (default)
 * starts them at once.
 *
 * Results: ops/s in total and per thread, and the latency mean, p50, p99,
 * p99.9 and max of map and of unmap.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "smmulab-guest.h"
#include "hist.h"
#include "../module/smmulab_bench.h"

#define BENCH_MODULE "/lib/modules/smmulab_bench.ko"
#define BENCH_DEBUGFS "/sys/kernel/debug/smmulab_bench"

static void load_module(void)
{
	int fd;

	if (access(BENCH_DEBUGFS, F_OK) == 0)
		return;
	fd = open(BENCH_MODULE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		skip("this workload needs the smmulab_bench module, and %s is missing",
		     BENCH_MODULE);
	if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST) {
		int err = errno;

		close(fd);
		skip("this workload needs the smmulab_bench module, which this kernel refuses: %s (build guest/module against your kernel)",
		     strerror(err));
	}
	close(fd);
}

static void print_latency(const char *what, const uint64_t *hist,
			  uint64_t sum, uint64_t max)
{
	uint64_t n = hist_count(hist);

	printf(" %s_mean_ns=%llu %s_p50_ns=%llu %s_p99_ns=%llu %s_p999_ns=%llu %s_max_ns=%llu",
	       what, (unsigned long long)(n ? sum / n : 0),
	       what, (unsigned long long)hist_percentile(hist, 500, max),
	       what, (unsigned long long)hist_percentile(hist, 990, max),
	       what, (unsigned long long)hist_percentile(hist, 999, max),
	       what, (unsigned long long)max);
}

/*
 * The whole histogram, for latency distributions on the host: the non-empty
 * buckets as INDEX:COUNT (smmulab_bench.h gives each bucket's range).
 */
static void print_hist(const char *name, const char *what,
		       const uint64_t *hist)
{
	unsigned int i;
	int any = 0;

	printf("RESULT workload=%s hist=%s buckets=", name, what);
	for (i = 0; i < SMMULAB_HIST_BUCKETS; i++) {
		if (hist[i]) {
			printf("%s%u:%llu", any ? "," : "", i,
			       (unsigned long long)hist[i]);
			any = 1;
		}
	}
	printf("%s\n", any ? "" : "-");
}

static void run_bench(const char *name, uint32_t mode)
{
	static uint64_t hist_map[SMMULAB_HIST_BUCKETS];
	static uint64_t hist_unmap[SMMULAB_HIST_BUCKETS];
	struct smmulab_bench_args a;
	struct smmulab_bench_params *p = &a.params;
	struct smmulab_bench_result *r = &a.result;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t total_ops = 0, min_ops = UINT64_MAX, max_ops = 0;
	double secs;
	unsigned int i;
	int fd;

	memset(&a, 0, sizeof(a));
	p->mode = mode;
	p->threads = param_ulong("threads", cpus > 0 ? cpus : 1, 1,
				 SMMULAB_BENCH_MAX_THREADS);
	p->seconds = param_ulong("seconds", 5, 1, 3600);
	p->size = mode == SMMULAB_BENCH_ASID_FLUSH ? 4096 :
		  param_size("size", mode == SMMULAB_BENCH_UNMAP_STORM ?
			     2 << 20 : 4096, 4096, 64 << 20);
	if (p->size % 4096)
		fail("smmulab.size=%u is not a multiple of 4K", p->size);
	if (mode == SMMULAB_BENCH_UNMAP_STORM) {
		p->total = param_size("total", 64 << 20, p->size, 64ULL << 30);
		if (p->total / p->size > 65536)
			fail("smmulab.total/smmulab.size is over 65536 chunks");
	}
	p->seed = param_ulong("seed", 0, 0, ULONG_MAX);
	p->hist_map = (uintptr_t)hist_map;
	p->hist_unmap = (uintptr_t)hist_unmap;

	load_module();
	pci_bench_device("smmulab_bench");
	fd = open(BENCH_DEBUGFS, O_RDWR);
	if (fd < 0)
		fail("open %s: %s", BENCH_DEBUGFS, strerror(errno));
	if (mode == SMMULAB_BENCH_ASID_FLUSH)
		info("%s: %u thread(s), %u s, whole-IOTLB flushes", name,
		     p->threads, p->seconds);
	else
		info("%s: %u thread(s), %u s, %u bytes per mapping%s", name,
		     p->threads, p->seconds, p->size,
		     mode == SMMULAB_BENCH_UNMAP_STORM ?
		     ", unmapped after all are mapped" : "");
	kernel_counters_report("-start");
	if (ioctl(fd, SMMULAB_BENCH_RUN, &a)) {
		if (errno == E2BIG)
			fail("%s: %u thread(s) of %u-byte mappings (%llu per thread) pin more than half of this guest's memory: use fewer threads, a smaller smmulab.size or smmulab.total, or more memory",
			     name, p->threads, p->size,
			     (unsigned long long)(p->total ? p->total / p->size : 1));
		fail("SMMULAB_BENCH_RUN: %s", strerror(errno));
	}
	close(fd);

	secs = r->elapsed_ns / 1e9;
	for (i = 0; i < p->threads; i++) {
		total_ops += r->ops[i];
		if (r->ops[i] < min_ops)
			min_ops = r->ops[i];
		if (r->ops[i] > max_ops)
			max_ops = r->ops[i];
		printf("RESULT workload=%s thread=%u ops=%llu ops_per_sec=%.1f",
		       name, i, (unsigned long long)r->ops[i], r->ops[i] / secs);
		if (mode != SMMULAB_BENCH_ASID_FLUSH)
			printf(" map_min_ns=%llu map_max_ns=%llu",
			       (unsigned long long)r->map_min[i],
			       (unsigned long long)r->map_max[i]);
		printf(" unmap_min_ns=%llu unmap_max_ns=%llu\n",
		       (unsigned long long)r->unmap_min[i],
		       (unsigned long long)r->unmap_max[i]);
	}
	printf("RESULT workload=%s threads=%u seconds=%u size=%u", name,
	       p->threads, p->seconds, p->size);
	if (mode == SMMULAB_BENCH_UNMAP_STORM)
		printf(" total=%llu chunks=%llu", (unsigned long long)p->total,
		       (unsigned long long)(p->total / p->size));
	printf(" elapsed_ns=%llu ops=%llu ops_per_sec=%.1f ops_per_thread_per_sec=%.1f min_thread_ops_per_sec=%.1f max_thread_ops_per_sec=%.1f errors=%llu",
	       (unsigned long long)r->elapsed_ns, (unsigned long long)total_ops,
	       total_ops / secs, total_ops / secs / p->threads,
	       min_ops / secs, max_ops / secs, (unsigned long long)r->errors);
	if (mode != SMMULAB_BENCH_ASID_FLUSH)
		print_latency("map", hist_map, r->map_sum_ns, r->map_max_ns);
	print_latency("unmap", hist_unmap, r->unmap_sum_ns, r->unmap_max_ns);
	printf("\n");
	if (mode != SMMULAB_BENCH_ASID_FLUSH)
		print_hist(name, "map", hist_map);
	print_hist(name, "unmap", hist_unmap);
	if (!total_ops)
		fail("%s completed no operation at all", name);
}

void workload_map_unmap(void)
{
	run_bench("map-unmap", SMMULAB_BENCH_MAP_UNMAP);
}

void workload_unmap_storm(void)
{
	run_bench("unmap-storm", SMMULAB_BENCH_UNMAP_STORM);
}

void workload_asid_flush(void)
{
	run_bench("asid-flush", SMMULAB_BENCH_ASID_FLUSH);
}
