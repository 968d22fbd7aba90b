// SPDX-License-Identifier: GPL-2.0-only
/*
 * smmulab guest init: the "probe-storm" workload.
 *
 * K SR-IOV physical functions, bound to pci-pf-stub, enable N virtual
 * functions each, from K threads released at once.  pci-pf-stub is also
 * given the VFs' ID, so each new VF is bound as it appears, and binding
 * runs its IOMMU probe (and, in OF systems, its fwspec configuration):
 * every VF takes iommu_probe_device_lock and searches DMA aliases.
 *
 * Parameters: smmulab.pfs (default: every SR-IOV capable PF),
 * smmulab.vfs (default: the smallest sriov_totalvfs).
 * Results: time per PF, total, and per-VF probe time (PF time / N).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smmulab-guest.h"

#define MAX_PFS 64

struct pf {
	char bdf[256];
	char err[128];
	uint64_t start_ns, end_ns;
};

static struct pf pfs[MAX_PFS];
static unsigned int npfs, nvfs;
static pthread_barrier_t barrier;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(((const struct pf *)a)->bdf, ((const struct pf *)b)->bdf);
}

static unsigned long read_ulong(const char *bdf, const char *file, int base)
{
	char path[1024], buf[64];

	snprintf(path, sizeof(path), PCI_DEVICES "/%.200s/%.64s", bdf, file);
	if (sysfs_read(path, buf, sizeof(buf)))
		return 0;
	return strtoul(buf, NULL, base);
}

static void find_pfs(unsigned long want)
{
	unsigned long min_total = 0, total;
	struct dirent *de;
	DIR *d = opendir(PCI_DEVICES);

	if (!d)
		fail("cannot open " PCI_DEVICES ": %s", strerror(errno));
	while ((de = readdir(d)) && npfs < MAX_PFS) {
		if (de->d_name[0] == '.')
			continue;
		total = read_ulong(de->d_name, "sriov_totalvfs", 10);
		if (!total)
			continue;
		snprintf(pfs[npfs].bdf, sizeof(pfs[npfs].bdf), "%s", de->d_name);
		npfs++;
		if (!min_total || total < min_total)
			min_total = total;
	}
	closedir(d);
	if (!npfs)
		fail("no SR-IOV physical function found (use the probe-storm topology: igb or nvme PFs)");
	qsort(pfs, npfs, sizeof(pfs[0]), cmp_str);
	if (want > npfs)
		fail("smmulab.pfs=%lu but only %u SR-IOV PFs are present", want, npfs);
	if (want)
		npfs = want;
	nvfs = param_ulong("vfs", min_total, 1, min_total);
}

static void *enable_vfs(void *arg)
{
	struct pf *pf = arg;
	char path[1024], val[16];
	int err;

	snprintf(path, sizeof(path), PCI_DEVICES "/%.200s/sriov_numvfs", pf->bdf);
	snprintf(val, sizeof(val), "%u", nvfs);
	pthread_barrier_wait(&barrier);
	pf->start_ns = now_ns();
	err = sysfs_write(path, val);
	pf->end_ns = now_ns();
	if (err)
		snprintf(pf->err, sizeof(pf->err), "%s", strerror(-err));
	return NULL;
}

/* VFs of @pf that joined an IOMMU group */
static unsigned int vfs_in_groups(const struct pf *pf)
{
	char path[1024], target[256], *slash;
	unsigned int i, n = 0;
	ssize_t len;

	for (i = 0; i < nvfs; i++) {
		snprintf(path, sizeof(path), PCI_DEVICES "/%.200s/virtfn%u", pf->bdf, i);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		slash = strrchr(target, '/');
		if (pci_iommu_group(slash ? slash + 1 : target) >= 0)
			n++;
	}
	return n;
}

void workload_probe_storm(void)
{
	pthread_t threads[MAX_PFS];
	uint64_t first = UINT64_MAX, last = 0, sum = 0, max = 0;
	unsigned int i, grouped = 0;
	char path[1024], id[64];
	int err;

	find_pfs(param_ulong("pfs", 0, 0, MAX_PFS));
	info("probe-storm: %u PF(s) x %u VF(s), enabled from %u threads at once",
	     npfs, nvfs, npfs);
	for (i = 0; i < npfs; i++) {
		unsigned long vendor = read_ulong(pfs[i].bdf, "vendor", 16);
		unsigned long vf_dev = read_ulong(pfs[i].bdf, "sriov_vf_device", 16);

		pci_bind(pfs[i].bdf, "pci-pf-stub");
		snprintf(path, sizeof(path), PCI_DEVICES "/%.200s/sriov_drivers_autoprobe",
			 pfs[i].bdf);
		sysfs_write(path, "1");
		/* Let pci-pf-stub claim the VFs too, so each one is probed */
		snprintf(id, sizeof(id), "%04lx %04lx", vendor, vf_dev);
		err = sysfs_write("/sys/bus/pci/drivers/pci-pf-stub/new_id", id);
		if (err && err != -EEXIST)
			fail("pci-pf-stub new_id %s: %s", id, strerror(-err));
	}

	pthread_barrier_init(&barrier, NULL, npfs);
	for (i = 0; i < npfs; i++)
		if (pthread_create(&threads[i], NULL, enable_vfs, &pfs[i]))
			fail("pthread_create failed");
	for (i = 0; i < npfs; i++)
		pthread_join(threads[i], NULL);

	for (i = 0; i < npfs; i++) {
		uint64_t ns = pfs[i].end_ns - pfs[i].start_ns;
		unsigned int g;

		if (pfs[i].err[0])
			fail("enabling %u VFs on %s: %s", nvfs, pfs[i].bdf, pfs[i].err);
		g = vfs_in_groups(&pfs[i]);
		grouped += g;
		if (pfs[i].start_ns < first)
			first = pfs[i].start_ns;
		if (pfs[i].end_ns > last)
			last = pfs[i].end_ns;
		sum += ns;
		if (ns > max)
			max = ns;
		printf("RESULT workload=probe-storm pf=%s vfs=%u vfs_in_groups=%u ms=%.3f per_vf_us=%.1f\n",
		       pfs[i].bdf, nvfs, g, ns / 1e6, ns / 1e3 / nvfs);
	}
	printf("RESULT workload=probe-storm pfs=%u vfs_per_pf=%u vfs_total=%u vfs_in_groups=%u total_ms=%.3f pf_mean_ms=%.3f pf_max_ms=%.3f per_vf_mean_us=%.1f\n",
	       npfs, nvfs, npfs * nvfs, grouped, (last - first) / 1e6,
	       sum / 1e6 / npfs, max / 1e6, sum / 1e3 / npfs / nvfs);
	if (grouped != npfs * nvfs)
		fail("only %u of %u VFs joined an IOMMU group", grouped, npfs * nvfs);
}
