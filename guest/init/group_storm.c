// SPDX-License-Identifier: GPL-2.0-only
/*
 * smmulab guest init: the "group-storm" workload.
 *
 * Multifunction PCI devices without ACS must each form one IOMMU group:
 * pci_device_group() puts a function in the group of any other function of
 * its slot that already has one.  That is a decision across devices, which
 * the global iommu_probe_device_lock used to serialise.  This workload
 * probes the functions of each slot at the same time, one thread per
 * function number, released together for every slot, and checks the
 * groups; then removes every function and rescans the bus, so that the next
 * round forms the groups again, for smmulab.rounds rounds.
 *
 * The IOMMU probe of a PCI device runs when a driver binds to it (the
 * fwspec comes from the DMA configuration at bind), so binding the
 * functions to pci-pf-stub is what probes them.
 *
 * Results: per round, the partition of the functions into groups (as slot
 * lists, group numbers aside), the slots whose functions were split
 * across groups and the slots that share a group with an earlier slot; in
 * total, the rounds, the split and merged slots and the number of distinct
 * partitions seen.  A split slot fails the workload.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smmulab-guest.h"

#define MAX_FNS 8
#define MAX_SLOTS 32

struct slot {
	char bdf[MAX_FNS][32];
	unsigned int nfns;
};

static struct slot slots[MAX_SLOTS];
static unsigned int nslots, nfns;
static pthread_barrier_t barrier;
static char errs[MAX_FNS][192];

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Multifunction devices: every function of a slot with more than one */
static void find_slots(void)
{
	static char names[MAX_SLOTS * MAX_FNS][32];
	char path[512], buf[64];
	unsigned int n = 0, i;
	struct dirent *de;
	DIR *d = opendir(PCI_DEVICES);

	if (!d)
		fail("cannot open " PCI_DEVICES ": %s", strerror(errno));
	while ((de = readdir(d))) {
		unsigned int dom, bus, dev, fn;

		if (de->d_name[0] == '.' ||
		    sscanf(de->d_name, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
			continue;
		/* edu: 0x1234:0x11e8 */
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/vendor", de->d_name);
		if (sysfs_read(path, buf, sizeof(buf)) || strcmp(buf, "0x1234"))
			continue;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/device", de->d_name);
		if (sysfs_read(path, buf, sizeof(buf)) || strcmp(buf, "0x11e8"))
			continue;
		if (n == MAX_SLOTS * MAX_FNS)
			fail("group-storm: more than %d functions", MAX_SLOTS * MAX_FNS);
		snprintf(names[n++], sizeof(names[0]), "%.31s", de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);

	nslots = 0;
	for (i = 0; i < n; i++) {
		struct slot *s = nslots ? &slots[nslots - 1] : NULL;

		/* same slot: equal up to the function number after the dot */
		if (!s || strncmp(s->bdf[0], names[i], strlen(names[i]) - 1)) {
			if (nslots == MAX_SLOTS)
				fail("group-storm: more than %d slots", MAX_SLOTS);
			s = &slots[nslots++];
			s->nfns = 0;
		}
		if (s->nfns == MAX_FNS)
			fail("group-storm: more than %d functions in a slot", MAX_FNS);
		snprintf(s->bdf[s->nfns++], sizeof(s->bdf[0]), "%.31s", names[i]);
	}
	nfns = 0;
	for (i = 0; i < nslots; i++) {
		if (slots[i].nfns < 2)
			fail("group-storm: %s is not a multifunction device (add edu,addr=N.0,multifunction=on and edu,addr=N.1)",
			     slots[i].bdf[0]);
		if (slots[i].nfns > nfns)
			nfns = slots[i].nfns;
	}
}

/* Thread @fn binds function @fn of every slot, all threads slot by slot */
static void *probe_fn(void *arg)
{
	unsigned int fn = (unsigned long)arg, i;
	char path[512];
	int err;

	for (i = 0; i < nslots; i++) {
		const char *bdf = slots[i].bdf[fn];

		pthread_barrier_wait(&barrier);
		if (fn >= slots[i].nfns || errs[fn][0])
			continue;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver_override", bdf);
		err = sysfs_write(path, "pci-pf-stub");
		if (!err)
			err = sysfs_write("/sys/bus/pci/drivers/pci-pf-stub/bind", bdf);
		if (err)
			snprintf(errs[fn], sizeof(errs[fn]), "binding %s: %s", bdf,
				 strerror(-err));
	}
	return NULL;
}

static void probe_round(void)
{
	pthread_t threads[MAX_FNS];
	unsigned long i;

	pthread_barrier_init(&barrier, NULL, nfns);
	for (i = 0; i < nfns; i++)
		if (pthread_create(&threads[i], NULL, probe_fn, (void *)i))
			fail("pthread_create failed");
	for (i = 0; i < nfns; i++)
		pthread_join(threads[i], NULL);
	pthread_barrier_destroy(&barrier);
	for (i = 0; i < nfns; i++)
		if (errs[i][0])
			fail("group-storm: %s", errs[i]);
}

/*
 * The partition of the functions into groups, group numbers aside: for
 * each function in order, the index of the first function of its group.
 * Returns the slots split across groups.
 */
static unsigned int partition(char *out, size_t len, unsigned int *merged)
{
	int group[MAX_SLOTS * MAX_FNS];
	unsigned int i, j, k, n = 0, split = 0;
	size_t o = 0;

	for (i = 0; i < nslots; i++) {
		for (j = 0; j < slots[i].nfns; j++) {
			group[n] = pci_iommu_group(slots[i].bdf[j]);
			if (group[n] < 0)
				fail("group-storm: %s joined no IOMMU group",
				     slots[i].bdf[j]);
			n++;
		}
	}
	for (i = 0; i < n; i++) {
		for (k = 0; group[k] != group[i]; k++)
			;
		o += snprintf(out + o, len - o, "%s%u", i ? "," : "", k);
		if (o >= len)
			fail("group-storm: partition too long");
	}
	for (i = 0, n = 0; i < nslots; i++) {
		for (j = 1; j < slots[i].nfns; j++)
			if (group[n + j] != group[n])
				break;
		split += j < slots[i].nfns;
		n += slots[i].nfns;
	}
	/* slots whose first function shares a group with an earlier slot's */
	*merged = 0;
	for (i = 1, n = slots[0].nfns; i < nslots; n += slots[i++].nfns) {
		for (j = 0, k = 0; k < n; k++)
			j |= group[k] == group[n];
		*merged += j;
	}
	return split;
}

static uint64_t fnv1a(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*p)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ULL;
	return h;
}

static void remove_and_rescan(void)
{
	char path[512];
	unsigned int i, j;
	int err;

	for (i = 0; i < nslots; i++) {
		for (j = slots[i].nfns; j-- > 0;) {
			snprintf(path, sizeof(path), PCI_DEVICES "/%s/remove",
				 slots[i].bdf[j]);
			err = sysfs_write(path, "1");
			if (err)
				fail("group-storm: removing %s: %s", slots[i].bdf[j],
				     strerror(-err));
		}
	}
	err = sysfs_write("/sys/bus/pci/rescan", "1");
	if (err)
		fail("group-storm: PCI rescan: %s", strerror(-err));
}

void workload_group_storm(void)
{
	unsigned long rounds = param_ulong("rounds", 20, 1, 10000);
	static char cur[4096];
	static uint64_t seen[10000];
	unsigned int r, i, split, merged, split_total = 0, split_rounds = 0;
	unsigned int merged_total = 0, distinct = 0;
	uint64_t t0 = now_ns();

	find_slots();
	if (!nslots)
		fail("group-storm: no edu devices (see configs/topologies.ini, [group-storm])");
	info("group-storm: %u slots x %u functions, %lu rounds", nslots, nfns,
	     rounds);
	for (r = 0; r < rounds; r++) {
		if (r) {
			unsigned int before = nslots;

			remove_and_rescan();
			find_slots();
			if (nslots != before)
				fail("group-storm: %u slots after rescan, %u before",
				     nslots, before);
		}
		probe_round();
		split = partition(cur, sizeof(cur), &merged);
		/* distinct partitions, by a 64-bit FNV-1a hash of each */
		seen[distinct] = fnv1a(cur);
		for (i = 0; seen[i] != seen[distinct]; i++)
			;
		distinct += i == distinct;
		split_total += split;
		split_rounds += split > 0;
		merged_total += merged;
		printf("RESULT workload=group-storm round=%u split_slots=%u merged_slots=%u partition=%s\n",
		       r, split, merged, cur);
	}
	printf("RESULT workload=group-storm slots=%u functions_per_slot=%u rounds=%u split_slots=%u split_rounds=%u merged_slots=%u distinct_partitions=%u seconds=%.3f\n",
	       nslots, nfns, r, split_total, split_rounds, merged_total,
	       distinct, (now_ns() - t0) / 1e9);
	if (split_total)
		fail("group-storm: %u slot(s) split across IOMMU groups in %u of %u rounds",
		     split_total, split_rounds, r);
}
