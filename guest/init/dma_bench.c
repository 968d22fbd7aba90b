// SPDX-License-Identifier: GPL-2.0-only
/*
 * smmulab guest init: the "dma-bench" workload.
 *
 * Binds the kernel's dma_map_benchmark driver to a PCI device that sits
 * behind the SMMU (driver_override) and runs its ioctl, which maps and unmaps
 * GRANULE pages from THREADS kernel threads for SECONDS and reports the mean
 * and standard deviation of map and unmap latency.
 *
 * Parameters: smmulab.dev=BDF (default: the first virtio PCI device),
 * smmulab.threads, smmulab.seconds, smmulab.granule (pages).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "smmulab-guest.h"

/* ABI of Linux include/linux/map_benchmark.h (6.12) */
struct map_benchmark {
	uint64_t avg_map_100ns;
	uint64_t map_stddev;
	uint64_t avg_unmap_100ns;
	uint64_t unmap_stddev;
	uint32_t threads;
	uint32_t seconds;
	int32_t node;
	uint32_t dma_bits;
	uint32_t dma_dir;
	uint32_t dma_trans_ns;
	uint32_t granule;
	uint8_t expansion[76];
};
#define DMA_MAP_BENCHMARK _IOWR('d', 1, struct map_benchmark)

void workload_dma_bench(void)
{
	struct map_benchmark mb;
	const char *dev;
	int fd;

	memset(&mb, 0, sizeof(mb));
	mb.threads = param_ulong("threads", 1, 1, 1024);
	mb.seconds = param_ulong("seconds", 1, 1, 300);
	mb.granule = param_ulong("granule", 1, 1, 1024);
	mb.node = -1;
	mb.dma_bits = 32;
	mb.dma_dir = 0;

	dev = pci_bench_device("dma_map_benchmark");

	fd = open("/sys/kernel/debug/dma_map_benchmark", O_RDWR);
	if (fd < 0)
		fail("open /sys/kernel/debug/dma_map_benchmark: %s", strerror(errno));
	info("dma_map_benchmark: %u thread(s), %u s, %u page(s) per map",
	     mb.threads, mb.seconds, mb.granule);
	if (ioctl(fd, DMA_MAP_BENCHMARK, &mb))
		fail("DMA_MAP_BENCHMARK ioctl: %s", strerror(errno));
	close(fd);

	/* The kernel reports in units of 100 ns. */
	printf("RESULT workload=dma-bench device=%s threads=%u seconds=%u granule=%u "
	       "map_mean_ns=%llu map_stddev_ns=%llu unmap_mean_ns=%llu unmap_stddev_ns=%llu\n",
	       dev, mb.threads, mb.seconds, mb.granule,
	       (unsigned long long)mb.avg_map_100ns * 100,
	       (unsigned long long)mb.map_stddev * 100,
	       (unsigned long long)mb.avg_unmap_100ns * 100,
	       (unsigned long long)mb.unmap_stddev * 100);
}
