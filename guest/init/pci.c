// SPDX-License-Identifier: GPL-2.0-only
/* smmulab guest init: PCI device lookup and driver binding through sysfs. */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smmulab-guest.h"

int pci_iommu_group(const char *bdf)
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

const char *pci_find_vendor(const char *vendor_id)
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
		    strcmp(vendor, vendor_id))
			continue;
		if (!found[0] || strcmp(de->d_name, found) < 0)
			snprintf(found, sizeof(found), "%s", de->d_name);
	}
	closedir(d);
	return found[0] ? found : NULL;
}

void pci_bind(const char *bdf, const char *driver)
{
	char path[512], drv[256];
	ssize_t n;
	int err;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver", bdf);
	n = readlink(path, drv, sizeof(drv) - 1);
	if (n >= 0) {
		drv[n] = '\0';
		if (!strcmp(basename(drv), driver))
			return;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver/unbind", bdf);
		err = sysfs_write(path, bdf);
		if (err)
			fail("unbind %s: %s", bdf, strerror(-err));
	}
	snprintf(path, sizeof(path), PCI_DEVICES "/%s/driver_override", bdf);
	err = sysfs_write(path, driver);
	if (err)
		fail("driver_override on %s: %s", bdf, strerror(-err));
	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/%s/bind", driver);
	err = sysfs_write(path, bdf);
	if (err)
		fail("bind %s to %s: %s", driver, bdf, strerror(-err));
}

/* Bind @driver to the device to benchmark and check it sits behind an IOMMU */
const char *pci_bench_device(const char *driver)
{
	static char dev[256];
	const char *bdf = param_str("dev");
	int group;

	if (!bdf)
		bdf = pci_find_vendor("0x1af4");
	if (!bdf)
		fail("no virtio PCI device to benchmark (add -device virtio-rng-pci)");
	snprintf(dev, sizeof(dev), "%s", bdf);
	pci_bind(dev, driver);
	group = pci_iommu_group(dev);
	if (group < 0)
		fail("PCI device %s is not in an IOMMU group (is the SMMU on, iommu=smmuv3?)",
		     dev);
	info("device %s in IOMMU group %d, bound to %s", dev, group, driver);
	printf("RESULT device=%s iommu_group=%d\n", dev, group);
	return dev;
}
