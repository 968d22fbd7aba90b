// SPDX-License-Identifier: GPL-2.0-only
/*
 * smmulab guest init: the "probe-storm" workload.
 *
 * K SR-IOV physical functions, bound to pci-pf-stub, each enable N virtual
 * functions, from K threads released at once, in two timed phases:
 *
 * 1. enable: sriov_numvfs=N with driver autoprobe off.  The PCI core holds
 *    its global rescan/remove lock across this, so the PFs go one at a
 *    time whatever the IOMMU does;
 * 2. probe: each thread binds its PF's VFs to pci-pf-stub, one by one.
 *    Binding runs the VF's DMA configuration: OF/ACPI fwspec set-up and
 *    the IOMMU probe, under iommu_probe_device_lock (or its hashed
 *    variant), with the DMA alias search.  Nothing else serialises them.
 *
 * Parameters: smmulab.pfs (default: every SR-IOV capable PF),
 * smmulab.vfs (default: the smallest sriov_totalvfs).
 * Results: per PF, enable and probe time; in total, both phases' wall
 * time and the per-VF probe time (mean, p50, max).
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

#define MAX_VFS 256

struct pf {
	char bdf[256];
	char err[192];
	uint64_t start_ns, end_ns;		/* enable phase */
	uint64_t probe_start_ns, probe_end_ns;	/* probe phase */
	uint64_t vf_ns[MAX_VFS];
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
	if (min_total > MAX_VFS)
		min_total = MAX_VFS;
	nvfs = param_ulong("vfs", min_total, 1, min_total);
}

static int vf_bdf(const struct pf *pf, unsigned int i, char *out, size_t len)
{
	char path[1024], target[256], *slash;
	ssize_t n;

	snprintf(path, sizeof(path), PCI_DEVICES "/%.200s/virtfn%u", pf->bdf, i);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(out, len, "%s", slash ? slash + 1 : target);
	return 0;
}

static void *probe_vfs(void *arg)
{
	struct pf *pf = arg;
	char vf[256], path[1024];
	unsigned int i;
	int err;

	pthread_barrier_wait(&barrier);
	pf->probe_start_ns = now_ns();
	for (i = 0; i < nvfs && !pf->err[0]; i++) {
		uint64_t t0 = now_ns();

		err = vf_bdf(pf, i, vf, sizeof(vf));
		if (!err) {
			snprintf(path, sizeof(path),
				 PCI_DEVICES "/%.200s/driver_override", vf);
			err = sysfs_write(path, "pci-pf-stub");
		}
		if (!err)
			err = sysfs_write("/sys/bus/pci/drivers/pci-pf-stub/bind",
					  vf);
		if (err)
			snprintf(pf->err, sizeof(pf->err), "binding VF %u (%.64s): %s",
				 i, vf, strerror(-err));
		pf->vf_ns[i] = now_ns() - t0;
	}
	pf->probe_end_ns = now_ns();
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
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
	unsigned int i, n = 0;
	char vf[256];

	for (i = 0; i < nvfs; i++)
		if (!vf_bdf(pf, i, vf, sizeof(vf)) && pci_iommu_group(vf) >= 0)
			n++;
	return n;
}

static void run_phase(void *(*fn)(void *))
{
	pthread_t threads[MAX_PFS];
	unsigned int i;

	pthread_barrier_init(&barrier, NULL, npfs);
	for (i = 0; i < npfs; i++)
		if (pthread_create(&threads[i], NULL, fn, &pfs[i]))
			fail("pthread_create failed");
	for (i = 0; i < npfs; i++)
		pthread_join(threads[i], NULL);
	pthread_barrier_destroy(&barrier);
	for (i = 0; i < npfs; i++)
		if (pfs[i].err[0])
			fail("%s: %s", pfs[i].bdf, pfs[i].err);
}

void workload_probe_storm(void)
{
	static uint64_t all[MAX_PFS * MAX_VFS];
	uint64_t e_first = UINT64_MAX, e_last = 0, p_first = UINT64_MAX;
	uint64_t p_last = 0, sum = 0;
	unsigned int i, j, grouped = 0, n = 0;
	char path[1024];

	find_pfs(param_ulong("pfs", 0, 0, MAX_PFS));
	info("probe-storm: %u PF(s) x %u VF(s), from %u threads at once",
	     npfs, nvfs, npfs);
	for (i = 0; i < npfs; i++) {
		pci_bind(pfs[i].bdf, "pci-pf-stub");
		/* VFs appear unbound; the probe phase binds them */
		snprintf(path, sizeof(path),
			 PCI_DEVICES "/%.200s/sriov_drivers_autoprobe", pfs[i].bdf);
		sysfs_write(path, "0");
	}
	run_phase(enable_vfs);
	run_phase(probe_vfs);

	for (i = 0; i < npfs; i++) {
		struct pf *pf = &pfs[i];
		uint64_t en = pf->end_ns - pf->start_ns;
		uint64_t pr = pf->probe_end_ns - pf->probe_start_ns;
		unsigned int g = vfs_in_groups(pf);

		grouped += g;
		e_first = pf->start_ns < e_first ? pf->start_ns : e_first;
		e_last = pf->end_ns > e_last ? pf->end_ns : e_last;
		p_first = pf->probe_start_ns < p_first ? pf->probe_start_ns : p_first;
		p_last = pf->probe_end_ns > p_last ? pf->probe_end_ns : p_last;
		for (j = 0; j < nvfs; j++) {
			all[n++] = pf->vf_ns[j];
			sum += pf->vf_ns[j];
		}
		printf("RESULT workload=probe-storm pf=%s vfs=%u vfs_in_groups=%u enable_ms=%.3f probe_ms=%.3f per_vf_probe_us=%.1f\n",
		       pf->bdf, nvfs, g, en / 1e6, pr / 1e6, pr / 1e3 / nvfs);
	}
	qsort(all, n, sizeof(all[0]), cmp_u64);
	printf("RESULT workload=probe-storm pfs=%u vfs_per_pf=%u vfs_total=%u vfs_in_groups=%u enable_total_ms=%.3f probe_total_ms=%.3f vf_probe_mean_us=%.1f vf_probe_p50_us=%.1f vf_probe_max_us=%.1f\n",
	       npfs, nvfs, n, grouped, (e_last - e_first) / 1e6,
	       (p_last - p_first) / 1e6, sum / 1e3 / n, all[(n - 1) / 2] / 1e3,
	       all[n - 1] / 1e3);
	if (grouped != n)
		fail("only %u of %u VFs joined an IOMMU group", grouped, n);
}
