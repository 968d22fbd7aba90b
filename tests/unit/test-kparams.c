/*
 * Unit tests of runner/kparams.c: a kernel's parameter list, the checks of
 * a command line against it before a boot, and what a console says ran.
 * (Reading a real vmlinux is checked in tests/runner-e2e.sh, on the kit's
 * kernel.)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "kparams.h"

/* A list as smmulab-kparams writes it for the kit kernel (abridged) */
static const char list[] =
    "# smmulab kernel parameters, read from vmlinux\n"
    "arm_smmu_v3.disable_msipolling\tbool\tN\t-\n"
    "arm_smmu_v3.cmdq_lock\tchoice\tfair\tfair|legacy\n"
    "arm_smmu_v3.cmdq_alloc\tchoice\tcmpxchg\tcmpxchg|add\n"
    "arm_smmu_v3.tlbi_max_pages\tuint\t0\t-\n"
    "printk.time\tbool\tY\t-\n"
    "watchdog_thresh\tsetup\t-\t-\n"
    "iommu.probe_lock\tearly\t-\t-\n"
    "iommu.probe_lock_buckets\tearly\t-\t-\n"
    "iommu.alias_walk\tearly\t-\t-\n";

static SmmulabKParams *load_list(void)
{
    g_autofree char *path = NULL;
    g_autoptr(GError) err = NULL;
    SmmulabKParams *kp;
    int fd = g_file_open_tmp("test-kparams-XXXXXX", &path, &err);

    g_assert_no_error(err);
    close(fd);
    g_assert_true(g_file_set_contents(path, list, -1, &err));
    kp = smmulab_kparams_load(path, &err);
    g_assert_no_error(err);
    g_unlink(path);
    return kp;
}

static void check_refused(const SmmulabKParams *kp, const char *cmdline,
                          const char *says)
{
    g_autoptr(GError) err = NULL;

    g_assert_false(smmulab_kparams_check(kp, cmdline, &err));
    g_assert_nonnull(err);
    if (!strstr(err->message, says)) {
        g_error("'%s': '%s' lacks '%s'", cmdline, err->message, says);
    }
}

static void test_check(void)
{
    g_autoptr(SmmulabKParams) kp = load_list();
    g_autoptr(GError) err = NULL;

    g_assert_true(smmulab_kparams_check(kp, "arm_smmu_v3.cmdq_lock=legacy "
        "arm_smmu_v3.tlbi_max_pages=128 iommu.probe_lock=hashed "
        "watchdog_thresh=1 smmulab.seconds=3 somemodule.x=1 "
        "arm-smmu-v3.cmdq_alloc=add printk.time=0", &err));
    g_assert_no_error(err);
    /* the typo that made an A/B an A/A */
    check_refused(kp, "arm_smmu_v3.cmdq_lokc=legacy",
                  "no parameter arm_smmu_v3.cmdq_lokc in arm_smmu_v3");
    check_refused(kp, "iommu.probe_lokc=hashed", "no parameter");
    check_refused(kp, "watchdog_thres=1", "no parameter watchdog_thres");
    /* values the kernel refuses (with a warning nobody reads) */
    check_refused(kp, "arm_smmu_v3.cmdq_lock=fairr",
                  "not a value it takes (fair, legacy)");
    check_refused(kp, "arm_smmu_v3.cmdq_lock", "not a value it takes");
    check_refused(kp, "arm_smmu_v3.tlbi_max_pages=-1", "unsigned");
    check_refused(kp, "arm_smmu_v3.tlbi_max_pages=12x", "unsigned");
    check_refused(kp, "printk.time=maybe", "not a bool");
}

static void test_canonical(void)
{
    g_autoptr(SmmulabKParams) kp = load_list();
    const struct {
        const char *a, *b;
        gboolean same;
    } cases[] = {
        /* a default written out is the default */
        { "", "arm_smmu_v3.cmdq_lock=fair", TRUE },
        { "", "arm_smmu_v3.cmdq_lock=legacy", FALSE },
        { "arm_smmu_v3.tlbi_max_pages=0", "", TRUE },
        /* order does not matter; the last of a name wins */
        { "a=1 b=2", "b=2 a=1", TRUE },
        { "arm_smmu_v3.cmdq_lock=legacy arm_smmu_v3.cmdq_lock=fair", "",
          TRUE },
        { "arm-smmu-v3.cmdq_lock=legacy", "arm_smmu_v3.cmdq_lock=legacy",
          TRUE },
        { "smmulab.tag=a", "smmulab.tag=b", FALSE },
    };
    guint i;

    for (i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *a = smmulab_kparams_canonical(kp, cases[i].a);
        g_autofree char *b = smmulab_kparams_canonical(kp, cases[i].b);

        if ((strcmp(a, b) == 0) != cases[i].same) {
            g_error("'%s' -> '%s' and '%s' -> '%s': expected %s", cases[i].a,
                    a, cases[i].b, b, cases[i].same ? "the same" : "different");
        }
    }
    /* without a list only the order and repeats are known */
    {
        g_autofree char *a = smmulab_kparams_canonical(NULL, "");
        g_autofree char *b = smmulab_kparams_canonical(NULL,
            "arm_smmu_v3.cmdq_lock=fair");

        g_assert_cmpstr(a, !=, b);
    }
}

static const char console[] =
    "[    0.000000] Linux version 6.12.117 (smmulab@smmulab) #1 SMP\n"
    "[    0.000000] Kernel command line: console=ttyAMA0 %s smmulab.seed=7\n"
    "%s"
    "[    0.200000] iommu: probe_lock=hashed buckets=16\n"
    "[    0.200100] iommu: alias_walk=bus\n"
    "[    0.500000] arm-smmu-v3 9050000.smmuv3: cmdq_lock=%s cmdq_wait=full "
    "cmdq_poll=upstream walk_flush=pages tlbi_max_pages=0 cmdq_alloc=%s\n"
    "[    0.500100] arm-smmu-v3 9050000.smmuv3: cmdq_alloc=add: 256 cmdq "
    "entries for 8 possible CPUs, at most 31 commands per batch\n";

static SmmulabRan *scan(const char *cmdline, const char *extra,
                        const char *lock, const char *alloc)
{
    g_autofree char *text = g_strdup_printf(console, cmdline, extra, lock,
                                            alloc);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    SmmulabRan *ran = smmulab_ran_new();
    guint i;

    for (i = 0; lines[i]; i++) {
        smmulab_ran_scan(ran, lines[i]);
    }
    return ran;
}

static void expect(const SmmulabRan *ran, const char *asked, const char *says)
{
    g_autofree char *bad = smmulab_kparams_verify(ran, asked);

    if (!says) {
        if (bad) {
            g_error("'%s': refused: %s", asked, bad);
        }
        return;
    }
    if (!bad || !strstr(bad, says)) {
        g_error("'%s': '%s' lacks '%s'", asked, bad ? bad : "(accepted)",
                says);
    }
}

static void test_verify(void)
{
    const char *asked = "arm_smmu_v3.cmdq_lock=legacy iommu.probe_lock=hashed "
                        "iommu.probe_lock_buckets=16 iommu.alias_walk=bus "
                        "watchdog_thresh=1";
    g_autoptr(SmmulabRan) good = scan(asked, "", "legacy", "cmpxchg");
    g_autoptr(SmmulabRan) wrong = scan(asked, "", "fair", "cmpxchg");
    g_autoptr(SmmulabRan) invalid = scan("arm_smmu_v3.cmdq_lock=fairr",
        "[    0.000000] Booting kernel: `fairr' invalid for parameter "
        "`arm_smmu_v3.cmdq_lock'\n", "fair", "cmpxchg");
    g_autoptr(SmmulabRan) iommu_bad = scan("iommu.probe_lock=bogus",
        "[    0.000000] iommu: iommu.probe_lock=bogus: unknown, using global\n",
        "fair", "cmpxchg");
    g_autoptr(SmmulabRan) unknown = scan("foo=1",
        "[    0.010000] Unknown kernel command line parameters \"foo=1\", "
        "will be passed to user space.\n", "fair", "cmpxchg");
    g_autoptr(SmmulabRan) fallback = scan("arm_smmu_v3.cmdq_alloc=add", "",
        "fair", "cmpxchg (add requested: 8 entries < 2 x 8 possible CPUs)");
    g_autoptr(SmmulabRan) none = smmulab_ran_new();
    g_autofree char *sum = smmulab_ran_summary(good);

    expect(good, asked, NULL);
    expect(good, "", NULL);
    g_assert_cmpstr(sum, ==, "iommu.probe_lock=hashed; "
                    "iommu.probe_lock_buckets=16; iommu.alias_walk=bus; "
                    "arm_smmu_v3.cmdq_lock=legacy; arm_smmu_v3.cmdq_wait=full; "
                    "arm_smmu_v3.cmdq_poll=upstream; "
                    "arm_smmu_v3.walk_flush=pages; "
                    "arm_smmu_v3.tlbi_max_pages=0; "
                    "arm_smmu_v3.cmdq_alloc=cmpxchg");
    /* the driver says another value than the command line asked */
    expect(wrong, asked, "arm_smmu_v3.cmdq_lock=legacy: the kernel ran "
           "cmdq_lock=fair");
    expect(good, "iommu.probe_lock_buckets=64", "not in the kernel's command "
           "line");
    expect(invalid, "arm_smmu_v3.cmdq_lock=fairr", "refused by the kernel: "
           "Booting kernel: `fairr' invalid");
    expect(iommu_bad, "iommu.probe_lock=bogus", "refused by the kernel");
    expect(unknown, "foo=1", "refused by the kernel: Unknown kernel command");
    expect(fallback, "arm_smmu_v3.cmdq_alloc=add", "the kernel ran "
           "cmdq_alloc=cmpxchg (add requested: 8 entries < 2 x 8 possible "
           "CPUs)");
    expect(none, "", "no \"Kernel command line:\" line");
    /* an A/A is told by what ran, not by what was written */
    {
        g_autoptr(SmmulabRan) a = scan("", "", "fair", "cmpxchg");
        g_autoptr(SmmulabRan) b = scan("arm_smmu_v3.cmdq_lock=fair", "",
                                       "fair", "cmpxchg");
        g_autoptr(SmmulabRan) c = scan("arm_smmu_v3.cmdq_lock=legacy", "",
                                       "legacy", "cmpxchg");
        g_autofree char *sa = smmulab_ran_signature(a, "");
        g_autofree char *sb = smmulab_ran_signature(b,
            "arm_smmu_v3.cmdq_lock=fair");
        g_autofree char *sc = smmulab_ran_signature(c,
            "arm_smmu_v3.cmdq_lock=legacy");
        g_autofree char *sd = smmulab_ran_signature(a, "smmulab.tag=x");

        g_assert_cmpstr(sa, ==, sb);
        g_assert_cmpstr(sa, !=, sc);
        g_assert_cmpstr(sa, !=, sd);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/kparams/check", test_check);
    g_test_add_func("/kparams/canonical", test_canonical);
    g_test_add_func("/kparams/verify", test_verify);
    return g_test_run();
}
