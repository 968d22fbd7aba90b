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

#define R_IDR1          0x04
#define R_IDR3          0x0c
#define R_CR0           0x20
#define R_GERROR        0x60
#define R_GERRORN       0x64
#define R_CMDQ_BASE     0x90
#define R_CMDQ_PROD     0x98
#define R_CMDQ_CONS     0x9c
#define R_EVENTQ_BASE   0xa0

#define CR0_CMDQEN      (1U << 3)
#define GERROR_CMDQ_ERR (1U << 0)

#define OP_CFGI_STE     0x03
#define OP_TLBI_NH_ALL  0x10
#define OP_TLBI_NH_VA   0x12
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

/* qom-get cmdq-stats; the caller unrefs the returned response */
static QDict *stats_get(QTestState *qts, QDict **resp)
{
    g_autofree char *path = smmu_path(qts);

    *resp = qtest_qmp(qts, "{ 'execute': 'qom-get', 'arguments': "
                      "{ 'path': %s, 'property': 'cmdq-stats' } }", path);
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
    const char *argv[] = {
        qemu, "-M", "virt,iommu=smmuv3", "-display", "none", "-nic", "none",
        "-accel",
        "qtest", "-qtest", "null", "-global", global, NULL,
    };
    int status;

    g_assert(qemu);
    g_assert(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL,
                          NULL, &out, &err, &status, NULL));
    g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    if (!strstr(err, msg)) {
        g_test_message("stderr: %s", err);
    }
    g_assert_nonnull(strstr(err, msg));
    /* one line */
    g_assert_null(strchr(strchr(err, '\n') + 1, '\n'));
}

static void test_bad_props(void)
{
    static const char *const u63[] = {
        "cmdq-cmd-ns", "cmdq-sync-ns", "cmdq-cfgi-ns", "cmdq-tlbi-page-ns",
        "cmdq-jitter-ns", "cmdq-seed",
    };
    int i;

    /* out of range, negative, too large for the type, not a number */
    check_bad_prop("cmdqs=20", "cmdqs=20 is out of range 0..19");
    check_bad_prop("eventqs=31", "eventqs=31 is out of range 0..19");
    check_bad_prop("cmdqs=256", "cmdqs");
    check_bad_prop("cmdqs=-1", "cmdqs");
    check_bad_prop("eventqs=-3", "eventqs");
    check_bad_prop("eventqs=seven", "eventqs");
    check_bad_prop("ril=maybe", "ril");
    check_bad_prop("ril=2", "ril");
    for (i = 0; i < ARRAY_SIZE(u63); i++) {
        g_autofree char *neg = g_strdup_printf("%s=-1", u63[i]);
        g_autofree char *neg_msg = g_strdup_printf(
            "%s=-1 is out of range 0..9223372036854775807", u63[i]);
        g_autofree char *huge = g_strdup_printf(
            "%s=99999999999999999999999", u63[i]);
        g_autofree char *nan = g_strdup_printf("%s=fast", u63[i]);

        check_bad_prop(neg, neg_msg);
        check_bad_prop(huge, u63[i]);
        check_bad_prop(nan, u63[i]);
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
    for (i = 0; i < n; i++) {
        put_cmd(qts, 8, i, cmd_op(OP_SYNC));
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
 * Migrate @props' device, after three commands went through, from this
 * QEMU into the QEMU named by $SMMULAB_QEMU_UPSTREAM (built from the same
 * source without smmulab's patches), which must load it when @expect_ok,
 * and otherwise refuse it (QEMU then exits with status 1).
 */
static void migrate_to_upstream(const char *props, bool expect_ok)
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
    g_assert_cmphex(cons(src), ==, 3);
    qtest_qmp_assert_success(src, "{ 'execute': 'stop' }");
    qtest_qmp_assert_success(src, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    wait_migration(src);
    qtest_quit(src);

    dst = qtest_init_with_env("SMMULAB_QEMU_UPSTREAM",
                              "-M virt,iommu=smmuv3 -display none -nic none "
                              "-incoming defer", true);
    if (!expect_ok) {
        qtest_set_expected_status(dst, 1);
    }
    qtest_qmp_assert_success(dst, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s } }", uri);
    if (expect_ok) {
        wait_migration(dst);
        /* the queue state arrived */
        g_assert_cmphex(cons(dst), ==, 3);
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
 * A cost-0 configuration's stream has no smmulab subsection: a QEMU
 * without the extension loads it.  A timed one carries the engine's state,
 * which such a QEMU must refuse rather than silently drop.
 */
static void test_migration_upstream(void)
{
    if (!g_getenv("SMMULAB_QEMU_UPSTREAM")) {
        g_test_skip("SMMULAB_QEMU_UPSTREAM (a QEMU without smmulab) not set");
        return;
    }
    migrate_to_upstream("-global arm-smmuv3.cmdqs=8", true);
    migrate_to_upstream("-global arm-smmuv3.cmdqs=8 "
                        "-global arm-smmuv3.cmdq-cmd-ns=10", false);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/smmuv3-cmdq/idr/default", test_idr_default);
    qtest_add_func("/smmuv3-cmdq/idr/values", test_idr_values);
    qtest_add_func("/smmuv3-cmdq/clamp", test_clamp);
    qtest_add_func("/smmuv3-cmdq/bad-props", test_bad_props);
    qtest_add_func("/smmuv3-cmdq/zero-cost", test_zero_cost);
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
    qtest_add_func("/smmuv3-cmdq/seed", test_seed);
    qtest_add_func("/smmuv3-cmdq/migration", test_migration);
    qtest_add_func("/smmuv3-cmdq/migration/upstream-compat",
                   test_migration_upstream);
    return g_test_run();
}
