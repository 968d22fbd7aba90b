# smmulab's device set for qemu-system-aarch64 (configure --with-devices-aarch64=smmulab):
# the virt machine with its SMMUv3, and the PCI devices the guest workloads use.
CONFIG_ARM_VIRT=y
CONFIG_PCIE_PORT=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_RNG=y
CONFIG_VIRTIO_BLK=y
CONFIG_PCI_TESTDEV=y
CONFIG_NVME_PCI=y
CONFIG_IGB_PCI_EXPRESS=y
CONFIG_E1000E_PCI_EXPRESS=y
CONFIG_EDU=y
# What QEMU's own aarch64 qtests use beyond that (make qtest-suite):
# bios-tables-test's memory hotplug, PCIe expander and VIOT tables.
CONFIG_NVDIMM=y
CONFIG_PXB=y
CONFIG_CXL=y
CONFIG_CXL_MEM_DEVICE=y
CONFIG_VIRTIO_SCSI=y
CONFIG_VIRTIO_IOMMU=y
