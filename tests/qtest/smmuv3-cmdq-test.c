/*
 * QTest for smmulab's slow SMMUv3 command queue
 *
 * Register by register and nanosecond by nanosecond: ID registers follow
 * the cmdqs/eventqs/ril properties, and commands retire one at a time, in
 * order, exactly their cost after they become visible or after the one
 * before them retires.  The virtual clock only moves with clock_step, so
 * every CONS value below is exact.
 *
 * Copyright (c) 2026 The smmulab authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qemu/bitops.h"
#include "qemu/bswap.h"
#include "qobject/qdict.h"
#include "qobject/qlist.h"

#define SMMU_BASE       0x09050000ULL
/* In guest RAM on virt, away from the DTB that reset copies to its start */
#define QUEUE_ADDR      0x44000000ULL

#define R_IDR0          0x00
#define R_IDR1          0x04
#define R_IDR3          0x0c
#define R_CR0           0x20
#define R_GERROR        0x60
#define R_GERRORN       0x64
#define R_CMDQ_BASE     0x90
#define R_CMDQ_PROD     0x98
#define R_CMDQ_CONS     0x9c
#define R_EVENTQ_BASE   0xa0

#define CR0_SMMUEN      (1U << 0)
#define CR0_CMDQEN      (1U << 3)
#define GERROR_CMDQ_ERR (1U << 0)
#define GERROR_MSI_CMDQ_ABT_ERR (1U << 4)
#define IDR0_MSI        (1U << 13)
#define IDR0_SEV        (1U << 14)
#define SYNC_CS_IRQ     (1U << 12)
/* Where MSI tests have their CMD_SYNCs write: guest RAM, off the queue */
#define MSI_ADDR        (QUEUE_ADDR + 0x10000)
#define CONS_ERR(e)     ((uint32_t)(e) << 24)
#define CERROR_ILL      1
#define CERROR_ABT      2

#define OP_PREFETCH_CFG 0x01
#define OP_CFGI_STE     0x03
#define OP_TLBI_NH_ALL  0x10
#define OP_TLBI_NH_VA   0x12
#define OP_TLBI_NH_VAA  0x13
#define OP_TLBI_EL3_VA  0x1a
#define OP_TLBI_EL2_VA  0x22
#define OP_TLBI_EL2_VAA 0x23
#define OP_SYNC         0x46
#define OP_ILLEGAL      0x7f

typedef struct Cmd {
    uint32_t word[4];
} Cmd;

static QTestState *smmu_start(const char *props)
{
    return qtest_initf("-M virt,iommu=smmuv3 -display none -nic none %s",
                       props);
}

static uint32_t rd(QTestState *qts, uint32_t off)
{
    return qtest_readl(qts, SMMU_BASE + off);
}

static void wr(QTestState *qts, uint32_t off, uint32_t val)
{
    qtest_writel(qts, SMMU_BASE + off, val);
}

static uint32_t cons(QTestState *qts)
{
    return rd(qts, R_CMDQ_CONS);
}

/*
 * Exactly @ns from now the next command retires: one ns before, CONS
 * still reads @before; at @ns it reads @after.  @mask selects the CONS
 * bits compared (all of them, or the index and wrap without CONS.ERR).
 */
static void retires_in_masked(QTestState *qts, int64_t ns, uint32_t before,
                              uint32_t after, uint32_t mask)
{
    if (ns > 1) {
        qtest_clock_step(qts, ns - 1);
    }
    g_assert_cmphex(cons(qts) & mask, ==, before);
    qtest_clock_step(qts, 1);
    g_assert_cmphex(cons(qts) & mask, ==, after);
}

static void retires_in(QTestState *qts, int64_t ns, uint32_t before,
                       uint32_t after)
{
    retires_in_masked(qts, ns, before, after, UINT32_MAX);
}

/* Point the command queue at RAM with 2^log2size entries and enable it */
static void cmdq_setup(QTestState *qts, uint8_t log2size)
{
    qtest_writeq(qts, SMMU_BASE + R_CMDQ_BASE, QUEUE_ADDR | log2size);
    wr(qts, R_CMDQ_PROD, 0);
    wr(qts, R_CMDQ_CONS, 0);
    wr(qts, R_CR0, CR0_CMDQEN);
}

static void put_cmd(QTestState *qts, uint8_t log2size, uint32_t idx, Cmd c)
{
    uint32_t i;

    for (i = 0; i < 4; i++) {
        c.word[i] = cpu_to_le32(c.word[i]);
    }
    qtest_memwrite(qts, QUEUE_ADDR + 16 * (idx & ((1U << log2size) - 1)),
                   &c, sizeof(c));
}

static Cmd cmd_op(uint8_t op)
{
    Cmd c = { { op, 0, 0, 0 } };

    return c;
}

static Cmd cmd_tlbi_va(uint8_t tg, uint8_t num, uint8_t scale)
{
    Cmd c = { { OP_TLBI_NH_VA | (num << 12) | (scale << 20), 0,
                (tg << 10) | 0x1000, 0 } };

    return c;
}

static char *smmu_path(QTestState *qts)
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
    g_assert(path);
    return path;
}

/* qom-get x-cmdq-stats; the caller unrefs the returned response */
static QDict *stats_get(QTestState *qts, QDict **resp)
{
    g_autofree char *path = smmu_path(qts);

    *resp = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': "
                      "{ 'path': %s, 'property': 'x-cmdq-stats' } }", path);
    g_assert(qdict_haskey(*resp, "return"));
    return qdict_get_qdict(*resp, "return");
}

static int64_t get_stat(QTestState *qts, const char *name)
{
    QDict *resp, *st = stats_get(qts, &resp);
    int64_t v = qdict_get_int(st, name);

    qobject_unref(resp);
    return v;
}

/* ID registers and queue base reset values follow the properties */
static void check_idr(const char *props, uint8_t cmdqs, uint8_t eventqs,
                      bool ril)
{
    QTestState *qts = smmu_start(props);
    uint32_t idr1 = rd(qts, R_IDR1);

    g_assert_cmpuint(extract32(idr1, 21, 5), ==, cmdqs);
    g_assert_cmpuint(extract32(idr1, 16, 5), ==, eventqs);
    g_assert_cmpuint(extract32(rd(qts, R_IDR3), 10, 1), ==, ril);
    g_assert_cmpuint(qtest_readq(qts, SMMU_BASE + R_CMDQ_BASE) & 0x1f, ==,
                     cmdqs);
    g_assert_cmpuint(qtest_readq(qts, SMMU_BASE + R_EVENTQ_BASE) & 0x1f, ==,
                     eventqs);
    qtest_quit(qts);
}

static void test_idr_default(void)
{
    check_idr("", 19, 19, true);
}

static void test_idr_values(void)
{
    check_idr("-global arm-smmuv3.cmdqs=8 -global arm-smmuv3.ril=off",
              8, 19, false);
    check_idr("-global arm-smmuv3.cmdqs=7 -global arm-smmuv3.eventqs=7",
              7, 7, true);
    check_idr("-global arm-smmuv3.cmdqs=0 -global arm-smmuv3.eventqs=12 "
              "-global arm-smmuv3.ril=on", 0, 12, true);
    check_idr("-global arm-smmuv3.cmdqs=19 -global arm-smmuv3.eventqs=0 "
              "-global arm-smmuv3.ril=off", 19, 0, false);
}

/*
 * CMDQ_BASE.LOG2SIZE above cmdqs is clamped: with cmdqs=7 a PROD of 0x80
 * (index 0, wrap 1) is a full 128-entry queue, not 128 of 4096.
 */
static void test_clamp(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=7");

    qtest_writeq(qts, SMMU_BASE + R_CMDQ_BASE, QUEUE_ADDR | 12);
    wr(qts, R_CMDQ_PROD, 0x80);         /* queue disabled: nothing runs */
    g_assert_cmpint(get_stat(qts, "full"), ==, 1);
    g_assert_cmpint(get_stat(qts, "max-pending"), ==, 128);
    qtest_quit(qts);

    qts = smmu_start("-global arm-smmuv3.cmdqs=12");
    qtest_writeq(qts, SMMU_BASE + R_CMDQ_BASE, QUEUE_ADDR | 12);
    wr(qts, R_CMDQ_PROD, 0x80);
    g_assert_cmpint(get_stat(qts, "full"), ==, 0);
    g_assert_cmpint(get_stat(qts, "max-pending"), ==, 128);
    qtest_quit(qts);
}

/* Out-of-range properties stop QEMU with one line naming them */
static void check_bad_prop(const char *prop, const char *msg)
{
    const char *qemu = g_getenv("QTEST_QEMU_BINARY");
    g_autofree char *out = NULL, *err = NULL;
    g_autofree char *global = g_strdup_printf("arm-smmuv3.%s", prop);
    const char *line;
    const char *argv[] = {
        qemu, "-M", "virt,iommu=smmuv3", "-display", "none", "-nic", "none",
        "-accel",
        "qtest", "-qtest", "null", "-global", global, NULL,
    };
    int status;

    g_assert(qemu);
    g_assert(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL,
                          NULL, &out, &err, &status, NULL));
    line = err;
    g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    if (!strstr(err, msg)) {
        g_test_message("stderr: %s", err);
    }
    g_assert_nonnull(strstr(err, msg));
    /* QEMU names the device already: the message does not again */
    g_assert_null(strstr(err, ": arm-smmuv3: "));
    /* one line, after any sanitizer's notes ("==PID==WARNING: ...") */
    while (g_str_has_prefix(line, "==") && strchr(line, '\n')) {
        line = strchr(line, '\n') + 1;
    }
    g_assert_null(strchr(strchr(line, '\n') + 1, '\n'));
}

static void test_bad_props(void)
{
    static const char *const costs[] = {
        "cmdq-cmd-ns", "cmdq-sync-ns", "cmdq-cfgi-ns", "cmdq-tlbi-page-ns",
        "cmdq-jitter-ns",
    };
    static const char *const u64[] = {
        "cmdq-cmd-ns", "cmdq-sync-ns", "cmdq-cfgi-ns", "cmdq-tlbi-page-ns",
        "cmdq-jitter-ns", "cmdq-seed",
    };
    int i;

    /* out of range, too large for the type, negative, not a number */
    check_bad_prop("cmdqs=20", "cmdqs=20 is out of range 0..19");
    check_bad_prop("eventqs=31", "eventqs=31 is out of range 0..19");
    check_bad_prop("cmdqs=256", "Parameter 'cmdqs' expects uint8_t");
    check_bad_prop("cmdqs=-1", "Parameter 'cmdqs' expects uint8_t");
    check_bad_prop("eventqs=-3", "Parameter 'eventqs' expects uint8_t");
    check_bad_prop("eventqs=seven", "Parameter 'eventqs' expects");
    check_bad_prop("ril=maybe", "ril");
    check_bad_prop("ril=2", "ril");
    for (i = 0; i < ARRAY_SIZE(costs); i++) {
        g_autofree char *over = g_strdup_printf("%s=1000000000001",
                                                costs[i]);
        g_autofree char *over_msg = g_strdup_printf(
            "%s=1000000000001 is out of range 0..1000000000000", costs[i]);
        /* qdev's uint64 takes -1 for 2^64 - 1: refused as out of range */
        g_autofree char *neg = g_strdup_printf("%s=-1", costs[i]);
        g_autofree char *neg_msg = g_strdup_printf(
            "%s=18446744073709551615 is out of range 0..1000000000000",
            costs[i]);

        check_bad_prop(over, over_msg);
        check_bad_prop(neg, neg_msg);
    }
    for (i = 0; i < ARRAY_SIZE(u64); i++) {
        g_autofree char *msg = g_strdup_printf("Parameter '%s' expects",
                                               u64[i]);
        g_autofree char *huge = g_strdup_printf("%s=18446744073709551616",
                                                u64[i]);
        g_autofree char *nan = g_strdup_printf("%s=fast", u64[i]);
        /* nanoseconds, not a size: no k, M, G suffixes */
        g_autofree char *suffix = g_strdup_printf("%s=1k", u64[i]);

        check_bad_prop(huge, msg);
        check_bad_prop(nan, msg);
        check_bad_prop(suffix, msg);
    }
}

/* All costs 0: consumed inside the PROD write, as upstream */
static void test_zero_cost(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8");
    QDict *resp, *st;

    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_op(OP_TLBI_NH_ALL));
    put_cmd(qts, 8, 1, cmd_op(OP_SYNC));
    wr(qts, R_CMDQ_PROD, 2);
    g_assert_cmphex(cons(qts), ==, 2);
    st = stats_get(qts, &resp);
    g_assert_false(qdict_get_bool(st, "timed"));
    g_assert_cmpint(qdict_get_int(st, "retired"), ==, 2);
    g_assert_cmpint(qdict_get_int(st, "syncs"), ==, 1);
    g_assert_cmpint(qdict_get_int(st, "max-sync-wait-ns"), ==, 0);
    qobject_unref(resp);
    qtest_quit(qts);
}

/* Three commands of cmd_ns each, submitted at once, retire one by one */
static void test_cost_cmd(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 "
                                 "-global arm-smmuv3.cmdq-cmd-ns=1000");
    int i;

    cmdq_setup(qts, 8);
    for (i = 0; i < 3; i++) {
        put_cmd(qts, 8, i, cmd_op(OP_SYNC));
    }
    wr(qts, R_CMDQ_PROD, 3);
    g_assert_cmphex(cons(qts), ==, 0);
    retires_in(qts, 1000, 0, 1);
    retires_in(qts, 1000, 1, 2);
    qtest_clock_step(qts, 1000);
    g_assert_cmphex(cons(qts), ==, 3);
    qtest_clock_step(qts, 100000);
    g_assert_cmphex(cons(qts), ==, 3);
    qtest_quit(qts);
}

/* sync_ns, cfgi_ns and tlbi_page_ns add to cmd_ns for their commands */
static void test_cost_kinds(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 "
                                 "-global arm-smmuv3.cmdq-cmd-ns=100 "
                                 "-global arm-smmuv3.cmdq-sync-ns=500 "
                                 "-global arm-smmuv3.cmdq-cfgi-ns=70 "
                                 "-global arm-smmuv3.cmdq-tlbi-page-ns=10");
    static const struct {
        Cmd cmd;
        uint32_t cost;
    } seq[] = {
        { { { OP_TLBI_NH_ALL } }, 100 },
        { { { OP_SYNC } }, 600 },
        { { { OP_CFGI_STE, 5 } }, 170 },
        { { { OP_TLBI_NH_VA, 0, 0x1000 } }, 110 },     /* one page */
    };
    int i;

    cmdq_setup(qts, 8);
    for (i = 0; i < ARRAY_SIZE(seq); i++) {
        put_cmd(qts, 8, i, seq[i].cmd);
    }
    /* range TLBI: (NUM 3 + 1) << SCALE 2 = 16 pages */
    put_cmd(qts, 8, i, cmd_tlbi_va(1, 3, 2));
    wr(qts, R_CMDQ_PROD, i + 1);
    for (i = 0; i < ARRAY_SIZE(seq); i++) {
        retires_in(qts, seq[i].cost, i, i + 1);
    }
    retires_in(qts, 100 + 16 * 10, i, i + 1);
    g_assert_cmpint(get_stat(qts, "tlbi-pages"), ==, 1 + 16);
    qtest_quit(qts);
}

/*
 * A command submitted to an idle queue starts at its PROD write; one
 * submitted behind busy work starts when its predecessor retires.
 */
static void test_submit_idle_and_busy(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 "
                                 "-global arm-smmuv3.cmdq-cmd-ns=1000");

    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_op(OP_SYNC));
    put_cmd(qts, 8, 1, cmd_op(OP_SYNC));
    put_cmd(qts, 8, 2, cmd_op(OP_SYNC));
    /* idle for a long time, then submit: nothing is owed from before */
    qtest_clock_step(qts, 50000);
    wr(qts, R_CMDQ_PROD, 1);
    retires_in(qts, 1000, 0, 1);
    /* busy: B submitted 300 ns into A's work retires 1000 after A */
    wr(qts, R_CMDQ_PROD, 2);
    qtest_clock_step(qts, 300);
    wr(qts, R_CMDQ_PROD, 3);
    retires_in(qts, 700, 1, 2);
    retires_in(qts, 1000, 2, 3);
    g_assert_cmpint(get_stat(qts, "max-queued-ns"), ==, 700);
    qtest_quit(qts);
}

/* Twice round a 128-entry queue, in uneven batches */
static void test_wrap(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=7 "
                                 "-global arm-smmuv3.cmdq-cmd-ns=10");
    uint32_t prod = 0, n = 0;
    static const uint32_t batch[] = { 100, 100, 28, 127, 1, 50 };
    int b, i;

    cmdq_setup(qts, 7);
    for (b = 0; b < ARRAY_SIZE(batch); b++) {
        for (i = 0; i < batch[b]; i++) {
            put_cmd(qts, 7, prod + i, cmd_op(i % 2 ? OP_SYNC : OP_TLBI_NH_ALL));
        }
        prod = (prod + batch[b]) & 0xff;
        n += batch[b];
        wr(qts, R_CMDQ_PROD, prod);
        retires_in(qts, 10 * batch[b], (prod - 1) & 0xff, prod);
    }
    g_assert_cmphex(prod, ==, n & 0xff);
    g_assert_cmpint(get_stat(qts, "retired"), ==, n);
    g_assert_cmpint(get_stat(qts, "max-pending"), ==, 127);
    qtest_quit(qts);
}

/* A full queue is counted, and drains */
static void test_full(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=7 "
                                 "-global arm-smmuv3.cmdq-cmd-ns=10");
    int i;

    cmdq_setup(qts, 7);
    for (i = 0; i < 128; i++) {
        put_cmd(qts, 7, i, cmd_op(OP_SYNC));
    }
    wr(qts, R_CMDQ_PROD, 0x80);
    g_assert_cmpint(get_stat(qts, "full"), ==, 1);
    g_assert_cmpint(get_stat(qts, "max-pending"), ==, 128);
    qtest_clock_step(qts, 1280);
    g_assert_cmphex(cons(qts), ==, 0x80);
    qtest_quit(qts);
}

/* ril=off: range fields are a guest error, costed as one page */
static void test_ril_off_range(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 "
                                 "-global arm-smmuv3.ril=off "
                                 "-global arm-smmuv3.cmdq-tlbi-page-ns=10");

    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_tlbi_va(1, 31, 10));
    wr(qts, R_CMDQ_PROD, 1);
    retires_in(qts, 10, 0, 1);      /* not a command error */
    g_assert_cmphex(rd(qts, R_GERROR) & GERROR_CMDQ_ERR, ==, 0);
    g_assert_cmpint(get_stat(qts, "ril-off-ranges"), ==, 1);
    g_assert_cmpint(get_stat(qts, "tlbi-pages"), ==, 1);
    qtest_quit(qts);
}

/* CMDQEN=0 stops retirement; re-enabling starts the head afresh */
static void test_disable(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 "
                                 "-global arm-smmuv3.cmdq-cmd-ns=1000");
    int i;

    cmdq_setup(qts, 8);
    for (i = 0; i < 3; i++) {
        put_cmd(qts, 8, i, cmd_op(OP_SYNC));
    }
    wr(qts, R_CMDQ_PROD, 3);
    qtest_clock_step(qts, 1500);
    g_assert_cmphex(cons(qts), ==, 1);
    wr(qts, R_CR0, 0);
    qtest_clock_step(qts, 10000);
    g_assert_cmphex(cons(qts), ==, 1);
    wr(qts, R_CR0, CR0_CMDQEN);
    retires_in(qts, 1000, 1, 2);
    qtest_clock_step(qts, 1000);
    g_assert_cmphex(cons(qts), ==, 3);
    qtest_quit(qts);
}

/*
 * An illegal command raises CMDQ_ERR when it retires; nothing retires
 * until GERRORN acknowledges, then work resumes from CONS.
 */
static void test_cmdq_err(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 "
                                 "-global arm-smmuv3.cmdq-cmd-ns=100");
    uint32_t gerror;

    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_op(OP_SYNC));
    put_cmd(qts, 8, 1, cmd_op(OP_ILLEGAL));
    put_cmd(qts, 8, 2, cmd_op(OP_SYNC));
    wr(qts, R_CMDQ_PROD, 3);
    qtest_clock_step(qts, 100);
    g_assert_cmphex(cons(qts), ==, 1);
    g_assert_cmphex(rd(qts, R_GERROR) & GERROR_CMDQ_ERR, ==, 0);
    qtest_clock_step(qts, 99);
    g_assert_cmphex(rd(qts, R_GERROR) & GERROR_CMDQ_ERR, ==, 0);
    qtest_clock_step(qts, 1);
    gerror = rd(qts, R_GERROR);
    g_assert_cmphex(gerror & GERROR_CMDQ_ERR, ==, GERROR_CMDQ_ERR);
    /* CONS.ERR = CERROR_ILL (1), index still at the bad command */
    g_assert_cmphex(cons(qts), ==, (1 << 24) | 1);
    qtest_clock_step(qts, 10000);
    g_assert_cmphex(cons(qts) & 0xffffff, ==, 1);
    /* the driver replaces the bad command, then acknowledges */
    put_cmd(qts, 8, 1, cmd_op(OP_SYNC));
    wr(qts, R_GERRORN, gerror);
    retires_in_masked(qts, 100, 1, 2, 0xffffff);
    qtest_clock_step(qts, 100);
    g_assert_cmphex(cons(qts) & 0xffffff, ==, 3);
    qtest_quit(qts);
}

/* Reset cancels pending work */
static void test_reset(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 "
                                 "-global arm-smmuv3.cmdq-cmd-ns=1000");
    int i;

    cmdq_setup(qts, 8);
    for (i = 0; i < 4; i++) {
        put_cmd(qts, 8, i, cmd_op(OP_SYNC));
    }
    wr(qts, R_CMDQ_PROD, 4);
    qtest_clock_step(qts, 1500);
    g_assert_cmphex(cons(qts), ==, 1);
    qtest_system_reset(qts);
    g_assert_cmphex(cons(qts), ==, 0);
    g_assert_cmphex(rd(qts, R_CMDQ_PROD), ==, 0);
    g_assert_cmphex(rd(qts, R_CR0), ==, 0);
    g_assert_cmpint(get_stat(qts, "pending"), ==, 0);
    g_assert_cmpint(get_stat(qts, "retired"), ==, 0);
    qtest_clock_step(qts, 10000);
    g_assert_cmphex(cons(qts), ==, 0);
    /* and the queue works again after reset */
    cmdq_setup(qts, 8);
    wr(qts, R_CMDQ_PROD, 1);
    qtest_clock_step(qts, 1000);
    g_assert_cmphex(cons(qts), ==, 1);
    qtest_quit(qts);
}

/*
 * Counters via QMP.  An unmap (TLBI + CMD_SYNC) at 50 us per command is a
 * 100 us CMD_SYNC wait, exactly.
 */
static void test_stats(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 "
                                 "-global arm-smmuv3.ril=off "
                                 "-global arm-smmuv3.cmdq-cmd-ns=50000");
    QDict *resp, *st, *ops;
    int i;

    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_tlbi_va(0, 0, 0));
    put_cmd(qts, 8, 1, cmd_op(OP_SYNC));
    wr(qts, R_CMDQ_PROD, 2);
    /* a driver polling CONS while the SYNC is pending */
    for (i = 1; i < 10; i++) {
        qtest_clock_step(qts, 10000);
        g_assert_cmphex(cons(qts), ==, i >= 5 ? 1 : 0);
    }
    qtest_clock_step(qts, 10000);
    g_assert_cmphex(cons(qts), ==, 2);

    st = stats_get(qts, &resp);
    g_assert_true(qdict_get_bool(st, "timed"));
    g_assert_cmpint(qdict_get_int(st, "retired"), ==, 2);
    g_assert_cmpint(qdict_get_int(st, "syncs"), ==, 1);
    g_assert_cmpint(qdict_get_int(st, "max-pending"), ==, 2);
    g_assert_cmpint(qdict_get_int(st, "full"), ==, 0);
    g_assert_cmpint(qdict_get_int(st, "cons-reads-busy"), ==, 9);
    g_assert_cmpint(qdict_get_int(st, "prod-writes"), ==, 2);
    g_assert_cmpint(qdict_get_int(st, "max-sync-wait-ns"), ==, 100000);
    g_assert_cmpint(qdict_get_int(st, "total-sync-wait-ns"), ==, 100000);
    g_assert_cmpint(qdict_get_int(st, "busy-ns"), ==, 100000);
    g_assert_cmpint(qdict_get_int(st, "pending"), ==, 0);
    ops = qdict_get_qdict(st, "opcodes");
    g_assert_cmpint(qdict_get_int(ops, "SYNC"), ==, 1);
    g_assert_cmpint(qdict_get_int(ops, "TLBI_NH_VA"), ==, 1);
    g_assert_cmpint(qdict_size(ops), ==, 2);
    qobject_unref(resp);
    qtest_quit(qts);
}

/*
 * A CMD_SYNC that signals nothing, last in the queue, retires without a
 * timer, at the next look: still exactly at its due time for a CONS read,
 * and counted when the counters are read without any register access.
 */
static void test_lazy_sync(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 "
                                 "-global arm-smmuv3.cmdq-cmd-ns=1000");
    QDict *resp, *st;

    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_op(OP_SYNC));
    wr(qts, R_CMDQ_PROD, 1);
    qtest_clock_step(qts, 1000);
    /* no register access since the PROD write: the counters look */
    st = stats_get(qts, &resp);
    g_assert_cmpint(qdict_get_int(st, "retired"), ==, 1);
    g_assert_cmpint(qdict_get_int(st, "pending"), ==, 0);
    g_assert_cmpint(qdict_get_int(st, "late-retired"), ==, 0);
    qobject_unref(resp);
    g_assert_cmphex(cons(qts), ==, 1);

    /* a CONS read 1 ns early does not see it, one at its due time does */
    put_cmd(qts, 8, 1, cmd_op(OP_SYNC));
    wr(qts, R_CMDQ_PROD, 2);
    qtest_clock_step(qts, 999);
    g_assert_cmphex(cons(qts), ==, 1);
    qtest_clock_step(qts, 1);
    g_assert_cmphex(cons(qts), ==, 2);

    /* a command queued behind it: it retires on time, the next after it */
    put_cmd(qts, 8, 2, cmd_op(OP_SYNC));
    put_cmd(qts, 8, 3, cmd_op(OP_SYNC));
    wr(qts, R_CMDQ_PROD, 3);
    qtest_clock_step(qts, 500);
    wr(qts, R_CMDQ_PROD, 4);
    qtest_clock_step(qts, 1499);
    g_assert_cmphex(cons(qts), ==, 3);
    qtest_clock_step(qts, 1);
    g_assert_cmphex(cons(qts), ==, 4);
    qtest_quit(qts);
}

/* IDR0.MSI and IDR0.SEV follow the msi and sev properties, off by default */
static void test_idr_msi_sev(void)
{
    static const struct {
        const char *props;
        uint32_t idr0;
    } cases[] = {
        { "", 0 },
        { "-global arm-smmuv3.msi=on", IDR0_MSI },
        { "-global arm-smmuv3.sev=on", IDR0_SEV },
        { "-global arm-smmuv3.msi=on -global arm-smmuv3.sev=on",
          IDR0_MSI | IDR0_SEV },
    };
    int i;

    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        QTestState *qts = smmu_start(cases[i].props);

        g_assert_cmphex(rd(qts, R_IDR0) & (IDR0_MSI | IDR0_SEV), ==,
                        cases[i].idr0);
        qtest_quit(qts);
    }
}

static Cmd cmd_sync_msi(uint64_t addr, uint32_t data)
{
    Cmd c = { { OP_SYNC | SYNC_CS_IRQ, data, (uint32_t)addr & ~3U,
                (addr >> 32) & 0xfffff } };

    return c;
}

/*
 * Every counter at cost 0, from a known stream: with every cost 0 the
 * model still counts what it reports for every control run (the cost-0
 * path was made cheaper, never by counting less).  Commands executed, by
 * opcode, CMD_SYNCs among them, TLBI pages (with and without RIL), PROD
 * writes, CONS reads that find work, the most commands left pending and
 * PROD writes that leave the queue full (with the queue disabled, or
 * stopped by an illegal command), MSI writes and aborts; the timed
 * engine's counters stay 0.
 */
static void check_zero_cost_counters(bool ril)
{
    g_autofree char *props = g_strdup_printf("-global arm-smmuv3.cmdqs=4 "
                                             "-global arm-smmuv3.msi=on "
                                             "-global arm-smmuv3.ril=%s",
                                             ril ? "on" : "off");
    QTestState *qts = smmu_start(props);
    static const char *const zero[] = {
        "busy-ns", "max-sync-wait-ns", "total-sync-wait-ns", "max-queued-ns",
        "late-retired", "late-max-ns", "late-mean-ns", "msi-late-max-ns",
        "msi-late-mean-ns", "pending",
    };
    QDict *resp, *st, *ops;
    uint32_t gerror;
    int i;

    cmdq_setup(qts, 4);                 /* a PROD write, of 0 */
    /* one batch of each kind of command, all retired inside the write */
    put_cmd(qts, 4, 0, cmd_tlbi_va(0, 0, 0));
    put_cmd(qts, 4, 1, cmd_tlbi_va(1, 3, 2));      /* 16 pages with RIL */
    put_cmd(qts, 4, 2, cmd_op(OP_CFGI_STE));
    put_cmd(qts, 4, 3, cmd_sync_msi(MSI_ADDR, 0x1234));
    put_cmd(qts, 4, 4, cmd_sync_msi(1ULL << 51, 1));   /* aborts */
    wr(qts, R_CMDQ_PROD, 5);
    g_assert_cmphex(cons(qts), ==, 5);  /* empty: not a busy read */
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0x1234);

    /* an illegal command stops the queue with two commands pending */
    put_cmd(qts, 4, 5, cmd_op(OP_SYNC));
    put_cmd(qts, 4, 6, cmd_op(OP_ILLEGAL));
    put_cmd(qts, 4, 7, cmd_op(OP_SYNC));
    wr(qts, R_CMDQ_PROD, 8);
    g_assert_cmphex(cons(qts), ==, CONS_ERR(CERROR_ILL) | 6);   /* busy */
    g_assert_cmphex(cons(qts), ==, CONS_ERR(CERROR_ILL) | 6);   /* busy */
    put_cmd(qts, 4, 6, cmd_op(OP_SYNC));
    gerror = rd(qts, R_GERROR);
    wr(qts, R_GERRORN, gerror);
    g_assert_cmphex(cons(qts) & 0xffffff, ==, 8);

    /* a whole queue published while disabled, twice, then run */
    wr(qts, R_CR0, 0);
    for (i = 8; i < 24; i++) {
        put_cmd(qts, 4, i, cmd_op(OP_SYNC));
    }
    wr(qts, R_CMDQ_PROD, 24);           /* index 8, wrapped */
    g_assert_cmphex(cons(qts) & 0xffffff, ==, 8);   /* busy */
    wr(qts, R_CMDQ_PROD, 24);
    wr(qts, R_CR0, CR0_CMDQEN);
    g_assert_cmphex(cons(qts) & 0xffffff, ==, 24);

    st = stats_get(qts, &resp);
    g_assert_false(qdict_get_bool(st, "timed"));
    g_assert_cmpint(qdict_get_int(st, "retired"), ==, 24);
    g_assert_cmpint(qdict_get_int(st, "syncs"), ==, 21);
    g_assert_cmpint(qdict_get_int(st, "prod-writes"), ==, 5);
    g_assert_cmpint(qdict_get_int(st, "cons-reads-busy"), ==, 3);
    g_assert_cmpint(qdict_get_int(st, "max-pending"), ==, 16);
    g_assert_cmpint(qdict_get_int(st, "full"), ==, 2);
    g_assert_cmpint(qdict_get_int(st, "tlbi-pages"), ==, ril ? 17 : 2);
    g_assert_cmpint(qdict_get_int(st, "ril-off-ranges"), ==, ril ? 0 : 1);
    g_assert_cmpint(qdict_get_int(st, "msi-writes"), ==, 2);
    g_assert_cmpint(qdict_get_int(st, "msi-aborts"), ==, 1);
    for (i = 0; i < ARRAY_SIZE(zero); i++) {
        g_assert_cmpint(qdict_get_int(st, zero[i]), ==, 0);
    }
    ops = qdict_get_qdict(st, "opcodes");
    g_assert_cmpint(qdict_get_int(ops, "TLBI_NH_VA"), ==, 2);
    g_assert_cmpint(qdict_get_int(ops, "CFGI_STE"), ==, 1);
    g_assert_cmpint(qdict_get_int(ops, "SYNC"), ==, 21);
    g_assert_cmpint(qdict_size(ops), ==, 3);
    /* the 20 counters, "timed" and "opcodes": none missing, none added */
    g_assert_cmpint(qdict_size(st), ==, 22);
    qobject_unref(resp);
    qtest_quit(qts);
}

static void test_zero_cost_counters(void)
{
    check_zero_cost_counters(true);
    check_zero_cost_counters(false);
}

/*
 * With msi=on a CMD_SYNC's MSI write lands exactly when it retires, by
 * the timer alone (the guest polls memory, no register access), and not
 * 1 ns before; under qtest's clock the host is never late.
 */
static void test_msi_at_retire(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 -global "
                                 "arm-smmuv3.msi=on -global "
                                 "arm-smmuv3.cmdq-cmd-ns=1000");

    qtest_writel(qts, MSI_ADDR, 0xffffffff);
    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_op(OP_TLBI_NH_ALL));
    put_cmd(qts, 8, 1, cmd_sync_msi(MSI_ADDR, 0x5a5a));
    wr(qts, R_CMDQ_PROD, 2);
    qtest_clock_step(qts, 1999);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0xffffffff);
    qtest_clock_step(qts, 1);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0x5a5a);
    g_assert_cmpint(get_stat(qts, "msi-writes"), ==, 1);
    g_assert_cmpint(get_stat(qts, "msi-aborts"), ==, 0);
    g_assert_cmpint(get_stat(qts, "msi-late-max-ns"), ==, 0);
    g_assert_cmphex(cons(qts), ==, 2);

    /* a second one, MSIDATA 0 as Linux writes it */
    qtest_writel(qts, MSI_ADDR + 4, 0xffffffff);
    put_cmd(qts, 8, 2, cmd_sync_msi(MSI_ADDR + 4, 0));
    wr(qts, R_CMDQ_PROD, 3);
    qtest_clock_step(qts, 999);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR + 4), ==, 0xffffffff);
    qtest_clock_step(qts, 1);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR + 4), ==, 0);
    g_assert_cmpint(get_stat(qts, "msi-writes"), ==, 2);
    qtest_quit(qts);
}

/*
 * msi=off (the default), or MSIADDR 0, or CS other than SIG_IRQ: nothing
 * is written, as before.  Costs 0 too: the write happens inside the PROD
 * write, as upstream would signal.
 */
static void test_msi_not_written(void)
{
    static const struct {
        const char *props;
        Cmd sync;
    } cases[] = {
        { "-global arm-smmuv3.cmdq-cmd-ns=1000",
          { { OP_SYNC | SYNC_CS_IRQ, 7, (uint32_t)MSI_ADDR, 0 } } },
        { "-global arm-smmuv3.cmdq-cmd-ns=1000 -global arm-smmuv3.msi=on",
          { { OP_SYNC | SYNC_CS_IRQ, 7, 0, 0 } } },
        { "-global arm-smmuv3.cmdq-cmd-ns=1000 -global arm-smmuv3.msi=on",
          { { OP_SYNC | (2U << 12), 7, (uint32_t)MSI_ADDR, 0 } } },
    };
    QTestState *qts;
    int i;

    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        g_autofree char *props =
            g_strdup_printf("-global arm-smmuv3.cmdqs=8 %s", cases[i].props);

        qts = smmu_start(props);
        qtest_writel(qts, MSI_ADDR, 0xffffffff);
        cmdq_setup(qts, 8);
        put_cmd(qts, 8, 0, cases[i].sync);
        wr(qts, R_CMDQ_PROD, 1);
        qtest_clock_step(qts, 2000);
        g_assert_cmphex(cons(qts), ==, 1);
        g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0xffffffff);
        g_assert_cmpint(get_stat(qts, "msi-writes"), ==, 0);
        qtest_quit(qts);
    }

    qts = smmu_start("-global arm-smmuv3.cmdqs=8 -global arm-smmuv3.msi=on");
    qtest_writel(qts, MSI_ADDR, 0xffffffff);
    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_sync_msi(MSI_ADDR, 9));
    wr(qts, R_CMDQ_PROD, 1);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 9);
    g_assert_cmpint(get_stat(qts, "msi-writes"), ==, 1);
    qtest_quit(qts);
}

/*
 * An MSI write that aborts (no memory at MSIADDR) activates
 * GERROR.MSI_CMDQ_ABT_ERR; the CMD_SYNC completes all the same.
 */
static void test_msi_abort(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 "
                                 "-global arm-smmuv3.msi=on "
                                 "-global arm-smmuv3.cmdq-cmd-ns=1000");

    cmdq_setup(qts, 8);
    /* nothing is mapped at 2^51 on virt: the write aborts */
    put_cmd(qts, 8, 0, cmd_sync_msi(1ULL << 51, 1));
    wr(qts, R_CMDQ_PROD, 1);
    qtest_clock_step(qts, 1000);
    g_assert_cmphex(cons(qts), ==, 1);
    g_assert_cmphex(rd(qts, R_GERROR) ^ rd(qts, R_GERRORN), ==,
                    GERROR_MSI_CMDQ_ABT_ERR);
    g_assert_cmpint(get_stat(qts, "msi-writes"), ==, 1);
    g_assert_cmpint(get_stat(qts, "msi-aborts"), ==, 1);
    qtest_quit(qts);
}

/*
 * CS=0b11 (reserved) has SIG_IRQ set, and signals as SIG_IRQ does: such a
 * CMD_SYNC is not one whose retirement only CONS shows.  Its MSI lands
 * at its due time by the timer alone, not when the guest or a counter
 * read next looks (a counter read must never change guest memory).
 */
static void test_msi_cs_both(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 "
                                 "-global arm-smmuv3.msi=on "
                                 "-global arm-smmuv3.cmdq-cmd-ns=1000");
    Cmd sync = cmd_sync_msi(MSI_ADDR, 0x33);

    sync.word[0] |= 3U << 12;
    qtest_writel(qts, MSI_ADDR, 0xffffffff);
    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, sync);
    wr(qts, R_CMDQ_PROD, 1);
    qtest_clock_step(qts, 999);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0xffffffff);
    qtest_clock_step(qts, 1);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0x33);
    qtest_clock_step(qts, 10000);
    g_assert_cmpint(get_stat(qts, "msi-writes"), ==, 1);
    g_assert_cmpint(get_stat(qts, "msi-late-max-ns"), ==, 0);
    g_assert_cmphex(cons(qts), ==, 1);
    qtest_quit(qts);
}

/*
 * The guest moves CONS while a command is in progress, past the last
 * published command.  Slot 1 is not published then: the engine must not
 * run what it holds, and must run what the guest writes there before it
 * publishes it, a full cost after that PROD write.  (16 entries, 1 us a
 * command: the reproduction of the report.)
 */
static void test_cons_write_busy(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=4 "
                                 "-global arm-smmuv3.msi=on "
                                 "-global arm-smmuv3.cmdq-cmd-ns=1000");

    qtest_writel(qts, MSI_ADDR, 0xffffffff);
    cmdq_setup(qts, 4);
    put_cmd(qts, 4, 0, cmd_op(OP_TLBI_NH_ALL));
    put_cmd(qts, 4, 1, cmd_op(OP_SYNC));          /* CS=0, not published */
    wr(qts, R_CMDQ_PROD, 1);
    qtest_clock_step(qts, 100);
    wr(qts, R_CMDQ_CONS, 1);
    qtest_clock_step(qts, 1400);
    put_cmd(qts, 4, 1, cmd_sync_msi(MSI_ADDR, 0x4242));
    wr(qts, R_CMDQ_PROD, 2);
    qtest_clock_step(qts, 500);
    g_assert_cmphex(cons(qts), ==, 1);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0xffffffff);
    qtest_clock_step(qts, 499);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0xffffffff);
    qtest_clock_step(qts, 1);
    /* by the timer, before any register access */
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0x4242);
    g_assert_cmphex(cons(qts), ==, 2);
    /* only the published CMD_SYNC ran; the skipped TLBI did not */
    g_assert_cmpint(get_stat(qts, "retired"), ==, 1);
    g_assert_cmpint(get_stat(qts, "msi-writes"), ==, 1);
    qtest_quit(qts);
}

/*
 * A CMD_SYNC whose MSI is a PCI device's doorbell: an e1000e's TDT,
 * whose write makes the e1000e read its transmit descriptor by DMA
 * through the SMMU (in bypass), i.e. translate while the MSI write is in
 * progress.  Costs 0 (inside the PROD write) and costed (from the timer).
 * A deadlock shows as QEMU no longer answering: the watchdog kills it
 * and fails the test.
 */
#define ECAM_BASE       0x3f000000ULL   /* virt, highmem=off */
#define E1000E_DEVFN    0x10            /* 00:02.0 */
#define E1000E_BAR      0x10100000ULL
#define E1000E_TCTL     0x0400
#define E1000E_TDBAL    0x3800
#define E1000E_TDBAH    0x3804
#define E1000E_TDLEN    0x3808
#define E1000E_TDH      0x3810
#define E1000E_TDT      0x3818
#define E1000E_TARC0    0x3840
#define E1000E_RING     0x44200000ULL

static pid_t watched_qemu;

static void watchdog_expired(int sig)
{
    static const char msg[] = "smmuv3-cmdq-test: QEMU stopped answering\n";

    if (write(2, msg, sizeof(msg) - 1) < 0) {
        /* failing anyway */
    }
    if (watched_qemu > 0) {
        kill(watched_qemu, SIGKILL);
    }
    abort();
}

/* Fail the test, killing QEMU, if it has not ended within @secs */
static void watchdog(QTestState *qts, unsigned secs)
{
    struct sigaction sa = { .sa_handler = watchdog_expired };

    watched_qemu = qts ? qtest_pid(qts) : 0;
    sigaction(SIGALRM, &sa, NULL);
    alarm(secs);
}

static void check_msi_doorbell(const char *cost)
{
    g_autofree char *props = g_strdup_printf(
        "-M virt,iommu=smmuv3,highmem=off -display none -nic none "
        "-device e1000e,addr=02.0,romfile= -global arm-smmuv3.cmdqs=8 "
        "-global arm-smmuv3.msi=on %s", cost);
    QTestState *qts = qtest_init(props);
    uint64_t ecam = ECAM_BASE + (E1000E_DEVFN << 12);

    watchdog(qts, 60);
    qtest_writel(qts, ecam + 0x10, (uint32_t)E1000E_BAR);
    qtest_writew(qts, ecam + 0x04, 0x6);        /* memory, bus master */
    qtest_memset(qts, E1000E_RING, 0, 0x80);
    qtest_writel(qts, E1000E_BAR + E1000E_TDBAL, (uint32_t)E1000E_RING);
    qtest_writel(qts, E1000E_BAR + E1000E_TDBAH, 0);
    qtest_writel(qts, E1000E_BAR + E1000E_TDLEN, 0x80);
    qtest_writel(qts, E1000E_BAR + E1000E_TARC0, 0x400);
    qtest_writel(qts, E1000E_BAR + E1000E_TCTL, 1 << 1);
    g_assert_cmphex(qtest_readl(qts, E1000E_BAR + E1000E_TDH), ==, 0);

    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_sync_msi(E1000E_BAR + E1000E_TDT, 1));
    wr(qts, R_CMDQ_PROD, 1);
    qtest_clock_step(qts, 1000);
    g_assert_cmphex(cons(qts), ==, 1);
    /* the e1000e took the doorbell and read its descriptor */
    g_assert_cmphex(qtest_readl(qts, E1000E_BAR + E1000E_TDT), ==, 1);
    g_assert_cmphex(qtest_readl(qts, E1000E_BAR + E1000E_TDH), ==, 1);
    g_assert_cmpint(get_stat(qts, "msi-writes"), ==, 1);
    g_assert_cmpint(get_stat(qts, "msi-aborts"), ==, 0);
    qtest_quit(qts);
    alarm(0);
}

static void test_msi_doorbell(void)
{
    check_msi_doorbell("");
    check_msi_doorbell("-global arm-smmuv3.cmdq-cmd-ns=1000");
}

/* The retire time of each of 32 jittered commands */
static void jitter_run(uint64_t seed, int64_t *times, int n)
{
    g_autofree char *props = g_strdup_printf(
        "-global arm-smmuv3.cmdqs=8 -global arm-smmuv3.cmdq-cmd-ns=100 "
        "-global arm-smmuv3.cmdq-jitter-ns=1000 "
        "-global arm-smmuv3.cmdq-seed=%" PRIu64, seed);
    QTestState *qts = smmu_start(props);
    int64_t t0;
    int i;

    cmdq_setup(qts, 8);
    /*
     * CMD_SYNCs that signal an interrupt, so that each retires by the
     * timer clock_step_next steps to (a silent one at the end of the
     * queue retires at the next look instead, with no timer)
     */
    for (i = 0; i < n; i++) {
        Cmd sync = { { OP_SYNC | (1 << 12) } };

        put_cmd(qts, 8, i, sync);
    }
    t0 = qtest_clock_step(qts, 1000);
    wr(qts, R_CMDQ_PROD, n);
    for (i = 0; i < n; i++) {
        times[i] = qtest_clock_step_next(qts) - t0;
        g_assert_cmphex(cons(qts), ==, i + 1);
        /* within the cost bounds */
        g_assert_cmpint(times[i] - (i ? times[i - 1] : 0), >=, 100);
        g_assert_cmpint(times[i] - (i ? times[i - 1] : 0), <, 1100);
    }
    qtest_quit(qts);
}

static void test_seed(void)
{
    int64_t a[32], b[32], c[32];

    jitter_run(42, a, 32);
    jitter_run(42, b, 32);
    jitter_run(43, c, 32);
    g_assert_cmpmem(a, sizeof(a), b, sizeof(b));
    g_assert_true(memcmp(a, c, sizeof(a)) != 0);
    /* the seed is a uint64: its whole range, each value its own sequence */
    jitter_run(UINT64_MAX, a, 32);
    jitter_run(UINT64_MAX, b, 32);
    jitter_run(1ULL << 63, c, 32);
    g_assert_cmpmem(a, sizeof(a), b, sizeof(b));
    g_assert_true(memcmp(a, c, sizeof(a)) != 0);
}

/* The largest cost, 1000 s: the command is still pending after 1 s */
static void test_huge_cost(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 "
                                 "-global arm-smmuv3.cmdq-cmd-ns="
                                 "1000000000000");

    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_op(OP_SYNC));
    wr(qts, R_CMDQ_PROD, 1);
    qtest_clock_step(qts, 1000000000);
    g_assert_cmphex(cons(qts), ==, 0);
    g_assert_cmpint(get_stat(qts, "pending"), ==, 1);
    qtest_quit(qts);
}

/*
 * QEMU without smmulab, the binary SMMULAB_QEMU_UPSTREAM names.  libqtest
 * calls the function qtest_init_with_env() in QEMU 10.0 and
 * qtest_init_ext() (with capabilities) in 10.2, the series' two bases.
 */
static QTestState *qtest_init_upstream(const char *args)
{
#if QEMU_VERSION_MAJOR == 10 && QEMU_VERSION_MINOR == 0
    return qtest_init_with_env("SMMULAB_QEMU_UPSTREAM", args, true);
#else
    return qtest_init_ext("SMMULAB_QEMU_UPSTREAM", args, NULL, true);
#endif
}

static void wait_migration(QTestState *qts)
{
    for (;;) {
        QDict *resp = qtest_qmp(qts, "{ 'execute': 'query-migrate' }");
        QDict *ret = qdict_get_qdict(resp, "return");
        const char *status = qdict_haskey(ret, "status") ?
                             qdict_get_str(ret, "status") : "none";

        g_assert_cmpstr(status, !=, "failed");
        if (!strcmp(status, "completed")) {
            qobject_unref(resp);
            return;
        }
        qobject_unref(resp);
        g_usleep(10000);
    }
}

/*
 * Migration with commands pending: saved to a file while the second of
 * three commands is in progress, loaded into a new QEMU, they retire at
 * the same virtual times, none lost or repeated.
 */
static void test_migration(void)
{
    const char *props = "-global arm-smmuv3.cmdqs=8 "
                        "-global arm-smmuv3.cmdq-cmd-ns=1000";
    g_autofree char *file = g_strdup_printf("%s/smmuv3-cmdq-%d.mig",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    g_autofree char *dst_args = g_strdup_printf("%s -incoming defer", props);
    QTestState *src = smmu_start(props), *dst;
    QDict *resp, *st;
    int64_t t;
    int i;

    cmdq_setup(src, 8);
    for (i = 0; i < 3; i++) {
        put_cmd(src, 8, i, cmd_op(OP_SYNC));
    }
    wr(src, R_CMDQ_PROD, 3);
    t = qtest_clock_step(src, 1500);
    g_assert_cmphex(cons(src), ==, 1);
    qtest_qmp_assert_success(src, "{ 'execute': 'stop' }");
    qtest_qmp_assert_success(src, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    wait_migration(src);
    qtest_quit(src);

    dst = smmu_start(dst_args);
    qtest_qmp_assert_success(dst, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s } }", uri);
    wait_migration(dst);
    unlink(file);
    /* qtest's virtual clock is not migrated: bring it to the source's */
    qtest_clock_set(dst, t);
    g_assert_cmphex(cons(dst), ==, 1);
    g_assert_cmphex(rd(dst, R_CMDQ_PROD), ==, 3);
    qtest_clock_step(dst, 499);
    g_assert_cmphex(cons(dst), ==, 1);
    qtest_clock_step(dst, 1);
    g_assert_cmphex(cons(dst), ==, 2);
    qtest_clock_step(dst, 999);
    g_assert_cmphex(cons(dst), ==, 2);
    qtest_clock_step(dst, 1);
    g_assert_cmphex(cons(dst), ==, 3);
    st = stats_get(dst, &resp);
    g_assert_cmpint(qdict_get_int(st, "retired"), ==, 3);
    g_assert_cmpint(qdict_get_int(st, "syncs"), ==, 3);
    g_assert_cmpint(qdict_get_int(st, "max-sync-wait-ns"), ==, 3000);
    g_assert_cmpint(qdict_get_int(st, "pending"), ==, 0);
    qobject_unref(resp);
    qtest_quit(dst);
}

/*
 * A CMD_SYNC whose MSI is pending when the source stops is written once,
 * by the destination, at its due time.
 */
static void test_msi_migration(void)
{
    const char *props = "-global arm-smmuv3.cmdqs=8 "
                        "-global arm-smmuv3.msi=on "
                        "-global arm-smmuv3.cmdq-cmd-ns=1000";
    g_autofree char *file = g_strdup_printf("%s/smmuv3-cmdq-msi-%d.mig",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    g_autofree char *dst_args = g_strdup_printf("%s -incoming defer", props);
    QTestState *src = smmu_start(props), *dst;
    int64_t t;

    qtest_writel(src, MSI_ADDR, 0xffffffff);
    cmdq_setup(src, 8);
    put_cmd(src, 8, 0, cmd_sync_msi(MSI_ADDR, 0x1234));
    wr(src, R_CMDQ_PROD, 1);
    t = qtest_clock_step(src, 500);
    qtest_qmp_assert_success(src, "{ 'execute': 'stop' }");
    qtest_qmp_assert_success(src, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    wait_migration(src);
    g_assert_cmpint(get_stat(src, "msi-writes"), ==, 0);
    qtest_quit(src);

    dst = smmu_start(dst_args);
    qtest_qmp_assert_success(dst, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s } }", uri);
    wait_migration(dst);
    unlink(file);
    /* only a running VM's virtual clock fires timers */
    qtest_qmp_assert_success(dst, "{ 'execute': 'cont' }");
    qtest_clock_set(dst, t);
    g_assert_cmphex(qtest_readl(dst, MSI_ADDR), ==, 0xffffffff);
    qtest_clock_step(dst, 499);
    g_assert_cmphex(qtest_readl(dst, MSI_ADDR), ==, 0xffffffff);
    qtest_clock_step(dst, 1);
    g_assert_cmphex(qtest_readl(dst, MSI_ADDR), ==, 0x1234);
    /* once: nothing writes it again */
    qtest_writel(dst, MSI_ADDR, 0xffffffff);
    qtest_clock_step(dst, 10000);
    g_assert_cmphex(qtest_readl(dst, MSI_ADDR), ==, 0xffffffff);
    g_assert_cmphex(cons(dst), ==, 1);
    g_assert_cmpint(get_stat(dst, "msi-writes"), ==, 1);
    qtest_quit(dst);
}

/*
 * Migrate @props' device, three commands submitted and @retired of them
 * retired, from this QEMU into the QEMU named by $SMMULAB_QEMU_UPSTREAM
 * (built from the same source without smmulab's patches), which must load
 * it when @expect_ok, and otherwise refuse it (QEMU then exits with
 * status 1).
 */
static void migrate_to_upstream(const char *props, uint32_t retired,
                                bool expect_ok)
{
    g_autofree char *file = g_strdup_printf("%s/smmuv3-cmdq-up-%d.mig",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    QTestState *src = smmu_start(props), *dst;
    int i;

    cmdq_setup(src, 8);
    for (i = 0; i < 3; i++) {
        put_cmd(src, 8, i, cmd_op(OP_SYNC));
    }
    wr(src, R_CMDQ_PROD, 3);
    qtest_clock_step(src, 100000);
    g_assert_cmphex(cons(src), ==, retired);
    qtest_qmp_assert_success(src, "{ 'execute': 'stop' }");
    qtest_qmp_assert_success(src, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    wait_migration(src);
    qtest_quit(src);

    dst = qtest_init_upstream("-M virt,iommu=smmuv3 -display none -nic none "
                              "-incoming defer");
    if (!expect_ok) {
        qtest_set_expected_status(dst, 1);
    }
    qtest_qmp_assert_success(dst, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s } }", uri);
    if (expect_ok) {
        wait_migration(dst);
        /* the queue state arrived */
        g_assert_cmphex(cons(dst), ==, retired);
        g_assert_cmphex(rd(dst, R_CMDQ_PROD), ==, 3);
        g_assert_cmphex(rd(dst, R_CR0), ==, CR0_CMDQEN);
    } else {
        /* the load fails and QEMU exits: wait for it */
        for (i = 0; i < 1000 && qtest_probe_child(dst); i++) {
            g_usleep(10000);
        }
        g_assert_false(qtest_probe_child(dst));
    }
    qtest_quit(dst);
    unlink(file);
}

/*
 * A stream of a device with upstream's ID properties and nothing pending
 * has no smmulab subsection: a QEMU without the extension loads it, with
 * costs set too (an idle engine sends nothing).  One with commands
 * pending carries the engine's state, which such a QEMU must refuse
 * rather than silently drop; one with other ID properties (cmdqs, msi)
 * carries them, which it must refuse rather than change the ID registers
 * under the guest.
 */
static void test_migration_upstream(void)
{
    if (!g_getenv("SMMULAB_QEMU_UPSTREAM")) {
        g_test_skip("SMMULAB_QEMU_UPSTREAM (a QEMU without smmulab) not set");
        return;
    }
    migrate_to_upstream("", 3, true);
    migrate_to_upstream("-global arm-smmuv3.cmdq-cmd-ns=10", 3, true);
    migrate_to_upstream("-global arm-smmuv3.cmdq-cmd-ns=1000000", 0, false);
    /* IDR1.CMDQS and IDR0.MSI would change under the guest */
    migrate_to_upstream("-global arm-smmuv3.cmdqs=8", 3, false);
    migrate_to_upstream("-global arm-smmuv3.msi=on", 3, false);
}


/*
 * A slot's next lap is another command.  cmdqs=4: fill the 16 slots and
 * make them visible; once the first has retired, the guest writes an
 * illegal command into slot 0 for the next lap.  The queue must stop
 * there with CERROR_ILL, not run the previous lap's CMD_SYNC again.
 */
static void test_lap_stale_fetch(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=4 "
                                 "-global arm-smmuv3.cmdq-cmd-ns=1000");
    int i;

    cmdq_setup(qts, 4);
    for (i = 0; i < 16; i++) {
        put_cmd(qts, 4, i, cmd_op(OP_SYNC));
    }
    wr(qts, R_CMDQ_PROD, 0x10);
    retires_in(qts, 1000, 0, 1);
    put_cmd(qts, 4, 0x10, cmd_op(OP_ILLEGAL));
    wr(qts, R_CMDQ_PROD, 0x11);
    qtest_clock_step(qts, 20000);
    g_assert_cmphex(cons(qts), ==, CONS_ERR(CERROR_ILL) | 0x10);
    g_assert_cmphex(rd(qts, R_GERROR) & GERROR_CMDQ_ERR, ==, GERROR_CMDQ_ERR);
    g_assert_cmpint(get_stat(qts, "syncs"), ==, 16);
    qtest_quit(qts);
}

/* Write @n commands of opcode @op at queue positions first..first+n-1 */
static void put_cmds(QTestState *qts, uint8_t l2, uint32_t first, uint32_t n,
                     uint8_t op)
{
    uint32_t size = 1U << l2, idx = first & (size - 1);

    while (n) {
        uint32_t chunk = MIN(n, size - idx), i;
        g_autofree Cmd *buf = g_new0(Cmd, chunk);

        for (i = 0; i < chunk; i++) {
            buf[i].word[0] = cpu_to_le32(op);
        }
        qtest_bufwrite(qts, QUEUE_ADDR + 16ULL * idx, buf, 16ULL * chunk);
        n -= chunk;
        idx = 0;
    }
}

/*
 * Three laps of a ring of 2^@l2 entries kept full: each time half the
 * ring has retired, the guest refills those slots with the opcode of
 * their lap (SYNC, TLBI_NH_ALL, PREFETCH_CONFIG in turn) and moves PROD.
 * The per-opcode counts show that every lap ran its own commands.
 */
static void lap_ring(uint8_t l2)
{
    static const uint8_t lap_op[3] = {
        OP_SYNC, OP_TLBI_NH_ALL, OP_PREFETCH_CFG,
    };
    g_autofree char *props = g_strdup_printf(
        "-global arm-smmuv3.cmdqs=%u -global arm-smmuv3.cmdq-cmd-ns=10", l2);
    QTestState *qts = smmu_start(props);
    uint32_t n = 1U << l2, pos_mask = 2 * n - 1, total = 3 * n;
    uint32_t k = MAX(n / 2, 1), submitted = n, retired = 0;
    QDict *resp, *st, *ops;

    cmdq_setup(qts, l2);
    put_cmds(qts, l2, 0, n, lap_op[0]);
    wr(qts, R_CMDQ_PROD, submitted & pos_mask);
    while (retired < total) {
        uint32_t batch = MIN(k, submitted - retired), j;

        qtest_clock_step(qts, 10 * batch);
        retired += batch;
        g_assert_cmphex(cons(qts), ==, retired & pos_mask);
        /* refill what retired, one lap ahead, while the rest is busy */
        batch = MIN(batch, total - submitted);
        while (batch) {
            /* up to the end of this lap */
            j = MIN(batch, n - submitted % n);
            put_cmds(qts, l2, submitted, j, lap_op[submitted / n]);
            submitted += j;
            batch -= j;
        }
        wr(qts, R_CMDQ_PROD, submitted & pos_mask);
    }
    g_assert_cmphex(rd(qts, R_GERROR) & GERROR_CMDQ_ERR, ==, 0);
    st = stats_get(qts, &resp);
    ops = qdict_get_qdict(st, "opcodes");
    g_assert_cmpint(qdict_get_int(st, "retired"), ==, total);
    g_assert_cmpint(qdict_get_int(ops, "SYNC"), ==, n);
    g_assert_cmpint(qdict_get_int(ops, "TLBI_NH_ALL"), ==, n);
    g_assert_cmpint(qdict_get_int(ops, "PREFETCH_CONFIG"), ==, n);
    qobject_unref(resp);
    qtest_quit(qts);
}

/* Refilling one slot at a time defeats any batching: small rings too */
static void test_laps(void)
{
    uint8_t l2;

    for (l2 = 0; l2 <= 19; l2++) {
        lap_ring(l2);
    }
}

/*
 * A queue based in the SMMU's own registers: its commands cannot be read
 * (the device does not DMA into its own MMIO window, whose accesses would
 * re-enter the engine halfway through a command), so the first one raises
 * CERROR_ABT when it retires, and no later.  At cost 0, at once.
 */
static void test_queue_in_mmio(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=8 "
                                 "-global arm-smmuv3.cmdq-cmd-ns=1000");

    qtest_writeq(qts, SMMU_BASE + R_CMDQ_BASE, SMMU_BASE | 4);
    wr(qts, R_CMDQ_PROD, 0);
    wr(qts, R_CMDQ_CONS, 0);
    wr(qts, R_CR0, CR0_CMDQEN);
    wr(qts, R_CMDQ_PROD, 3);
    qtest_clock_step(qts, 999);
    g_assert_cmphex(cons(qts), ==, 0);
    g_assert_cmphex(rd(qts, R_GERROR) & GERROR_CMDQ_ERR, ==, 0);
    qtest_clock_step(qts, 1);
    g_assert_cmphex(cons(qts), ==, CONS_ERR(CERROR_ABT));
    g_assert_cmphex(rd(qts, R_GERROR) & GERROR_CMDQ_ERR, ==, GERROR_CMDQ_ERR);
    qtest_clock_step(qts, 100000);
    g_assert_cmphex(cons(qts), ==, CONS_ERR(CERROR_ABT));
    g_assert_cmpint(get_stat(qts, "retired"), ==, 0);
    qtest_quit(qts);

    qts = smmu_start("-global arm-smmuv3.cmdqs=8");
    qtest_writeq(qts, SMMU_BASE + R_CMDQ_BASE, SMMU_BASE | 4);
    wr(qts, R_CMDQ_PROD, 0);
    wr(qts, R_CMDQ_CONS, 0);
    wr(qts, R_CR0, CR0_CMDQEN);
    wr(qts, R_CMDQ_PROD, 3);
    g_assert_cmphex(cons(qts), ==, CONS_ERR(CERROR_ABT));
    qtest_quit(qts);
}

/*
 * ril=off: range fields on every TLBI by address are a guest error,
 * counted, whether smmuv3.c executes the command (NH_VA, NH_VAA) or
 * ignores it (EL2_VA, EL2_VAA, EL3_VA); the same in both modes.
 */
static void check_ril_off_all_levels(const char *cost)
{
    static const uint8_t ops[] = {
        OP_TLBI_NH_VA, OP_TLBI_NH_VAA, OP_TLBI_EL2_VA, OP_TLBI_EL2_VAA,
        OP_TLBI_EL3_VA,
    };
    g_autofree char *props = g_strdup_printf(
        "-global arm-smmuv3.cmdqs=8 -global arm-smmuv3.ril=off %s", cost);
    QTestState *qts = smmu_start(props);
    int i;

    cmdq_setup(qts, 8);
    for (i = 0; i < ARRAY_SIZE(ops); i++) {
        Cmd c = cmd_tlbi_va(1, 7, 3);

        c.word[0] = (c.word[0] & ~0xffU) | ops[i];
        put_cmd(qts, 8, i, c);
    }
    wr(qts, R_CMDQ_PROD, i);
    qtest_clock_step(qts, 1000000);
    g_assert_cmphex(cons(qts), ==, i);
    g_assert_cmpint(get_stat(qts, "ril-off-ranges"), ==, ARRAY_SIZE(ops));
    g_assert_cmpint(get_stat(qts, "tlbi-pages"), ==, ARRAY_SIZE(ops));
    qtest_quit(qts);
}

static void test_ril_off_all_levels(void)
{
    check_ril_off_all_levels("");
    check_ril_off_all_levels("-global arm-smmuv3.cmdq-cmd-ns=100");
}

/* Every retired command is traced, in the upstream (cost 0) path too */
static void test_trace_cost0(void)
{
    g_autofree char *log = g_strdup_printf("%s/smmuv3-cmdq-trace-%d.log",
                                           g_get_tmp_dir(), getpid());
    g_autofree char *props = g_strdup_printf(
        "-global arm-smmuv3.cmdqs=8 -trace smmuv3_engine_retire -D %s", log);
    g_autofree char *text = NULL;
    QTestState *qts = smmu_start(props);
    int i, n = 0;
    const char *p;

    cmdq_setup(qts, 8);
    for (i = 0; i < 3; i++) {
        put_cmd(qts, 8, i, cmd_op(i == 2 ? OP_SYNC : OP_TLBI_NH_ALL));
    }
    wr(qts, R_CMDQ_PROD, 3);
    g_assert_cmphex(cons(qts), ==, 3);
    qtest_quit(qts);
    g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
    unlink(log);
    for (p = text; (p = strstr(p, "smmuv3_engine_retire ")); p++) {
        n++;
    }
    g_assert_cmpint(n, ==, 3);
    g_assert_nonnull(strstr(text, "opcode=0x46 cons=0x2"));
}

/* Stop @src, save its state into @file, and quit it */
static void save_to_file(QTestState *src, const char *file)
{
    g_autofree char *uri = g_strdup_printf("file:%s", file);

    qtest_qmp_assert_success(src, "{ 'execute': 'stop' }");
    qtest_qmp_assert_success(src, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    wait_migration(src);
    qtest_quit(src);
}

/*
 * Start a QEMU with @props that loads @file.  When @expect_ok, return it
 * once loaded (stopped); otherwise check that it refuses the stream and
 * exits with status 1, and return NULL.
 */
static QTestState *load_from_file(const char *props, const char *file,
                                  bool expect_ok)
{
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    g_autofree char *args = g_strdup_printf("%s -incoming defer", props);
    QTestState *dst = smmu_start(args);
    int i;

    if (!expect_ok) {
        qtest_set_expected_status(dst, 1);
    }
    qtest_qmp_assert_success(dst, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s } }", uri);
    if (expect_ok) {
        wait_migration(dst);
        return dst;
    }
    for (i = 0; i < 1000 && qtest_probe_child(dst); i++) {
        g_usleep(10000);
    }
    g_assert_false(qtest_probe_child(dst));
    qtest_quit(dst);
    return NULL;
}

static char *mig_file(const char *what)
{
    return g_strdup_printf("%s/smmuv3-cmdq-%s-%d.mig", g_get_tmp_dir(), what,
                           getpid());
}

/*
 * Start a QEMU with @props that loads @file, which it must refuse without
 * exiting, saying @line (a whole line of its stderr, after QEMU's
 * "program: " prefix).  Return it, with what the stream loaded before the
 * refusal, to show that the device stays usable.
 */
static QTestState *load_refused(const char *props, const char *file,
                                const char *line)
{
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    g_autofree char *err = mig_file("stderr");
    g_autofree char *args = g_strdup_printf("%s -incoming defer 2>%s", props,
                                            err);
    g_autofree char *want = g_strdup_printf(": %s\n", line);
    g_autofree char *text = NULL;
    QTestState *dst = smmu_start(args);
    QDict *resp;

    qtest_qmp_assert_success(dst, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s, "
                             "'exit-on-error': false } }", uri);
    for (;;) {
        resp = qtest_qmp(dst, "{ 'execute': 'query-migrate' }");
        if (qdict_haskey(qdict_get_qdict(resp, "return"), "status")) {
            const char *status = qdict_get_str(qdict_get_qdict(resp, "return"),
                                               "status");

            g_assert_cmpstr(status, !=, "completed");
            if (!strcmp(status, "failed")) {
                break;
            }
        }
        qobject_unref(resp);
        g_usleep(10000);
    }
    qobject_unref(resp);
    g_assert_true(g_file_get_contents(err, &text, NULL, NULL));
    if (!strstr(text, want)) {
        g_test_message("expected \"%s\" in stderr: %s", line, text);
    }
    g_assert_nonnull(strstr(text, want));
    unlink(err);
    return dst;
}

/*
 * A stream with commands pending, from a QEMU with costs, loaded into one
 * without: they retire as soon as the VM runs, as a cost-0 device retires
 * commands as soon as they are visible; no PROD, CR0 or GERRORN write is
 * needed.  The last is an MSI CMD_SYNC, so memory alone shows it.
 */
static void test_migration_to_untimed(void)
{
    g_autofree char *file = mig_file("untimed");
    const char *props = "-global arm-smmuv3.cmdqs=8 -global arm-smmuv3.msi=on";
    g_autofree char *src_props = g_strdup_printf(
        "%s -global arm-smmuv3.cmdq-cmd-ns=1000", props);
    QTestState *src = smmu_start(src_props), *dst;

    qtest_writel(src, MSI_ADDR, 0xffffffff);
    cmdq_setup(src, 8);
    put_cmd(src, 8, 0, cmd_op(OP_SYNC));
    put_cmd(src, 8, 1, cmd_op(OP_TLBI_NH_ALL));
    put_cmd(src, 8, 2, cmd_sync_msi(MSI_ADDR, 0x99));
    wr(src, R_CMDQ_PROD, 3);
    qtest_clock_step(src, 1500);
    g_assert_cmphex(cons(src), ==, 1);
    save_to_file(src, file);

    dst = load_from_file(props, file, true);
    unlink(file);
    g_assert_cmphex(qtest_readl(dst, MSI_ADDR), ==, 0xffffffff);
    qtest_qmp_assert_success(dst, "{ 'execute': 'cont' }");
    qtest_clock_step(dst, 1);
    /* no register access yet */
    g_assert_cmphex(qtest_readl(dst, MSI_ADDR), ==, 0x99);
    g_assert_cmphex(cons(dst), ==, 3);
    g_assert_cmpint(get_stat(dst, "retired"), ==, 3);
    g_assert_cmpint(get_stat(dst, "msi-writes"), ==, 1);
    qtest_quit(dst);
}

/*
 * The properties that shape the ID registers (cmdqs, eventqs, ril, msi,
 * sev), which the guest read once, must not change under it: a stream
 * from a device with other values is refused in one line naming each
 * that differs, with the stream's and this device's values, whatever the
 * costs and whether or not the stream carries them (absent, they are
 * upstream's).
 */
static void test_migration_id_props(void)
{
    static const struct {
        const char *src, *dst, *line;
    } cases[] = {
        { "", "ril=off", "has ril=on, this device ril=off" },
        { "ril=off", "", "has ril=off, this device ril=on" },
        { "cmdqs=8", "cmdqs=7", "has cmdqs=8, this device cmdqs=7" },
        { "", "cmdqs=8", "has cmdqs=19, this device cmdqs=8" },
        { "eventqs=10", "", "has eventqs=10, this device eventqs=19" },
        { "msi=on", "", "has msi=on, this device msi=off" },
        { "", "msi=on", "has msi=off, this device msi=on" },
        { "sev=on", "", "has sev=on, this device sev=off" },
        { "cmdqs=8 ril=off msi=on", "cmdqs=8 sev=on",
          "has ril=off msi=on sev=off, this device ril=on msi=off sev=on" },
        { "cmdqs=8 ril=off msi=on sev=on", "cmdqs=8 ril=off msi=on sev=on",
          NULL },
        { "eventqs=10", "eventqs=10", NULL },
    };
    g_autofree char *file = mig_file("id-props");
    int i;

    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        g_auto(GStrv) sv = g_strsplit(cases[i].src, " ", 0);
        g_auto(GStrv) dv = g_strsplit(cases[i].dst, " ", 0);
        g_autofree char *sp = NULL, *dp = NULL, *line = NULL;
        QTestState *src, *dst;
        char **p;

        sp = g_strdup("");
        for (p = sv; *p; p++) {
            if (**p) {
                g_autofree char *o = sp;

                sp = g_strdup_printf("%s -global arm-smmuv3.%s", o, *p);
            }
        }
        dp = g_strdup("");
        for (p = dv; *p; p++) {
            if (**p) {
                g_autofree char *o = dp;

                dp = g_strdup_printf("%s -global arm-smmuv3.%s", o, *p);
            }
        }
        src = smmu_start(sp);
        cmdq_setup(src, 7);
        save_to_file(src, file);
        if (cases[i].line) {
            line = g_strdup_printf("arm-smmuv3: migration stream %s",
                                   cases[i].line);
            dst = load_refused(dp, file, line);
        } else {
            dst = load_from_file(dp, file, true);
        }
        g_assert_cmphex(rd(dst, R_CR0), ==, CR0_CMDQEN);
        qtest_quit(dst);
        unlink(file);
    }
}

/*
 * The same with a command in progress: ril=on to ril=off with a range
 * TLBI (4 pages) being worked on is refused for the property, not for the
 * engine's state (on the destination it would cover 1 page).
 */
static void test_migration_id_props_busy(void)
{
    const char *props = "-global arm-smmuv3.cmdqs=8 "
                        "-global arm-smmuv3.cmdq-cmd-ns=1000 "
                        "-global arm-smmuv3.cmdq-tlbi-page-ns=100";
    g_autofree char *file = mig_file("id-busy");
    g_autofree char *dp = g_strdup_printf("%s -global arm-smmuv3.ril=off",
                                          props);
    QTestState *src = smmu_start(props), *dst;

    cmdq_setup(src, 8);
    put_cmd(src, 8, 0, cmd_tlbi_va(1, 3, 0));
    wr(src, R_CMDQ_PROD, 1);
    qtest_clock_step(src, 500);
    g_assert_cmphex(cons(src), ==, 0);
    save_to_file(src, file);
    dst = load_refused(dp, file, "arm-smmuv3: migration stream has ril=on, "
                       "this device ril=off");
    qtest_quit(dst);
    dst = load_from_file(props, file, true);
    qtest_clock_set(dst, 500);
    retires_in(dst, 900, 0, 1);
    g_assert_cmpint(get_stat(dst, "tlbi-pages"), ==, 4);
    qtest_quit(dst);
    unlink(file);
}

/*
 * Offset in @buf of the version of subsection @name (after the
 * QEMU_VM_SUBSECTION byte, the name's length and the name), 0 if the
 * stream has no such subsection
 */
static gsize subsection_find(const guint8 *buf, gsize len, const char *name)
{
    gsize n = strlen(name), i;

    for (i = 0; i + 2 + n + 4 <= len; i++) {
        if (buf[i] == 0x05 && buf[i + 1] == n &&
            !memcmp(buf + i + 2, name, n)) {
            return i + 2 + n;
        }
    }
    return 0;
}

static gsize subsection_at(const guint8 *buf, gsize len, const char *name)
{
    gsize at = subsection_find(buf, len, name);

    g_assert_cmpuint(at, !=, 0);
    return at;
}

/*
 * The engine's subsection, version 1, from the subsection's version on:
 * the state of the command in progress, then the visibility records
 * (count, then n and ns of each), then the counters
 */
#define ENG_HEAD_CONS   (4 + 9)
#define ENG_HEAD_DUE    (4 + 21)
#define ENG_VIS_LEN     (4 + 68)
#define ENG_VIS(i)      (4 + 72 + 12 * (i))     /* n; ns at + 4 */
/* after @n records: the counters, commands retired and CMD_SYNCs first */
#define ENG_RETIRED(n)  ENG_VIS(n)
#define ENG_SYNCS(n)    (ENG_VIS(n) + 8)

/*
 * A stream with three CMD_SYNCs pending, the first in progress (started
 * at 0 ns, due at 1000 ns), visible from two PROD writes: two records,
 * two at 0 ns and one at 1 ns.  Returns the stream, and in @at where the
 * engine's subsection is.
 */
#define VIS_PROPS "-global arm-smmuv3.cmdqs=8 " \
                  "-global arm-smmuv3.cmdq-cmd-ns=1000"

static guint8 *vis_stream(const char *file, gsize *len, gsize *at)
{
    QTestState *src = smmu_start(VIS_PROPS);
    guint8 *buf;
    int i;

    cmdq_setup(src, 8);
    for (i = 0; i < 3; i++) {
        put_cmd(src, 8, i, cmd_op(OP_SYNC));
    }
    wr(src, R_CMDQ_PROD, 2);
    qtest_clock_step(src, 1);
    wr(src, R_CMDQ_PROD, 3);
    qtest_clock_step(src, 499);
    save_to_file(src, file);
    g_assert_true(g_file_get_contents(file, (char **)&buf, len, NULL));
    *at = subsection_at(buf, *len, "smmuv3/cmdq-engine");
    g_assert_cmpuint(ldl_be_p(buf + *at), ==, 1);
    g_assert_cmpuint(ldl_be_p(buf + *at + ENG_VIS_LEN), ==, 2);
    g_assert_cmpuint(ldl_be_p(buf + *at + ENG_VIS(0)), ==, 2);
    g_assert_cmpuint(ldq_be_p(buf + *at + ENG_VIS(1) + 4), ==, 1);
    g_assert_cmpuint(ldq_be_p(buf + *at + ENG_HEAD_DUE), ==, 1000);
    return buf;
}

/*
 * The visibility FIFO's length comes from the stream and sizes an
 * allocation: it is checked before, against what this device's queue can
 * have pending (a record is one command or more), and a bad one is
 * refused.
 */
static void test_migration_vis_len(void)
{
    static const int32_t bad[] = { -1, (1 << 8) + 1, INT32_MAX };
    g_autofree char *file = mig_file("vis");
    g_autofree guint8 *buf = NULL;
    QTestState *dst;
    gsize len, at;
    int i;

    buf = vis_stream(file, &len, &at);
    dst = load_from_file(VIS_PROPS, file, true);
    qtest_quit(dst);

    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        stl_be_p(buf + at + ENG_VIS_LEN, bad[i]);
        g_assert_true(g_file_set_contents(file, (char *)buf, len, NULL));
        load_from_file(VIS_PROPS, file, false);
    }
    unlink(file);
}

/*
 * After a refused stream the device works as a new one: when @fresh (no
 * command run since), its engine took nothing from the stream (counters,
 * visibility records), and the queue registers the stream loaded start
 * nothing by themselves.
 */
static void check_usable(QTestState *qts, bool fresh)
{
    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_op(OP_SYNC));
    put_cmd(qts, 8, 1, cmd_op(OP_SYNC));
    wr(qts, R_CMDQ_PROD, 2);
    retires_in(qts, 1000, 0, 1);
    retires_in(qts, 1000, 1, 2);
    g_assert_cmpint(get_stat(qts, "pending"), ==, 0);
    if (fresh) {
        g_assert_cmpint(get_stat(qts, "prod-writes"), ==, 2);
        g_assert_cmpint(get_stat(qts, "retired"), ==, 2);
        g_assert_cmpint(get_stat(qts, "max-sync-wait-ns"), ==, 2000);
    }
}

/*
 * Everything a stream loads is checked before the device uses it, and a
 * refused stream leaves the device consistent and usable (run on the
 * ASan/UBSan QEMU too): the engine's visibility records (none empty, no
 * more commands than the queue holds), the command in progress (CONS
 * within the queue, due time its start plus its cost), and the queues'
 * sizes.  Each refusal is one line saying what is wrong; the destination
 * stays up (exit-on-error off) and runs commands as a new device would,
 * registers first as the stream left them.
 */
static void test_migration_corrupt(void)
{
    static const struct {
        gsize off;
        int size;               /* 4 or 8 bytes */
        uint64_t val;
        const char *line;
    } cases[] = {
        { ENG_VIS(0), 4, 0, "a visibility record of 0 commands at 0 ns" },
        { ENG_VIS(1) + 4, 8, -5ULL,
          "a visibility record of 1 commands at -5 ns" },
        { ENG_VIS(0), 4, 300,
          "301 commands pending, this device's queue at most 256 (cmdqs=8)" },
        { ENG_VIS_LEN, 4, 257,
          "257 visibility records, this device at most 256 (cmdqs=8)" },
        { ENG_HEAD_DUE, 8, -1ULL, "a command in progress started at 0 ns "
          "with a cost of 1000 ns due at -1 ns" },
        { ENG_HEAD_DUE, 8, 999, "a command in progress started at 0 ns "
          "with a cost of 1000 ns due at 999 ns" },
        { ENG_HEAD_CONS, 4, 0x200, "a command in progress at CONS 0x200, "
          "past a queue of 256 entries (cmdqs=8)" },
        /* the sums of the per-opcode counts (none yet) */
        { ENG_RETIRED(2), 8, 1, "1 commands retired and 0 CMD_SYNCs, its "
          "per-opcode counts 0 and 0" },
        { ENG_SYNCS(2), 8, 5, "0 commands retired and 5 CMD_SYNCs, its "
          "per-opcode counts 0 and 0" },
    };
    g_autofree char *file = mig_file("corrupt");
    g_autofree guint8 *orig = NULL;
    gsize len, at, q;
    int i;

    orig = vis_stream(file, &len, &at);
    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        g_autofree guint8 *buf = g_memdup2(orig, len);
        g_autofree char *line = g_strdup_printf(
            "arm-smmuv3: migration stream has %s", cases[i].line);
        QTestState *dst;

        if (cases[i].size == 4) {
            stl_be_p(buf + at + cases[i].off, cases[i].val);
        } else {
            stq_be_p(buf + at + cases[i].off, cases[i].val);
        }
        g_assert_true(g_file_set_contents(file, (char *)buf, len, NULL));
        dst = load_refused(VIS_PROPS, file, line);
        /* as the stream left it: three commands visible, none run */
        g_assert_cmphex(cons(dst), ==, 0);
        g_assert_cmphex(rd(dst, R_CMDQ_PROD), ==, 3);
        qtest_clock_step(dst, 10000);
        g_assert_cmphex(cons(dst), ==, 0);
        g_assert_cmpint(get_stat(dst, "pending"), ==, 3);
        check_usable(dst, true);
        qtest_quit(dst);
    }

    /*
     * The command queue's LOG2SIZE: 9 on a cmdqs=8 device, refused and
     * kept at 8; 40, refused as it is read and kept at 19 (the index
     * arithmetic shifts by it).  Located by the queue's BASE, PROD, CONS.
     */
    for (q = 0; q + 17 <= len; q++) {
        if (ldq_be_p(orig + q) == (QUEUE_ADDR | 8) &&
            ldl_be_p(orig + q + 8) == 3 && ldl_be_p(orig + q + 12) == 0) {
            break;
        }
    }
    g_assert_cmpuint(orig[q + 16], ==, 8);
    for (i = 0; i < 2; i++) {
        g_autofree guint8 *buf = g_memdup2(orig, len);
        g_autofree char *line = NULL;
        QTestState *dst;

        buf[q + 16] = i ? 40 : 9;
        if (i) {
            line = g_strdup("arm-smmuv3: migration stream has a queue "
                            "LOG2SIZE of 40, at most 19");
        } else {
            /* the event queue follows: BASE, PROD, CONS, LOG2SIZE */
            line = g_strdup_printf("arm-smmuv3: migration stream has CMDQ "
                                   "LOG2SIZE 9 and EVENTQ LOG2SIZE %u, this "
                                   "device cmdqs=8 eventqs=19",
                                   orig[q + 17 + 16]);
        }
        g_assert_true(g_file_set_contents(file, (char *)buf, len, NULL));
        dst = load_refused(VIS_PROPS, file, line);
        /* the queue as loaded: a PROD write runs its commands */
        wr(dst, R_CMDQ_PROD, 3);
        retires_in(dst, 1000, 0, 1);
        retires_in(dst, 1000, 1, 2);
        retires_in(dst, 1000, 2, 3);
        check_usable(dst, false);
        qtest_quit(dst);
    }
    unlink(file);
}

/*
 * The engine's subsection is sent only when it carries something the
 * destination could not rebuild.  Idle (every command retired): not sent,
 * and a destination of the same properties goes on as a new device (its
 * counters from 0).  A command in progress: sent.  Jitter whose generator
 * has moved: sent, so that the destination draws the same costs as the
 * source would have; one that has not moved: not sent.
 */
static void test_migration_idle(void)
{
    /* as jitter_run()'s */
    const char *props = "-global arm-smmuv3.cmdqs=8 "
                        "-global arm-smmuv3.cmdq-cmd-ns=100 "
                        "-global arm-smmuv3.cmdq-jitter-ns=1000 "
                        "-global arm-smmuv3.cmdq-seed=7";
    g_autofree char *file = mig_file("idle");
    g_autofree guint8 *buf = NULL;
    int64_t ref[8], t0, t;
    QTestState *src, *dst;
    gsize len;
    int i;

    /* idle, no jitter */
    src = smmu_start(VIS_PROPS);
    cmdq_setup(src, 8);
    put_cmd(src, 8, 0, cmd_op(OP_SYNC));
    wr(src, R_CMDQ_PROD, 1);
    retires_in(src, 1000, 0, 1);
    save_to_file(src, file);
    g_assert_true(g_file_get_contents(file, (char **)&buf, &len, NULL));
    g_assert_cmpuint(subsection_find(buf, len, "smmuv3/cmdq-engine"), ==, 0);
    g_clear_pointer(&buf, g_free);
    dst = load_from_file(VIS_PROPS, file, true);
    g_assert_cmpint(get_stat(dst, "retired"), ==, 0);
    g_assert_cmphex(cons(dst), ==, 1);
    put_cmd(dst, 8, 1, cmd_op(OP_SYNC));
    wr(dst, R_CMDQ_PROD, 2);
    retires_in(dst, 1000, 1, 2);
    qtest_quit(dst);

    /* busy: sent (the rest of test_migration shows it taken) */
    src = smmu_start(VIS_PROPS);
    cmdq_setup(src, 8);
    put_cmd(src, 8, 0, cmd_op(OP_SYNC));
    wr(src, R_CMDQ_PROD, 1);
    qtest_clock_step(src, 999);
    save_to_file(src, file);
    g_assert_true(g_file_get_contents(file, (char **)&buf, &len, NULL));
    g_assert_cmpuint(subsection_find(buf, len, "smmuv3/cmdq-engine"), !=, 0);
    g_clear_pointer(&buf, g_free);

    /* jitter that has not moved: not sent */
    src = smmu_start(props);
    save_to_file(src, file);
    g_assert_true(g_file_get_contents(file, (char **)&buf, &len, NULL));
    g_assert_cmpuint(subsection_find(buf, len, "smmuv3/cmdq-engine"), ==, 0);
    g_clear_pointer(&buf, g_free);

    /*
     * Jitter that has moved: four commands retired on the source, four
     * more on the destination cost what commands 5 to 8 cost without a
     * migration (interrupting CMD_SYNCs: each retires by the timer)
     */
    jitter_run(7, ref, 8);
    src = smmu_start(props);
    cmdq_setup(src, 8);
    for (i = 0; i < 8; i++) {
        Cmd sync = { { OP_SYNC | SYNC_CS_IRQ } };

        put_cmd(src, 8, i, sync);
    }
    wr(src, R_CMDQ_PROD, 4);
    qtest_clock_step(src, 100000);
    g_assert_cmphex(cons(src), ==, 4);
    save_to_file(src, file);
    g_assert_true(g_file_get_contents(file, (char **)&buf, &len, NULL));
    g_assert_cmpuint(subsection_find(buf, len, "smmuv3/cmdq-engine"), !=, 0);
    dst = load_from_file(props, file, true);
    unlink(file);
    qtest_qmp_assert_success(dst, "{ 'execute': 'cont' }");
    t0 = qtest_clock_step(dst, 100000);
    wr(dst, R_CMDQ_PROD, 8);
    for (i = 4, t = t0; i < 8; i++) {
        int64_t now = qtest_clock_step_next(dst);

        g_assert_cmphex(cons(dst), ==, i + 1);
        g_assert_cmpint(now - t, ==, ref[i] - ref[i - 1]);
        t = now;
    }
    qtest_quit(dst);
}

/*
 * Every counter travels, the msi-* ones too; pending commands whose
 * visibility the stream does not carry (a cost-0 source's, its queue
 * disabled) count as visible from the first look after loading, not from
 * a virtual clock read before the clock itself was loaded.
 */
static void test_migration_counters(void)
{
    const char *props = "-global arm-smmuv3.cmdqs=8 -global arm-smmuv3.msi=on "
                        "-global arm-smmuv3.cmdq-cmd-ns=1000";
    g_autofree char *file = mig_file("counters");
    QTestState *src = smmu_start(props), *dst;
    int64_t t;

    cmdq_setup(src, 8);
    put_cmd(src, 8, 0, cmd_sync_msi(MSI_ADDR, 1));
    put_cmd(src, 8, 1, cmd_sync_msi(MSI_ADDR + 4, 2));
    wr(src, R_CMDQ_PROD, 2);
    t = qtest_clock_step(src, 1500);
    g_assert_cmpint(get_stat(src, "msi-writes"), ==, 1);
    save_to_file(src, file);
    dst = load_from_file(props, file, true);
    g_assert_cmpint(get_stat(dst, "msi-writes"), ==, 1);
    qtest_qmp_assert_success(dst, "{ 'execute': 'cont' }");
    qtest_clock_set(dst, t + 500);
    g_assert_cmphex(qtest_readl(dst, MSI_ADDR + 4), ==, 2);
    g_assert_cmpint(get_stat(dst, "msi-writes"), ==, 2);
    qtest_quit(dst);
    unlink(file);

    /* cost 0, queue disabled with a command pending, 1 ms in */
    src = smmu_start("-global arm-smmuv3.cmdqs=8");
    qtest_writeq(src, SMMU_BASE + R_CMDQ_BASE, QUEUE_ADDR | 8);
    put_cmd(src, 8, 0, cmd_op(OP_SYNC));
    wr(src, R_CMDQ_PROD, 1);
    t = qtest_clock_step(src, 1000000);
    save_to_file(src, file);
    dst = load_from_file("-global arm-smmuv3.cmdqs=8 "
                         "-global arm-smmuv3.cmdq-cmd-ns=1000", file, true);
    unlink(file);
    qtest_clock_set(dst, t);
    wr(dst, R_CR0, CR0_CMDQEN);
    retires_in(dst, 1000, 0, 1);
    g_assert_cmpint(get_stat(dst, "max-sync-wait-ns"), ==, 1000);
    qtest_quit(dst);
}

/*
 * A stream from a device with a larger command queue than this one's
 * cmdqs, with no engine subsection (upstream QEMU, or smmulab at cost 0),
 * must be refused, not loaded into a queue the engine was not sized for.
 */
static void test_migration_bounds(void)
{
    g_autofree char *file = g_strdup_printf("%s/smmuv3-cmdq-b-%d.mig",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *uri = g_strdup_printf("file:%s", file);
    QTestState *src = smmu_start(""), *dst;
    int i;

    qtest_writeq(src, SMMU_BASE + R_CMDQ_BASE, QUEUE_ADDR | 18);
    wr(src, R_CMDQ_PROD, 0x3fff0);   /* near the end of 2^18 entries */
    qtest_qmp_assert_success(src, "{ 'execute': 'stop' }");
    qtest_qmp_assert_success(src, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    wait_migration(src);
    qtest_quit(src);

    dst = smmu_start("-global arm-smmuv3.cmdqs=8 "
                     "-global arm-smmuv3.cmdq-cmd-ns=1000 -incoming defer");
    qtest_set_expected_status(dst, 1);
    qtest_qmp_assert_success(dst, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s } }", uri);
    for (i = 0; i < 1000 && qtest_probe_child(dst); i++) {
        g_usleep(10000);
    }
    /* Loaded anyway: show what the next PROD write does */
    if (qtest_probe_child(dst)) {
        wr(dst, R_CMDQ_PROD, 0x3fffe);
        wr(dst, R_CR0, CR0_CMDQEN);
    }
    g_assert_false(qtest_probe_child(dst));
    qtest_quit(dst);
    unlink(file);
}

/*
 * End to end, with a real DMA master: an edu device behind the SMMU
 * reads guest memory through IOVAs that stage-1 page tables in guest RAM
 * map, so its reads show which translation the SMMU uses.  edu starts a
 * DMA 100 ms (at a ms boundary) after its command register is written.
 */
#define EDU_BAR         0x10000000ULL
#define EDU_DEVFN       0x08            /* 00:01.0, StreamID 8 */
#define GICD_BASE       0x08000000ULL
#define SMMU_IRQ_SYNC   (32 + 74 + 2)   /* virt's SMMU SPIs from 74 */

#define R_STRTAB_BASE   0x80
#define R_STRTAB_CFG    0x88

#define STRTAB_ADDR     0x45000000ULL
#define CD_ADDR         0x45001000ULL
#define PT_L1           0x45002000ULL
#define PT_L2           0x45003000ULL
#define PT_L3           0x45004000ULL
#define PAGE(n)         (0x45100000ULL + 0x1000ULL * (n))
#define OUT_IOVA        0x10000ULL
#define OUT_PAGE        PAGE(15)
#define ASID            1

static QTestState *e2e_start(const char *props)
{
    return qtest_initf("-M virt,iommu=smmuv3,highmem=off,gic-version=2 "
                       "-display none -nic none -device edu,addr=01.0 %s",
                       props);
}

static void pte_set(QTestState *qts, uint64_t iova, uint64_t pa)
{
    /* L3 page: valid, page, AF, AP[2:1]=01 (read/write) */
    qtest_writeq(qts, PT_L3 + 8 * ((iova >> 12) & 511),
                 pa | (1 << 10) | (1 << 6) | 3);
}

/* Stream table, CD and page tables for the edu's StreamID; SMMU on */
static void e2e_setup(QTestState *qts)
{
    uint32_t ste[16] = { 0 }, cd[16] = { 0 };
    uint64_t ecam = ECAM_BASE + (EDU_DEVFN << 12);
    int i;

    /* STE: valid, stage 1 translate, stage 2 bypass, one CD */
    ste[0] = cpu_to_le32((uint32_t)CD_ADDR | (5 << 1) | 1);
    qtest_memwrite(qts, STRTAB_ADDR + 64 * (EDU_DEVFN), ste, sizeof(ste));
    /* CD: 32-bit VA, 4K granule, TTB1 disabled, AArch64, A, R, ASID */
    cd[0] = cpu_to_le32(32 | (1U << 30) | (1U << 31));
    cd[1] = cpu_to_le32(2 | (1 << 9) | (1 << 13) | (1 << 14) | (ASID << 16));
    cd[2] = cpu_to_le32((uint32_t)PT_L1);
    qtest_memwrite(qts, CD_ADDR, cd, sizeof(cd));
    qtest_writeq(qts, PT_L1, PT_L2 | 3);
    qtest_writeq(qts, PT_L2, PT_L3 | 3);
    for (i = 0; i < 16; i++) {
        qtest_memset(qts, PAGE(i), 0xa0 + i, 0x1000);
    }
    pte_set(qts, OUT_IOVA, OUT_PAGE);

    qtest_writeq(qts, SMMU_BASE + R_STRTAB_BASE, STRTAB_ADDR);
    wr(qts, R_STRTAB_CFG, 5);                   /* linear, 32 StreamIDs */
    qtest_writeq(qts, SMMU_BASE + R_CMDQ_BASE, QUEUE_ADDR | 8);
    wr(qts, R_CMDQ_PROD, 0);
    wr(qts, R_CMDQ_CONS, 0);
    wr(qts, R_CR0, CR0_SMMUEN | CR0_CMDQEN);

    /* edu: BAR0, memory space and bus master on */
    qtest_writel(qts, ecam + 0x10, (uint32_t)EDU_BAR);
    qtest_writew(qts, ecam + 0x04, 0x6);
    g_assert_cmphex(qtest_readl(qts, EDU_BAR), ==, 0x010000ed);
}

/* Start an edu DMA of 4 bytes: from @iova into its buffer, or back out */
static void edu_dma(QTestState *qts, uint64_t src, uint64_t dst, bool out)
{
    qtest_writeq(qts, EDU_BAR + 0x80, src);
    qtest_writeq(qts, EDU_BAR + 0x88, dst);
    qtest_writeq(qts, EDU_BAR + 0x90, 4);
    qtest_writeq(qts, EDU_BAR + 0x98, out ? 3 : 1);
}

/* Step to the next ms boundary (edu's timer granule), return the time */
static int64_t step_to_ms(QTestState *qts)
{
    int64_t now = qtest_clock_step(qts, 1);   /* qtest refuses a step of 0 */

    if (now % 1000000) {
        now = qtest_clock_step(qts, 1000000 - now % 1000000);
    }
    return now;
}

/*
 * What the edu copied through @iova in a DMA started now: read it into
 * its buffer, then write that through OUT_IOVA to OUT_PAGE.
 */
static uint32_t edu_read_via(QTestState *qts, uint64_t iova)
{
    edu_dma(qts, iova, 0x40000, false);
    qtest_clock_step(qts, 101000000);
    edu_dma(qts, 0x40000, OUT_IOVA, true);
    qtest_clock_step(qts, 101000000);
    return qtest_readl(qts, OUT_PAGE);
}

static uint32_t fill(int n)
{
    return 0x01010101U * (0xa0 + n);
}

/* A TLBI_NH_VA for @iova (range fields @tg @num) and a CMD_SYNC with @cs */
static void submit_inval(QTestState *qts, uint32_t *prod, uint64_t iova,
                         uint8_t tg, uint8_t num, uint8_t cs)
{
    Cmd tlbi = { { OP_TLBI_NH_VA | (num << 12), ASID << 16,
                   (uint32_t)iova | (tg << 10), iova >> 32 } };
    Cmd sync = { { OP_SYNC | (cs << 12) } };

    put_cmd(qts, 8, *prod, tlbi);
    put_cmd(qts, 8, *prod + 1, sync);
    *prod += 2;
    wr(qts, R_CMDQ_PROD, *prod);
}

/*
 * An invalidation takes effect when its TLBI retires: a DMA that starts
 * 1 ns before still translates through the old, cached mapping; one that
 * starts 1 ns after uses the new one.
 */
static void test_e2e_inval_at_retire(void)
{
    /*
     * 100 ms + 1 ns per command: a TLBI submitted at a ms boundary with a
     * DMA retires 1 ns after that DMA starts
     */
    QTestState *qts = e2e_start("-global arm-smmuv3.cmdqs=8 "
                                "-global arm-smmuv3.cmdq-cmd-ns=100000001");
    uint64_t x = 0x1000;
    uint32_t prod = 0;
    int64_t t;

    e2e_setup(qts);
    pte_set(qts, x, PAGE(0));
    g_assert_cmphex(edu_read_via(qts, x), ==, fill(0));
    /* remapped without invalidation: the SMMU still uses its cached walk */
    pte_set(qts, x, PAGE(1));
    g_assert_cmphex(edu_read_via(qts, x), ==, fill(0));

    /* TLBI submitted with the DMA: retires 1 ns after the DMA starts */
    t = step_to_ms(qts);
    submit_inval(qts, &prod, x, 0, 0, 0);
    edu_dma(qts, x, 0x40000, false);
    qtest_clock_step(qts, 100000000);           /* the DMA ran */
    g_assert_cmphex(cons(qts), ==, 0);
    qtest_clock_step(qts, 1);
    g_assert_cmphex(cons(qts), ==, 1);          /* the TLBI retired */
    edu_dma(qts, 0x40000, OUT_IOVA, true);
    qtest_clock_step(qts, 101000000);
    g_assert_cmphex(qtest_readl(qts, OUT_PAGE), ==, fill(0));
    /* after it retired, the new mapping */
    g_assert_cmphex(edu_read_via(qts, x), ==, fill(1));
    g_assert_cmpint(qtest_clock_step(qts, 1) - t, >, 200000002);
    g_assert_cmphex(cons(qts), ==, 2);

    /* TLBI submitted 2 ns before the DMA: retires 1 ns before it starts */
    pte_set(qts, x, PAGE(2));
    t = step_to_ms(qts);
    qtest_clock_step(qts, 1000000 - 2);
    submit_inval(qts, &prod, x, 0, 0, 0);
    qtest_clock_step(qts, 2);
    edu_dma(qts, x, 0x40000, false);
    qtest_clock_step(qts, 100000000 - 1);
    g_assert_cmphex(cons(qts), ==, 3);          /* the TLBI retired */
    qtest_clock_step(qts, 1);                   /* the DMA runs */
    edu_dma(qts, 0x40000, OUT_IOVA, true);
    qtest_clock_step(qts, 101000000);
    g_assert_cmphex(qtest_readl(qts, OUT_PAGE), ==, fill(2));
    qtest_quit(qts);
}

/* GICv2 distributor: SPI @irq edge-triggered, to CPU 0; is it pending? */
static void gic_edge(QTestState *qts, int irq)
{
    uint64_t cfg = GICD_BASE + 0xc00 + 4 * (irq / 16);

    qtest_writel(qts, cfg, qtest_readl(qts, cfg) | (2U << (2 * (irq % 16))));
    qtest_writeb(qts, GICD_BASE + 0x800 + irq, 1);
}

static bool gic_pending(QTestState *qts, int irq)
{
    return qtest_readl(qts, GICD_BASE + 0x200 + 4 * (irq / 32)) &
           (1U << (irq % 32));
}

/* A CMD_SYNC with CS=SIG_IRQ raises its interrupt when it retires */
static void test_e2e_sync_irq(void)
{
    QTestState *qts = e2e_start("-global arm-smmuv3.cmdqs=8 "
                                "-global arm-smmuv3.cmdq-cmd-ns=50000");
    uint32_t prod = 0;

    e2e_setup(qts);
    gic_edge(qts, SMMU_IRQ_SYNC);
    g_assert_false(gic_pending(qts, SMMU_IRQ_SYNC));
    submit_inval(qts, &prod, 0x1000, 0, 0, 1);
    qtest_clock_step(qts, 100000 - 1);
    /* a register access 1 ns before does not bring it forward */
    g_assert_cmphex(cons(qts), ==, 1);
    g_assert_false(gic_pending(qts, SMMU_IRQ_SYNC));
    qtest_clock_step(qts, 1);
    g_assert_true(gic_pending(qts, SMMU_IRQ_SYNC));
    g_assert_cmphex(cons(qts), ==, 2);
    qtest_quit(qts);
}

/*
 * Without RIL a range TLBI invalidates the page at its address only: the
 * next page stays cached.  With RIL, both go.
 */
static void check_e2e_range(bool ril)
{
    g_autofree char *props = g_strdup_printf(
        "-global arm-smmuv3.cmdqs=8 -global arm-smmuv3.ril=%s "
        "-global arm-smmuv3.cmdq-cmd-ns=1000", ril ? "on" : "off");
    QTestState *qts = e2e_start(props);
    uint64_t x = 0x1000;
    uint32_t prod = 0;

    e2e_setup(qts);
    pte_set(qts, x, PAGE(3));
    pte_set(qts, x + 0x1000, PAGE(4));
    g_assert_cmphex(edu_read_via(qts, x), ==, fill(3));
    g_assert_cmphex(edu_read_via(qts, x + 0x1000), ==, fill(4));
    pte_set(qts, x, PAGE(5));
    pte_set(qts, x + 0x1000, PAGE(6));
    /* TG=1 (4K), NUM=1, SCALE=0: two pages from x */
    submit_inval(qts, &prod, x, 1, 1, 0);
    qtest_clock_step(qts, 2000);
    g_assert_cmphex(cons(qts), ==, 2);
    g_assert_cmphex(edu_read_via(qts, x), ==, fill(5));
    g_assert_cmphex(edu_read_via(qts, x + 0x1000), ==, fill(ril ? 6 : 4));
    qtest_quit(qts);
}

static void test_e2e_range(void)
{
    check_e2e_range(false);
    check_e2e_range(true);
}

/*
 * STRTAB_BASE_CFG.LOG2SIZE above IDR1.SIDSIZE (16) counts as SIDSIZE, as
 * the StreamID check already took it.  The stream table's base was
 * aligned with a shift of 64 - (LOG2SIZE + 5), negative from 60 up
 * (UBSan: "shift exponent -2 is negative", found by the fuzzer once
 * its PCI devices made DMA translate).  A base 0x40 above the table is
 * aligned down to it: the edu's STE is found and its DMA translates.
 */
static void test_strtab_log2size_huge(void)
{
    QTestState *qts = e2e_start("-global arm-smmuv3.cmdqs=8");

    e2e_setup(qts);
    pte_set(qts, 0x1000, PAGE(7));
    qtest_writeq(qts, SMMU_BASE + R_STRTAB_BASE, STRTAB_ADDR + 0x40);
    wr(qts, R_STRTAB_CFG, 61);                  /* linear, LOG2SIZE 61 */
    g_assert_cmphex(edu_read_via(qts, 0x1000), ==, fill(7));
    qtest_quit(qts);
}

/*
 * Issue 27, item 1: the guest moves CONS past PROD while a command is in
 * progress (16 entries, PROD 1, CONS written to 3).  No ring state has
 * CONS ahead of PROD: the slots from CONS on were never published, and
 * nothing may run them, costed or not.  A PROD write that then passes
 * CONS publishes the slot at CONS, which runs a full cost after it.
 */
static void check_cons_past_prod(bool timed)
{
    g_autofree char *props = g_strdup_printf(
        "-global arm-smmuv3.cmdqs=4 -global arm-smmuv3.msi=on "
        "-global arm-smmuv3.cmdq-cmd-ns=%d", timed ? 1000 : 0);
    QTestState *qts = smmu_start(props);
    uint32_t i;

    qtest_memset(qts, MSI_ADDR, 0xff, 64);
    cmdq_setup(qts, 4);
    put_cmd(qts, 4, 0, cmd_op(OP_TLBI_NH_ALL));
    for (i = 1; i < 16; i++) {
        put_cmd(qts, 4, i, cmd_sync_msi(MSI_ADDR + 4 * i, 0x100 + i));
    }
    wr(qts, R_CMDQ_PROD, 1);
    qtest_clock_step(qts, 100);
    wr(qts, R_CMDQ_CONS, 3);
    qtest_clock_step(qts, 20000);
    for (i = 1; i < 16; i++) {
        g_assert_cmphex(qtest_readl(qts, MSI_ADDR + 4 * i), ==, 0xffffffff);
    }
    g_assert_cmphex(cons(qts), ==, 3);
    g_assert_cmpint(get_stat(qts, "msi-writes"), ==, 0);
    /* the TLBI ran at cost 0; costed, it was abandoned unexecuted */
    g_assert_cmpint(get_stat(qts, "retired"), ==, timed ? 0 : 1);

    wr(qts, R_CMDQ_PROD, 4);
    if (timed) {
        qtest_clock_step(qts, 999);
        g_assert_cmphex(qtest_readl(qts, MSI_ADDR + 12), ==, 0xffffffff);
        qtest_clock_step(qts, 1);
    }
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR + 12), ==, 0x103);
    qtest_clock_step(qts, 20000);
    for (i = 1; i < 16; i++) {
        g_assert_cmphex(qtest_readl(qts, MSI_ADDR + 4 * i), ==,
                        i == 3 ? 0x103 : 0xffffffff);
    }
    g_assert_cmphex(cons(qts), ==, 4);
    g_assert_cmpint(get_stat(qts, "msi-writes"), ==, 1);
    g_assert_cmpint(get_stat(qts, "max-sync-wait-ns"), ==, timed ? 1000 : 0);
    qtest_quit(qts);
}

static void test_cons_past_prod(void)
{
    check_cons_past_prod(false);
    check_cons_past_prod(true);
}

/*
 * Issue 27, item 2: a CONS write that makes an MSI CMD_SYNC the command
 * to run next, while the command in progress is a silent CMD_SYNC
 * (retired at the next look, without a timer).  The MSI CMD_SYNC must
 * be performed by the timer at its due time, and a counter read must
 * never perform it: it writes guest memory.
 *
 * cons-back: slot 0 an MSI CMD_SYNC (retired, data 0xa), slot 1 a silent
 * CMD_SYNC in progress; the guest rewrites slot 0 (data 0xb) and moves
 * CONS back to it.  Slot 1 is abandoned at its due time (2000), slot 0
 * runs again from then and writes 0xb at 3000.
 */
static void test_lazy_cons_back(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=4 "
                                 "-global arm-smmuv3.msi=on "
                                 "-global arm-smmuv3.cmdq-cmd-ns=1000");
    uint32_t mem;

    qtest_writel(qts, MSI_ADDR, 0xffffffff);
    cmdq_setup(qts, 4);
    put_cmd(qts, 4, 0, cmd_sync_msi(MSI_ADDR, 0xa));
    put_cmd(qts, 4, 1, cmd_op(OP_SYNC));
    wr(qts, R_CMDQ_PROD, 2);
    qtest_clock_step(qts, 1000);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0xa);
    qtest_clock_step(qts, 500);
    put_cmd(qts, 4, 0, cmd_sync_msi(MSI_ADDR, 0xb));
    wr(qts, R_CMDQ_CONS, 0);
    /* no register access from here */
    qtest_clock_step(qts, 1499);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0xa);
    qtest_clock_step(qts, 1);
    mem = qtest_readl(qts, MSI_ADDR);
    get_stat(qts, "retired");
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, mem);  /* read only */
    g_assert_cmphex(mem, ==, 0xb);                          /* by the timer */
    g_assert_cmpint(get_stat(qts, "msi-late-max-ns"), ==, 0);
    g_assert_cmphex(cons(qts), ==, 1);
    retires_in(qts, 1000, 1, 2);
    /* both count as visible from the CONS write at 1500 */
    g_assert_cmpint(get_stat(qts, "max-sync-wait-ns"), ==, 2500);
    g_assert_cmpint(get_stat(qts, "retired"), ==, 3);
    qtest_quit(qts);
}

/*
 * cons-skip: slot 0 a silent CMD_SYNC in progress (due 1000); the guest
 * moves CONS past it, writes an MSI CMD_SYNC into slot 1 and publishes
 * it.  Slot 0 is abandoned at 1000, slot 1 runs from then: its MSI lands
 * at 2000 by the timer.
 */
static void test_lazy_cons_skip(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=4 "
                                 "-global arm-smmuv3.msi=on "
                                 "-global arm-smmuv3.cmdq-cmd-ns=1000");
    uint32_t mem;

    qtest_writel(qts, MSI_ADDR, 0xffffffff);
    cmdq_setup(qts, 4);
    put_cmd(qts, 4, 0, cmd_op(OP_SYNC));
    wr(qts, R_CMDQ_PROD, 1);
    qtest_clock_step(qts, 100);
    wr(qts, R_CMDQ_CONS, 1);
    put_cmd(qts, 4, 1, cmd_sync_msi(MSI_ADDR, 0xc));
    wr(qts, R_CMDQ_PROD, 2);
    qtest_clock_step(qts, 1899);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0xffffffff);
    qtest_clock_step(qts, 1);
    mem = qtest_readl(qts, MSI_ADDR);
    get_stat(qts, "retired");
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, mem);  /* read only */
    g_assert_cmphex(mem, ==, 0xc);                          /* by the timer */
    g_assert_cmphex(cons(qts), ==, 2);
    g_assert_cmpint(get_stat(qts, "retired"), ==, 1);
    /* visible from its PROD write at 100 */
    g_assert_cmpint(get_stat(qts, "max-sync-wait-ns"), ==, 1900);
    qtest_quit(qts);
}

/*
 * Issue 27, item 3: the guest moves PROD back while busy, rewrites the
 * slots it retracted and publishes them again.  What runs is what it
 * published last (MSI data 0xbbbb), not a copy read before the
 * retraction (0xaaaa).
 *
 * read-ahead: slot 0 (a TLBI) in progress, slot 1 retracted, rewritten
 * and republished; it runs when slot 0 retires, as published last.
 * head: slot 0 itself retracted: its work stops; republished, it runs
 * afresh, a full cost after its new PROD write.
 */
static void test_prod_back_busy(void)
{
    QTestState *qts = smmu_start("-global arm-smmuv3.cmdqs=4 "
                                 "-global arm-smmuv3.msi=on "
                                 "-global arm-smmuv3.cmdq-cmd-ns=1000");

    qtest_writel(qts, MSI_ADDR, 0xffffffff);
    cmdq_setup(qts, 4);
    put_cmd(qts, 4, 0, cmd_op(OP_TLBI_NH_ALL));
    put_cmd(qts, 4, 1, cmd_sync_msi(MSI_ADDR, 0xaaaa));
    wr(qts, R_CMDQ_PROD, 2);
    qtest_clock_step(qts, 100);
    wr(qts, R_CMDQ_PROD, 1);
    put_cmd(qts, 4, 1, cmd_sync_msi(MSI_ADDR, 0xbbbb));
    qtest_clock_step(qts, 100);
    wr(qts, R_CMDQ_PROD, 2);
    qtest_clock_step(qts, 1799);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0xffffffff);
    qtest_clock_step(qts, 1);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0xbbbb);
    g_assert_cmphex(cons(qts), ==, 2);
    qtest_quit(qts);

    qts = smmu_start("-global arm-smmuv3.cmdqs=4 -global arm-smmuv3.msi=on "
                     "-global arm-smmuv3.cmdq-cmd-ns=1000");
    qtest_writel(qts, MSI_ADDR, 0xffffffff);
    cmdq_setup(qts, 4);
    put_cmd(qts, 4, 0, cmd_sync_msi(MSI_ADDR, 0xaaaa));
    wr(qts, R_CMDQ_PROD, 1);
    qtest_clock_step(qts, 100);
    wr(qts, R_CMDQ_PROD, 0);
    put_cmd(qts, 4, 0, cmd_sync_msi(MSI_ADDR, 0xbbbb));
    qtest_clock_step(qts, 100);
    wr(qts, R_CMDQ_PROD, 1);
    qtest_clock_step(qts, 999);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0xffffffff);
    qtest_clock_step(qts, 1);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0xbbbb);
    g_assert_cmphex(cons(qts), ==, 1);
    g_assert_cmpint(get_stat(qts, "retired"), ==, 1);
    g_assert_cmpint(get_stat(qts, "msi-writes"), ==, 1);
    qtest_quit(qts);
}

/*
 * Issue 27, item 4: with IDR0.MSI, the GERROR and event queue interrupts
 * are MSIs too once their IRQ_CFG0.ADDR is not 0: IRQ_CFG1 (data) is
 * written to IRQ_CFG0.ADDR, and the wired interrupt stays quiet.  An
 * aborted write activates GERROR.MSI_GERROR_ABT_ERR or
 * MSI_EVENTQ_ABT_ERR.  With msi=off, or ADDR 0, the wired interrupt.
 */
#define R_IRQ_CTRL          0x50
#define R_GERROR_IRQ_CFG0   0x68
#define R_GERROR_IRQ_CFG1   0x70
#define R_EVENTQ_IRQ_CFG0   0xb0
#define R_EVENTQ_IRQ_CFG1   0xb8
#define R_EVENTQ_PROD       0x100a8
#define R_EVENTQ_CONS       0x100ac
#define IRQ_CTRL_GERROR     (1U << 0)
#define IRQ_CTRL_EVENTQ     (1U << 2)
#define CR0_EVENTQEN        (1U << 2)
#define GERROR_MSI_EVENTQ_ABT_ERR (1U << 5)
#define GERROR_MSI_GERROR_ABT_ERR (1U << 7)
#define SMMU_IRQ_EVTQ       (32 + 74 + 0)
#define SMMU_IRQ_GERROR     (32 + 74 + 3)
#define EVTQ_ADDR           (QUEUE_ADDR + 0x20000)
#define MSI_UNMAPPED        (1ULL << 51)

static void check_gerror_msi(bool msi, bool timed)
{
    g_autofree char *props = g_strdup_printf(
        "-M virt,iommu=smmuv3,gic-version=2 -display none -nic none "
        "-global arm-smmuv3.cmdqs=8 -global arm-smmuv3.msi=%s "
        "-global arm-smmuv3.cmdq-cmd-ns=%d", msi ? "on" : "off",
        timed ? 1000 : 0);
    QTestState *qts = qtest_init(props);
    uint32_t gerror;

    gic_edge(qts, SMMU_IRQ_GERROR);
    qtest_writel(qts, MSI_ADDR, 0xffffffff);
    qtest_writeq(qts, SMMU_BASE + R_GERROR_IRQ_CFG0, MSI_ADDR);
    wr(qts, R_GERROR_IRQ_CFG1, 0x6e6e);
    wr(qts, R_IRQ_CTRL, IRQ_CTRL_GERROR);
    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_op(OP_ILLEGAL));
    wr(qts, R_CMDQ_PROD, 1);
    if (timed) {
        qtest_clock_step(qts, 999);
        g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0xffffffff);
        g_assert_false(gic_pending(qts, SMMU_IRQ_GERROR));
        qtest_clock_step(qts, 1);
    }
    /* by the timer, or inside the PROD write at cost 0 */
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, msi ? 0x6e6e : 0xffffffff);
    g_assert(gic_pending(qts, SMMU_IRQ_GERROR) == !msi);
    gerror = rd(qts, R_GERROR);
    g_assert_cmphex(gerror ^ rd(qts, R_GERRORN), ==, GERROR_CMDQ_ERR);
    if (!msi) {
        qtest_quit(qts);
        return;
    }

    /* an aborted GERROR MSI: MSI_GERROR_ABT_ERR, and no further interrupt */
    qtest_writeq(qts, SMMU_BASE + R_GERROR_IRQ_CFG0, MSI_UNMAPPED);
    wr(qts, R_GERRORN, gerror);
    qtest_clock_step(qts, 1000);
    g_assert_cmphex(rd(qts, R_GERROR) ^ rd(qts, R_GERRORN), ==,
                    GERROR_CMDQ_ERR | GERROR_MSI_GERROR_ABT_ERR);
    g_assert_false(gic_pending(qts, SMMU_IRQ_GERROR));

    /* ADDR 0: the wired interrupt */
    gerror = rd(qts, R_GERROR);
    qtest_writeq(qts, SMMU_BASE + R_GERROR_IRQ_CFG0, 0);
    wr(qts, R_GERRORN, gerror);
    qtest_clock_step(qts, 1000);
    g_assert_true(gic_pending(qts, SMMU_IRQ_GERROR));
    qtest_quit(qts);
}

static void test_msi_gerror(void)
{
    check_gerror_msi(false, false);
    check_gerror_msi(true, false);
    check_gerror_msi(true, true);
}

/*
 * A DMA through an IOVA with no page makes the edu's translation fail:
 * the SMMU records an event (F_TRANSLATION), and its event queue
 * interrupt is an MSI.
 */
static void check_eventq_msi(bool msi)
{
    g_autofree char *props = g_strdup_printf(
        "-global arm-smmuv3.cmdqs=8 -global arm-smmuv3.msi=%s "
        "-global arm-smmuv3.cmdq-cmd-ns=1000", msi ? "on" : "off");
    QTestState *qts = e2e_start(props);
    uint64_t hole = 0x100000;

    e2e_setup(qts);
    gic_edge(qts, SMMU_IRQ_EVTQ);
    gic_edge(qts, SMMU_IRQ_GERROR);
    qtest_memset(qts, MSI_ADDR, 0xff, 16);
    qtest_writeq(qts, SMMU_BASE + R_EVENTQ_BASE, EVTQ_ADDR | 4);
    wr(qts, R_EVENTQ_PROD, 0);
    wr(qts, R_EVENTQ_CONS, 0);
    qtest_writeq(qts, SMMU_BASE + R_EVENTQ_IRQ_CFG0, MSI_ADDR);
    wr(qts, R_EVENTQ_IRQ_CFG1, 0xe7e7);
    qtest_writeq(qts, SMMU_BASE + R_GERROR_IRQ_CFG0, MSI_ADDR + 4);
    wr(qts, R_GERROR_IRQ_CFG1, 0x6e6e);
    wr(qts, R_IRQ_CTRL, IRQ_CTRL_EVENTQ | IRQ_CTRL_GERROR);
    wr(qts, R_CR0, CR0_SMMUEN | CR0_CMDQEN | CR0_EVENTQEN);

    edu_dma(qts, hole, 0x40000, false);
    qtest_clock_step(qts, 101000000);
    g_assert_cmphex(rd(qts, R_EVENTQ_PROD), ==, 1);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, msi ? 0xe7e7 : 0xffffffff);
    g_assert(gic_pending(qts, SMMU_IRQ_EVTQ) == !msi);
    if (!msi) {
        qtest_quit(qts);
        return;
    }

    /* aborted: MSI_EVENTQ_ABT_ERR, signalled by the GERROR MSI */
    qtest_writeq(qts, SMMU_BASE + R_EVENTQ_IRQ_CFG0, MSI_UNMAPPED);
    edu_dma(qts, hole, 0x40000, false);
    qtest_clock_step(qts, 101000000);
    g_assert_cmphex(rd(qts, R_EVENTQ_PROD), ==, 2);
    g_assert_cmphex(rd(qts, R_GERROR) ^ rd(qts, R_GERRORN), ==,
                    GERROR_MSI_EVENTQ_ABT_ERR);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR + 4), ==, 0x6e6e);
    g_assert_false(gic_pending(qts, SMMU_IRQ_EVTQ));
    g_assert_false(gic_pending(qts, SMMU_IRQ_GERROR));
    qtest_quit(qts);
}

static void test_msi_eventq(void)
{
    check_eventq_msi(false);
    check_eventq_msi(true);
}

/*
 * Issue 27, item 5: a CMD_SYNC completes with CONS past it, then
 * signals: whoever sees its MSI must find CONS past the CMD_SYNC.  The
 * MSI's trace event records CONS at the moment of the write.
 */
static void check_msi_cons_first(bool timed)
{
    g_autofree char *log = g_strdup_printf("%s/smmuv3-cmdq-msi-%d.log",
                                           g_get_tmp_dir(), getpid());
    g_autofree char *props = g_strdup_printf(
        "-global arm-smmuv3.cmdqs=8 -global arm-smmuv3.msi=on "
        "-global arm-smmuv3.cmdq-cmd-ns=%d -trace smmuv3_cmd_sync_msi -D %s",
        timed ? 1000 : 0, log);
    g_autofree char *text = NULL;
    QTestState *qts = smmu_start(props);

    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_op(OP_TLBI_NH_ALL));
    put_cmd(qts, 8, 1, cmd_sync_msi(MSI_ADDR, 0x5a));
    wr(qts, R_CMDQ_PROD, 2);
    qtest_clock_step(qts, 2000);
    g_assert_cmphex(qtest_readl(qts, MSI_ADDR), ==, 0x5a);
    g_assert_cmphex(cons(qts), ==, 2);
    qtest_quit(qts);
    g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
    unlink(log);
    g_assert_nonnull(strstr(text, "smmuv3_cmd_sync_msi "));
    g_assert_nonnull(strstr(text, "smmuv3_cmd_sync_msi cons=0x2 "));
}

static void test_msi_cons_first(void)
{
    check_msi_cons_first(false);
    check_msi_cons_first(true);
}

/*
 * Issue 27, item 6: opcode 0x07 is no command (the architecture's
 * CMD_CFGI_ALL is CFGI_STE_RANGE, 0x04, with Range 31).  Upstream raises
 * CERROR_ILL for it, and so does the model, costing it as any illegal
 * command: cmdq-cmd-ns, not cmdq-cfgi-ns.
 */
static void check_opcode_07(QTestState *qts, int64_t ns)
{
    cmdq_setup(qts, 8);
    put_cmd(qts, 8, 0, cmd_op(0x07));
    put_cmd(qts, 8, 1, cmd_op(OP_SYNC));
    wr(qts, R_CMDQ_PROD, 2);
    if (ns) {
        qtest_clock_step(qts, ns - 1);
        g_assert_cmphex(rd(qts, R_GERROR) & GERROR_CMDQ_ERR, ==, 0);
        qtest_clock_step(qts, 1);
    }
    g_assert_cmphex(rd(qts, R_GERROR) & GERROR_CMDQ_ERR, ==, GERROR_CMDQ_ERR);
    g_assert_cmphex(cons(qts), ==, CONS_ERR(CERROR_ILL) | 0);
    qtest_quit(qts);
}

static void test_opcode_07(void)
{
    if (g_getenv("SMMULAB_QEMU_UPSTREAM")) {
        check_opcode_07(qtest_init_upstream("-M virt,iommu=smmuv3 "
                                            "-display none -nic none"),
                        0);
    }
    check_opcode_07(smmu_start("-global arm-smmuv3.cmdqs=8"), 0);
    check_opcode_07(smmu_start("-global arm-smmuv3.cmdqs=8 "
                               "-global arm-smmuv3.cmdq-cmd-ns=100 "
                               "-global arm-smmuv3.cmdq-cfgi-ns=1000"), 100);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/smmuv3-cmdq/idr/default", test_idr_default);
    qtest_add_func("/smmuv3-cmdq/idr/values", test_idr_values);
    qtest_add_func("/smmuv3-cmdq/clamp", test_clamp);
    qtest_add_func("/smmuv3-cmdq/bad-props", test_bad_props);
    qtest_add_func("/smmuv3-cmdq/zero-cost", test_zero_cost);
    qtest_add_func("/smmuv3-cmdq/zero-cost/counters",
                   test_zero_cost_counters);
    qtest_add_func("/smmuv3-cmdq/cost/cmd", test_cost_cmd);
    qtest_add_func("/smmuv3-cmdq/cost/kinds", test_cost_kinds);
    qtest_add_func("/smmuv3-cmdq/submit-idle-and-busy",
                   test_submit_idle_and_busy);
    qtest_add_func("/smmuv3-cmdq/wrap", test_wrap);
    qtest_add_func("/smmuv3-cmdq/full", test_full);
    qtest_add_func("/smmuv3-cmdq/ril-off-range", test_ril_off_range);
    qtest_add_func("/smmuv3-cmdq/disable", test_disable);
    qtest_add_func("/smmuv3-cmdq/cmdq-err", test_cmdq_err);
    qtest_add_func("/smmuv3-cmdq/reset", test_reset);
    qtest_add_func("/smmuv3-cmdq/stats", test_stats);
    qtest_add_func("/smmuv3-cmdq/lazy-sync", test_lazy_sync);
    qtest_add_func("/smmuv3-cmdq/msi/idr", test_idr_msi_sev);
    qtest_add_func("/smmuv3-cmdq/msi/at-retire", test_msi_at_retire);
    qtest_add_func("/smmuv3-cmdq/msi/not-written", test_msi_not_written);
    qtest_add_func("/smmuv3-cmdq/msi/abort", test_msi_abort);
    qtest_add_func("/smmuv3-cmdq/msi/migration", test_msi_migration);
    qtest_add_func("/smmuv3-cmdq/msi/cs-both", test_msi_cs_both);
    qtest_add_func("/smmuv3-cmdq/msi/doorbell-dma", test_msi_doorbell);
    qtest_add_func("/smmuv3-cmdq/cons-write-busy", test_cons_write_busy);
    qtest_add_func("/smmuv3-cmdq/seed", test_seed);
    qtest_add_func("/smmuv3-cmdq/huge-cost", test_huge_cost);
    qtest_add_func("/smmuv3-cmdq/lap/stale-fetch", test_lap_stale_fetch);
    qtest_add_func("/smmuv3-cmdq/lap/all-sizes", test_laps);
    qtest_add_func("/smmuv3-cmdq/queue-in-mmio", test_queue_in_mmio);
    qtest_add_func("/smmuv3-cmdq/ril-off-all-levels", test_ril_off_all_levels);
    qtest_add_func("/smmuv3-cmdq/trace-cost0", test_trace_cost0);
    qtest_add_func("/smmuv3-cmdq/e2e/inval-at-retire",
                   test_e2e_inval_at_retire);
    qtest_add_func("/smmuv3-cmdq/e2e/sync-irq", test_e2e_sync_irq);
    qtest_add_func("/smmuv3-cmdq/e2e/range", test_e2e_range);
    qtest_add_func("/smmuv3-cmdq/e2e/strtab-log2size-huge",
                   test_strtab_log2size_huge);
    qtest_add_func("/smmuv3-cmdq/migration", test_migration);
    qtest_add_func("/smmuv3-cmdq/migration/bounds", test_migration_bounds);
    qtest_add_func("/smmuv3-cmdq/migration/to-untimed",
                   test_migration_to_untimed);
    qtest_add_func("/smmuv3-cmdq/migration/id-props",
                   test_migration_id_props);
    qtest_add_func("/smmuv3-cmdq/migration/id-props-busy",
                   test_migration_id_props_busy);
    qtest_add_func("/smmuv3-cmdq/migration/vis-len", test_migration_vis_len);
    qtest_add_func("/smmuv3-cmdq/migration/corrupt",
                   test_migration_corrupt);
    qtest_add_func("/smmuv3-cmdq/migration/idle", test_migration_idle);
    qtest_add_func("/smmuv3-cmdq/migration/counters",
                   test_migration_counters);
    qtest_add_func("/smmuv3-cmdq/migration/upstream-compat",
                   test_migration_upstream);
    qtest_add_func("/smmuv3-cmdq/cons-write-past-prod", test_cons_past_prod);
    qtest_add_func("/smmuv3-cmdq/lazy-sync/cons-back", test_lazy_cons_back);
    qtest_add_func("/smmuv3-cmdq/lazy-sync/cons-skip", test_lazy_cons_skip);
    qtest_add_func("/smmuv3-cmdq/prod-back-busy", test_prod_back_busy);
    qtest_add_func("/smmuv3-cmdq/msi/gerror", test_msi_gerror);
    qtest_add_func("/smmuv3-cmdq/msi/eventq", test_msi_eventq);
    qtest_add_func("/smmuv3-cmdq/msi/cons-first", test_msi_cons_first);
    qtest_add_func("/smmuv3-cmdq/opcode-0x07", test_opcode_07);
    return g_test_run();
}
