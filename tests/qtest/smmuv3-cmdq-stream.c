/*
 * Command stream driver for smmulab's engine-cost benchmark
 *
 * Starts QEMU (QTEST_QEMU_BINARY, e.g. under valgrind --tool=callgrind)
 * with the given SMMU properties and pushes N commands through a 256-entry
 * command queue as a driver would:
 *
 *   sync   one CMD_SYNC per CMDQ_PROD write
 *   tlbi   batches of 63 TLBI_NH_VA and a CMD_SYNC per PROD write, as an
 *          unmap without range invalidation submits them
 *
 * After each PROD write it steps the virtual clock by --step ns (the time
 * the batch takes on a timed queue; 0 for an untimed one) and reads CONS,
 * which must show the batch retired, so that both modes do the same
 * register accesses per batch.  scripts/bench-engine-cost.sh divides the
 * instructions spent in the device by the number of commands.
 *
 *   smmuv3-cmdq-stream --kind sync|tlbi --commands N [--step NS]
 *                      [--props "-global ..."]
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qemu/bswap.h"

#define SMMU_BASE       0x09050000ULL
#define QUEUE_ADDR      0x44000000ULL
#define LOG2SIZE        8

static void put(QTestState *qts, uint32_t idx, uint32_t w0, uint32_t w2)
{
    uint32_t w[4] = { cpu_to_le32(w0), 0, cpu_to_le32(w2), 0 };

    qtest_memwrite(qts, QUEUE_ADDR + 16 * (idx & ((1U << LOG2SIZE) - 1)),
                   w, sizeof(w));
}

int main(int argc, char **argv)
{
    const char *kind = "sync", *props = "";
    uint64_t n = 1000, done = 0, step = 0;
    uint32_t prod = 0, batch, i;
    QTestState *qts;
    int a;

    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--kind") && a + 1 < argc) {
            kind = argv[++a];
        } else if (!strcmp(argv[a], "--commands") && a + 1 < argc) {
            n = g_ascii_strtoull(argv[++a], NULL, 0);
        } else if (!strcmp(argv[a], "--step") && a + 1 < argc) {
            step = g_ascii_strtoull(argv[++a], NULL, 0);
        } else if (!strcmp(argv[a], "--props") && a + 1 < argc) {
            props = argv[++a];
        } else {
            fprintf(stderr, "usage: smmuv3-cmdq-stream --kind sync|tlbi "
                    "--commands N [--step NS] [--props ARGS]\n");
            return 2;
        }
    }
    if (strcmp(kind, "sync") && strcmp(kind, "tlbi")) {
        fprintf(stderr, "smmuv3-cmdq-stream: --kind %s: not sync or tlbi\n",
                kind);
        return 2;
    }
    batch = !strcmp(kind, "sync") ? 1 : 64;

    /* No smmulab property unless given: the stream runs on upstream too */
    qts = qtest_initf("-M virt,iommu=smmuv3 -display none -nic none %s",
                      props);
    qtest_writeq(qts, SMMU_BASE + 0x90, QUEUE_ADDR | LOG2SIZE);
    qtest_writel(qts, SMMU_BASE + 0x20, 1 << 3);
    while (done < n) {
        uint32_t k = MIN(batch, n - done);
        uint32_t mask = (2U << LOG2SIZE) - 1;

        for (i = 0; i < k; i++) {
            if (i + 1 == k) {
                put(qts, prod + i, 0x46, 0);                  /* CMD_SYNC */
            } else {
                put(qts, prod + i, 0x12, 0x1000 + (i << 12)); /* TLBI VA */
            }
        }
        prod = (prod + k) & mask;
        qtest_writel(qts, SMMU_BASE + 0x98, prod);
        if (step) {
            qtest_clock_step(qts, step);
        }
        /* Then poll CONS, stepping on if the batch is not done yet */
        while ((qtest_readl(qts, SMMU_BASE + 0x9c) & mask) != prod) {
            qtest_clock_step(qts, 1000);
        }
        done += k;
    }
    qtest_quit(qts);
    printf("smmuv3-cmdq-stream: %s: %" PRIu64 " commands retired\n", kind,
           done);
    return 0;
}
