/*
 * Hostile-guest fuzzer for smmulab's SMMUv3 command queue model
 *
 * A seeded generator drives the SMMU over qtest as a hostile guest would:
 * random register writes and reads (biased to the queue registers), random
 * commands written into the queue (illegal opcodes, range fields, SSEC),
 * PROD values past the queue, queue bases outside RAM or in the SMMU's
 * own registers, queue sizes from 1
 * entry to 2^31, random cost properties for each QEMU instance, clock
 * steps, QMP counter reads and system resets.  With msi=on in half the
 * sessions, CMD_SYNCs complete by MSI writes aimed at RAM, at the SMMU's
 * own registers, and at the registers of two PCI devices behind the SMMU
 * that DMA when written (an e1000e's transmit doorbell, an edu's DMA
 * engine), and so do the event queue and GERROR interrupts once their
 * IRQ_CFG0 is aimed there, with the SMMU and its event queue enabled so
 * that the devices' DMA records events; CONS and CMDQ_BASE are written
 * while commands are in progress.
 *
 * Each session runs in a child process with its own QEMU (built with ASan
 * and UBSan, see docs/testing.md), so that a crash or hang is counted and
 * the next session goes on.  QEMU's stderr is kept per session and scanned
 * for sanitizer reports; the seed of a session reproduces it exactly:
 *
 *   smmuv3-cmdq-fuzz [--seed S] [--ops N | --seconds T] [--session-ops K]
 *                    [--findings DIR] [--replay SESSION_SEED]
 *
 * (5 seconds when neither --ops nor --seconds is given)
 *
 * The last line is a summary: operations, sessions, crashes, sanitizer
 * reports, hangs; the exit status is non-zero when any was found.
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <sys/wait.h>
#include "libqtest.h"
#include "qemu/bswap.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"

#define SMMU_BASE       0x09050000ULL
#define RAM_BASE        0x40000000ULL
#define RAM_SIZE        (128ULL << 20)

/* PCI devices behind the SMMU (virt, highmem=off) */
#define ECAM_BASE       0x3f000000ULL
#define EDU_DEVFN       0x08            /* 00:01.0 */
#define EDU_BAR         0x10000000ULL
#define E1000E_DEVFN    0x10            /* 00:02.0 */
#define E1000E_BAR      0x10100000ULL
#define E1000E_RING     (RAM_BASE + RAM_SIZE - 0x1000)

typedef struct Rng {
    uint64_t s;
} Rng;

static uint64_t rnd(Rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t below(Rng *r, uint64_t n)
{
    return n ? rnd(r) % n : 0;
}

/* A value a hostile guest might pick: small, near a power of two, or any */
static uint64_t nasty(Rng *r)
{
    switch (below(r, 6)) {
    case 0:
        return below(r, 16);
    case 1:
        return (1ULL << below(r, 32)) + below(r, 3) - 1;
    case 2:
        return UINT32_MAX - below(r, 4);
    case 3:
        return rnd(r) & 0xffff;
    default:
        return rnd(r) & UINT32_MAX;
    }
}

static const uint32_t regs[] = {
    0x00, 0x04, 0x08, 0x0c, 0x10, 0x14, 0x18, 0x1c, 0x20, 0x24, 0x28, 0x2c,
    0x3c, 0x44, 0x50, 0x54, 0x60, 0x64, 0x68, 0x6c, 0x70, 0x74, 0x78, 0x7c,
    0x80, 0x84, 0x88, 0x8c, 0x90, 0x94, 0x98, 0x9c, 0xa0, 0xa4, 0xa8, 0xac,
    0xb0, 0xb4, 0xb8, 0xbc, 0x100a8, 0x100ac,
};

static const uint8_t opcodes[] = {
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x10, 0x11, 0x12, 0x13, 0x18, 0x1a,
    0x20, 0x21, 0x22, 0x23, 0x28, 0x2a, 0x30, 0x40, 0x41, 0x44, 0x45, 0x46,
    0x00, 0x07, 0x7f, 0xff,
};

typedef struct Session {
    QTestState *qts;
    Rng rng;
    uint64_t qbase;
    uint8_t log2size;
    uint32_t prod;
    char *smmu_path;
} Session;

/* Registers of the PCI devices that start DMA (or answer) when written */
static const uint64_t dev_regs[] = {
    E1000E_BAR + 0x3818,    /* e1000e TDT: transmit, DMA the ring */
    E1000E_BAR + 0x3810,    /* TDH */
    E1000E_BAR + 0x0400,    /* TCTL */
    E1000E_BAR + 0x00c8,    /* ICS */
    E1000E_BAR + 0x2818,    /* RDT */
    EDU_BAR + 0x98,         /* edu DMA command: DMA 100 ms later */
    EDU_BAR + 0x80,         /* DMA source */
    EDU_BAR + 0x88,         /* DMA destination */
    EDU_BAR + 0x90,         /* DMA count */
    EDU_BAR + 0x60,         /* interrupt raise */
    EDU_BAR + 0x08,         /* factorial */
};

/* Where an MSI goes: RAM, the SMMU, a DMA device, anywhere */
static uint64_t msi_target(Rng *r)
{
    switch (below(r, 5)) {
    case 0:
        return RAM_BASE + below(r, RAM_SIZE);
    case 1:
        return SMMU_BASE + below(r, 0x20000);
    case 2:
    case 3:
        return dev_regs[below(r, ARRAY_SIZE(dev_regs))];
    default:
        return rnd(r) & 0xfffffffffffcULL;
    }
}

/*
 * Memory space and bus mastering on for both devices, and an e1000e
 * transmit ring in RAM, so that a doorbell write makes it DMA through
 * the SMMU (the SMMU's own state decides how that translates)
 */
static void setup_devices(Session *s)
{
    QTestState *qts = s->qts;
    uint64_t edu = ECAM_BASE + (EDU_DEVFN << 12);
    uint64_t e1000e = ECAM_BASE + (E1000E_DEVFN << 12);

    qtest_writel(qts, edu + 0x10, (uint32_t)EDU_BAR);
    qtest_writew(qts, edu + 0x04, 0x6);
    qtest_writel(qts, e1000e + 0x10, (uint32_t)E1000E_BAR);
    qtest_writew(qts, e1000e + 0x04, 0x6);
    qtest_writel(qts, E1000E_BAR + 0x3800, (uint32_t)E1000E_RING);
    qtest_writel(qts, E1000E_BAR + 0x3804, 0);
    qtest_writel(qts, E1000E_BAR + 0x3808, 0x1000);
    qtest_writel(qts, E1000E_BAR + 0x3840, 0x400);   /* TARC0.ENABLE */
    qtest_writel(qts, E1000E_BAR + 0x0400, 1 << 1);  /* TCTL.EN */
}

static char *find_smmu(QTestState *qts)
{
    QDict *resp = qtest_qmp(qts, "{ 'execute': 'qom-list', 'arguments': "
                            "{ 'path': '/machine/unattached' } }");
    QList *list = qdict_get_qlist(resp, "return");
    const QListEntry *e;
    char *path = NULL;

    QLIST_FOREACH_ENTRY(list, e) {
        QDict *prop = qobject_to(QDict, qlist_entry_obj(e));

        if (!strcmp(qdict_get_str(prop, "type"), "child<arm-smmuv3>")) {
            path = g_strdup_printf("/machine/unattached/%s",
                                   qdict_get_str(prop, "name"));
        }
    }
    qobject_unref(resp);
    return path;
}

static void setup_queue(Session *s)
{
    Rng *r = &s->rng;

    /* Mostly in RAM, sometimes anywhere, with any LOG2SIZE */
    s->log2size = below(r, 4) ? below(r, 20) : below(r, 32);
    if (below(r, 8)) {
        s->qbase = RAM_BASE + (below(r, RAM_SIZE / 2) & ~0xfffULL) +
                   RAM_SIZE / 4;
    } else if (below(r, 2)) {
        /* in the SMMU's own registers: its fetches must not re-enter it */
        s->qbase = SMMU_BASE + (below(r, 0x20000) & ~0x1fULL);
    } else {
        s->qbase = rnd(r) & 0xffffffffffe0ULL;
    }
    qtest_writeq(s->qts, SMMU_BASE + 0x90, s->qbase | s->log2size);
    qtest_writel(s->qts, SMMU_BASE + 0x98, 0);
    qtest_writel(s->qts, SMMU_BASE + 0x9c, 0);
    qtest_writel(s->qts, SMMU_BASE + 0x20, 1 << 3);
    s->prod = 0;
}

static void put_cmds(Session *s)
{
    Rng *r = &s->rng;
    uint32_t n = 1 + below(r, below(r, 8) ? 8 : 300), i;
    uint8_t l2 = MIN(s->log2size, 19);

    for (i = 0; i < n; i++) {
        uint32_t w[4];
        uint32_t idx = (s->prod + i) & ((1U << l2) - 1);
        uint64_t addr = (s->qbase & 0xffffffffffe0ULL) + 16ULL * idx;

        w[0] = opcodes[below(r, ARRAY_SIZE(opcodes))];
        if (below(r, 2)) {
            w[0] |= rnd(r) & 0xffffff00;        /* NUM, SCALE, SSEC, CS... */
        }
        w[1] = below(r, 2) ? below(r, 16) : rnd(r);
        w[2] = below(r, 2) ? (uint32_t)(below(r, 4) << 10) | 0x1000 : rnd(r);
        w[3] = below(r, 2) ? 0 : rnd(r);
        if (!below(r, 4)) {
            /* a CMD_SYNC with an MSI: CS=SIG_IRQ or the reserved 0b11 */
            uint64_t msi = msi_target(r);

            w[0] = 0x46 | ((1 + 2 * below(r, 2)) << 12);
            w[1] = below(r, 2) ? below(r, 4) : rnd(r);
            w[2] = (uint32_t)msi;
            w[3] = msi >> 32;
        }
        if (addr >= RAM_BASE && addr + 16 <= RAM_BASE + RAM_SIZE) {
            w[0] = cpu_to_le32(w[0]);
            w[1] = cpu_to_le32(w[1]);
            w[2] = cpu_to_le32(w[2]);
            w[3] = cpu_to_le32(w[3]);
            qtest_memwrite(s->qts, addr, w, sizeof(w));
        }
    }
    /* PROD: just past our commands, or anywhere, wrap flag included */
    if (below(r, 6)) {
        s->prod = (s->prod + n) & ((2U << l2) - 1);
    } else {
        s->prod = nasty(r);
    }
    qtest_writel(s->qts, SMMU_BASE + 0x98, s->prod);
}

/*
 * While commands are in progress: move CONS (back, onto PROD, past it,
 * anywhere) or rebase and resize the queue
 */
static void write_while_busy(Session *s)
{
    Rng *r = &s->rng;
    QTestState *qts = s->qts;
    uint32_t cons = qtest_readl(qts, SMMU_BASE + 0x9c);

    put_cmds(s);
    if (below(r, 2)) {
        qtest_clock_step(qts, 1 + below(r, 2000));
    }
    switch (below(r, 5)) {
    case 0:
        cons = s->prod;
        break;
    case 1:
        cons = s->prod + 1 + below(r, 4);
        break;
    case 2:
        cons = cons - below(r, 4);
        break;
    case 3:
        cons = cons + 1 + below(r, 4);
        break;
    default:
        qtest_writeq(qts, SMMU_BASE + 0x90,
                     (below(r, 2) ? s->qbase : RAM_BASE + below(r, RAM_SIZE))
                     | below(r, 21));
        return;
    }
    qtest_writel(qts, SMMU_BASE + 0x9c, cons);
    if (below(r, 2)) {
        /* the guest then publishes the slot it moved CONS to */
        put_cmds(s);
    }
}
/*
 * The event queue and GERROR MSIs (msi=on): their IRQ_CFG0 aimed where a
 * CMD_SYNC's may be, their interrupts enabled, and sometimes the SMMU and
 * its event queue on, so that the devices' DMA records events (and a
 * stream table anywhere makes sure it fails to translate)
 */
static void aim_irq_msis(Session *s)
{
    Rng *r = &s->rng;
    QTestState *qts = s->qts;

    qtest_writeq(qts, SMMU_BASE + (below(r, 2) ? 0x68 : 0xb0),
                 below(r, 8) ? msi_target(r) : rnd(r));
    qtest_writel(qts, SMMU_BASE + (below(r, 2) ? 0x70 : 0xb8), nasty(r));
    qtest_writel(qts, SMMU_BASE + 0x50, below(r, 4) ? 0x5 : nasty(r));
    if (below(r, 2)) {
        qtest_writeq(qts, SMMU_BASE + 0xa0,
                     (RAM_BASE + below(r, RAM_SIZE / 2)) | below(r, 8));
        qtest_writeq(qts, SMMU_BASE + 0x80, RAM_BASE + below(r, RAM_SIZE));
        qtest_writel(qts, SMMU_BASE + 0x88, below(r, 2) ? 5 : nasty(r));
        qtest_writel(qts, SMMU_BASE + 0x20, (1 << 3) | (1 << 2) | 1);
    }
}

static void one_op(Session *s)
{
    Rng *r = &s->rng;
    QTestState *qts = s->qts;
    QDict *resp;

    switch (below(r, 19)) {
    case 0:
    case 1:
    case 2:
    case 3:
        put_cmds(s);
        break;
    case 4:
    case 5:
        qtest_clock_step(qts, below(r, 3) ? 1 + below(r, 100000) :
                              1 + below(r, 1ULL << 40));
        break;
    case 6:
        qtest_readl(qts, SMMU_BASE + 0x9c);
        break;
    case 7:
        qtest_writel(qts, SMMU_BASE + regs[below(r, ARRAY_SIZE(regs))],
                     nasty(r));
        break;
    case 8:
        /* anywhere in the 128 KiB of registers */
        qtest_writel(qts, SMMU_BASE + (below(r, 0x20000) & ~3ULL), nasty(r));
        break;
    case 9:
        qtest_readl(qts, SMMU_BASE + (below(r, 0x20000) & ~3ULL));
        break;
    case 10:
        qtest_writeq(qts, SMMU_BASE + (below(r, 2) ? 0x90 : 0xa0),
                     below(r, 2) ? rnd(r) : s->qbase | below(r, 32));
        break;
    case 11:
        /* acknowledge errors, toggle the queue */
        qtest_writel(qts, SMMU_BASE + 0x64, qtest_readl(qts, SMMU_BASE + 0x60));
        qtest_writel(qts, SMMU_BASE + 0x20, below(r, 4) ? 1 << 3 : nasty(r));
        break;
    case 12:
        setup_queue(s);
        break;
    case 13:
        if (s->smmu_path && !below(r, 4)) {
            resp = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': "
                             "{ 'path': %s, 'property': 'x-cmdq-stats' } }",
                             s->smmu_path);
            g_assert(qdict_haskey(resp, "return"));
            qobject_unref(resp);
        } else {
            qtest_clock_step(qts, 1 + below(r, 5000));
        }
        break;
    case 14:
        if (!below(r, 40)) {
            qtest_system_reset(qts);
            setup_devices(s);
            setup_queue(s);
        }
        break;
    case 15:
        aim_irq_msis(s);
        break;
    case 16:
        write_while_busy(s);
        break;
    case 17:
        /* the devices' registers, as a guest driver would touch them */
        qtest_writel(qts, dev_regs[below(r, ARRAY_SIZE(dev_regs))],
                     below(r, 2) ? below(r, 0x200) : nasty(r));
        break;
    case 18:
        /* descriptors and DMA buffers in the e1000e's ring */
        qtest_writeq(qts, E1000E_RING + 8 * below(r, 0x200),
                     below(r, 2) ? rnd(r) : RAM_BASE + below(r, RAM_SIZE));
        break;
    default:
        qtest_writel(qts, SMMU_BASE + 0x98, nasty(r));
        break;
    }
}

static const char *const cost_props[] = {
    "cmdq-cmd-ns", "cmdq-sync-ns", "cmdq-cfgi-ns", "cmdq-tlbi-page-ns",
    "cmdq-jitter-ns",
};

/* Random but valid device properties: QEMU must start */
static char *random_props(Rng *r)
{
    GString *s = g_string_new(NULL);
    int i;

    g_string_append_printf(s, "-global arm-smmuv3.cmdqs=%u "
                           "-global arm-smmuv3.eventqs=%u "
                           "-global arm-smmuv3.ril=%s "
                           "-global arm-smmuv3.msi=%s "
                           "-global arm-smmuv3.sev=%s "
                           "-global arm-smmuv3.cmdq-seed=%" PRIu64,
                           (unsigned)below(r, 20), (unsigned)below(r, 20),
                           below(r, 2) ? "on" : "off",
                           below(r, 2) ? "on" : "off",
                           below(r, 4) ? "off" : "on", rnd(r));
    for (i = 0; i < ARRAY_SIZE(cost_props); i++) {
        uint64_t v;

        switch (below(r, 5)) {
        case 0:
            v = 0;
            break;
        case 1:
            v = below(r, 100);
            break;
        case 2:
            v = below(r, 100000);
            break;
        case 3:
            /* any magnitude, up to the largest cost (10^12 ns) */
            v = MIN(rnd(r) >> below(r, 64), 1000000000000ULL);
            break;
        default:
            continue;
        }
        g_string_append_printf(s, " -global arm-smmuv3.%s=%" PRIu64,
                               cost_props[i], v);
    }
    return g_string_free(s, FALSE);
}

/* One session: a QEMU with random properties and @ops operations */
static void session(uint64_t seed, uint64_t ops)
{
    Session s = { .rng = { seed } };
    g_autofree char *props = random_props(&s.rng);
    uint64_t i;

    s.qts = qtest_initf("-M virt,iommu=smmuv3,highmem=off -display none "
                        "-nic none -device edu,addr=01.0 "
                        "-device e1000e,addr=02.0,romfile= %s", props);
    s.smmu_path = find_smmu(s.qts);
    setup_devices(&s);
    setup_queue(&s);
    for (i = 0; i < ops; i++) {
        one_op(&s);
    }
    qtest_quit(s.qts);
    g_free(s.smmu_path);
}

static unsigned count_in(const char *text, const char *what)
{
    unsigned n = 0;
    const char *p = text;

    while ((p = strstr(p, what))) {
        n++;
        p += strlen(what);
    }
    return n;
}

int main(int argc, char **argv)
{
    uint64_t seed = 1, max_ops = 0, session_ops = 20000, replay = 0;
    double seconds = 0;
    const char *findings = NULL;
    gboolean do_replay = FALSE;
    uint64_t ops = 0, sessions = 0, crashes = 0, reports = 0, hangs = 0;
    gint64 start = g_get_monotonic_time(), last = start;
    g_autofree char *errfile = NULL;
    Rng master;
    int i, hang_s = 120;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = g_ascii_strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
            max_ops = g_ascii_strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            seconds = g_ascii_strtod(argv[++i], NULL);
        } else if (!strcmp(argv[i], "--session-ops") && i + 1 < argc) {
            session_ops = MAX(1, g_ascii_strtoull(argv[++i], NULL, 0));
        } else if (!strcmp(argv[i], "--findings") && i + 1 < argc) {
            findings = argv[++i];
        } else if (!strcmp(argv[i], "--replay") && i + 1 < argc) {
            replay = g_ascii_strtoull(argv[++i], NULL, 0);
            do_replay = TRUE;
        } else {
            fprintf(stderr, "smmuv3-cmdq-fuzz: unknown argument %s\n"
                    "usage: smmuv3-cmdq-fuzz [--seed S] [--ops N | --seconds T] "
                    "[--session-ops K] [--findings DIR] [--replay SESSION_SEED]\n",
                    argv[i]);
            return 2;
        }
    }
    if (!g_getenv("QTEST_QEMU_BINARY")) {
        fprintf(stderr, "smmuv3-cmdq-fuzz: set QTEST_QEMU_BINARY\n");
        return 2;
    }
    /* QEMU's own leaks at exit are not what this looks for */
    g_setenv("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1", FALSE);
    g_setenv("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1", FALSE);
    if (do_replay) {
        session(replay, session_ops);
        printf("replayed session %" PRIu64 ": no crash\n", replay);
        return 0;
    }
    if (!max_ops && !seconds) {
        seconds = 5;
    }
    if (findings) {
        g_mkdir_with_parents(findings, 0755);
    }
    errfile = g_strdup_printf("%s/smmuv3-cmdq-fuzz-%d.err", g_get_tmp_dir(),
                              getpid());
    master.s = seed;
    printf("smmuv3-cmdq-fuzz: seed %" PRIu64 ", %" PRIu64 " ops per session\n",
           seed, session_ops);
    fflush(stdout);

    for (;;) {
        uint64_t sseed = rnd(&master);
        uint64_t n = session_ops;
        g_autofree char *err = NULL;
        gint64 deadline;
        int status = 0;
        pid_t pid;
        gboolean hung = FALSE, bad = FALSE;
        unsigned rep;

        if (max_ops && ops >= max_ops) {
            break;
        }
        if (seconds && (g_get_monotonic_time() - start) / 1e6 >= seconds) {
            break;
        }
        if (max_ops) {
            n = MIN(n, max_ops - ops);
        }
        fflush(stdout);
        pid = fork();
        if (pid == 0) {
            int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);

            setpgid(0, 0);
            if (fd >= 0) {
                dup2(fd, 2);
                close(fd);
            }
            session(sseed, n);
            _exit(0);
        }
        deadline = g_get_monotonic_time() + hang_s * G_USEC_PER_SEC;
        while (waitpid(pid, &status, WNOHANG) == 0) {
            if (g_get_monotonic_time() > deadline) {
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                hung = TRUE;
                break;
            }
            g_usleep(20000);
        }
        sessions++;
        ops += n;
        g_file_get_contents(errfile, &err, NULL, NULL);
        rep = err ? count_in(err, "ERROR: AddressSanitizer") +
                    count_in(err, "runtime error:") : 0;
        reports += rep;
        if (hung) {
            hangs++;
            bad = TRUE;
        } else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
            crashes++;
            bad = TRUE;
        }
        if ((bad || rep) && findings) {
            g_autofree char *path =
                g_strdup_printf("%s/session-%" PRIu64 ".txt", findings, sseed);
            g_autofree char *text = g_strdup_printf(
                "session seed %" PRIu64 " (replay: --replay %" PRIu64
                " --session-ops %" PRIu64 ")\n%s\nstderr:\n%s", sseed, sseed, n,
                hung ? "hang" : "crash or sanitizer report", err ? err : "");

            g_file_set_contents(path, text, -1, NULL);
        }
        if (bad || rep) {
            printf("smmuv3-cmdq-fuzz: session %" PRIu64 ": %s%s (replay with "
                   "--replay %" PRIu64 " --session-ops %" PRIu64 ")\n", sseed,
                   hung ? "hang" : (bad ? "crash" : ""),
                   rep ? " sanitizer report" : "", sseed, n);
        }
        if (g_get_monotonic_time() - last > 10 * G_USEC_PER_SEC) {
            last = g_get_monotonic_time();
            printf("smmuv3-cmdq-fuzz: %.0fs: %" PRIu64 " ops in %" PRIu64
                   " sessions, %" PRIu64 " crashes, %" PRIu64
                   " sanitizer reports, %" PRIu64 " hangs\n",
                   (last - start) / 1e6, ops, sessions, crashes, reports,
                   hangs);
        }
    }
    unlink(errfile);
    printf("smmuv3-cmdq-fuzz: %" PRIu64 " operations, %" PRIu64
           " sessions, %" PRIu64 " crashes, %" PRIu64
           " sanitizer reports, %" PRIu64 " hangs in %.1fs\n", ops, sessions,
           crashes, reports, hangs,
           (g_get_monotonic_time() - start) / 1e6);
    return crashes || reports || hangs ? 1 : 0;
}
