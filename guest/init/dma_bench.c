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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libgen.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

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

#define PCI_DEVICES "/sys/bus/pci/devices"
#define BENCH_DRIVER "/sys/bus/pci/drivers/dma_map_benchmark"

static int iommu_group_of(const char *bdf)
{
	char path[512], target[256];
	ssize_t n;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/iommu_group", bdf);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = '\0';
	return atoi(basename(target));
}

/*
 * The first virtio PCI device.  It joins its IOMMU group only when a driver
 * binds (dma_configure runs at probe), so the group is checked after.
 */
static const char *find_device(void)
{
	static char found[256];
	char path[512], vendor[16];
	struct dirent *de;
	DIR *d = opendir(PCI_DEVICES);

	if (!d)
		fail("cannot open " PCI_DEVICES ": %s", strerror(errno));
	found[0] = '\0';
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/vendor", de->d_name);
		if (sysfs_read(path, vendor, sizeof(vendor)) ||
		    strcmp(vendor, "0x1af4"))
			continue;
		if (!found[0] || strcmp(de->d_name, found) < 0)
			snprintf(found, sizeof(found), "%s", de->d_name);
	}
	closedir(d);
	if (!found[0])
		fail("no virtio PCI device to benchmark (add -device virtio-rng-pci)");
	return found;
}

static void bind_benchmark(const char *bdf)
{
	char path[512], drv[256];
	ssize_t n;
	int err;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver", bdf);
	n = readlink(path, drv, sizeof(drv) - 1);
	if (n >= 0) {
		drv[n] = '\0';
		if (!strcmp(basename(drv), "dma_map_benchmark"))
			return;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver/unbind", bdf);
		err = sysfs_write(path, bdf);
		if (err)
			fail("unbind %s: %s", bdf, strerror(-err));
	}
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver_override", bdf);
	err = sysfs_write(path, "dma_map_benchmark");
	if (err)
		fail("driver_override on %s: %s", bdf, strerror(-err));
	err = sysfs_write(BENCH_DRIVER "/bind", bdf);
	if (err)
		fail("bind dma_map_benchmark to %s: %s (CONFIG_DMA_MAP_BENCHMARK?)",
		     bdf, strerror(-err));
}

void workload_dma_bench(void)
{
	struct map_benchmark mb;
	const char *bdf = param_str("dev");
	char dev[256];
	int fd, group;

	memset(&mb, 0, sizeof(mb));
	mb.threads = param_ulong("threads", 1, 1, 1024);
	mb.seconds = param_ulong("seconds", 1, 1, 300);
	mb.granule = param_ulong("granule", 1, 1, 1024);
	mb.node = -1;
	mb.dma_bits = 32;
	mb.dma_dir = 0;

	snprintf(dev, sizeof(dev), "%s", bdf ? bdf : find_device());
	bind_benchmark(dev);
	group = iommu_group_of(dev);
	if (group < 0)
		fail("PCI device %s is not in an IOMMU group (is the SMMU on, iommu=smmuv3?)",
		     dev);
	info("device %s in IOMMU group %d", dev, group);
	printf("RESULT device=%s iommu_group=%d\n", dev, group);

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
