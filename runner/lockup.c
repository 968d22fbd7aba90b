/*
 * smmulab: where every CPU was at each soft lockup (see lockup.h)
 *
 * A lockup's console, as Linux 6.12 on arm64 prints it:
 *
 *   watchdog: BUG: soft lockup - CPU#3 stuck for 3s! [smmulab_bench/3:81]
 *   ...
 *   pc : arm_smmu_cmdq_issue_cmdlist+0x638/0x840
 *   ...
 *   Call trace:
 *    arm_smmu_cmdq_issue_cmdlist+0x638/0x840
 *    __arm_smmu_tlb_inv_range+0xfc/0x194
 *    ...
 *   Sending NMI from CPU 3 to CPUs 0-2,4-7:
 *   NMI backtrace for cpu 0
 *   ... (registers, "Call trace:", frames)
 *   NMI backtrace for cpu 2 skipped: idling at default_idle_call+0x...
 *
 * The first frame of a trace is the interrupted PC; the others are return
 * addresses, looked up 4 bytes back (the BL that made the call), so that a
 * call at the end of an inlined wait still resolves to that wait.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockup.h"

#define MAX_SNAPSHOTS 4096      /* lockups kept per run */
#define MAX_CPUS 4096
#define MAX_FRAMES 64           /* per CPU and lockup */
#define JSON_SNAPSHOTS 8        /* lockups written out in full */

const char *const smmulab_place_names[SMMULAB_PLACE_COUNT] = {
    [SMMULAB_PLACE_SHARED_LOCK] = "shared lock",
    [SMMULAB_PLACE_SPACE] = "queue space",
    [SMMULAB_PLACE_SYNC] = "CMD_SYNC",
    [SMMULAB_PLACE_PUBLISH] = "publication",
    [SMMULAB_PLACE_CMDQ_OTHER] = "CMDQ, other",
    [SMMULAB_PLACE_CMDQ_UNRESOLVED] = "CMDQ, wait unresolved",
    [SMMULAB_PLACE_ELSEWHERE] = "elsewhere",
    [SMMULAB_PLACE_IDLE] = "idle",
    [SMMULAB_PLACE_NONE] = "no backtrace",
};

/*
 * The driver's functions that say where a CPU waits, whether the compiler
 * inlined them or not.  The first of a frame's inline chain (innermost
 * first) found here decides; arm_smmu_cmdq_issue_cmdlist() itself only
 * when nothing inside it does.
 */
static const struct {
    const char *fn;
    SmmulabPlace place;
} wait_fns[] = {
    { "arm_smmu_cmdq_shared_lock", SMMULAB_PLACE_SHARED_LOCK },
    /* the copies that the variants and the counters run (issue 28) */
    { "arm_smmu_cmdq_shared_lock_variant", SMMULAB_PLACE_SHARED_LOCK },
    { "arm_smmu_cmdq_poll_until_not_full_variant", SMMULAB_PLACE_SPACE },
    { "arm_smmu_cmdq_poll_until_sync_variant", SMMULAB_PLACE_SYNC },
    { "arm_smmu_cmdq_poll_until_msi_variant", SMMULAB_PLACE_SYNC },
    { "arm_smmu_cmdq_poll_until_consumed_variant", SMMULAB_PLACE_SYNC },
    { "arm_smmu_cmdq_issue_cmdlist_variant", SMMULAB_PLACE_CMDQ_OTHER },
    { "arm_smmu_cmdq_issue_cmdlist_add", SMMULAB_PLACE_CMDQ_OTHER },
    /* the space check of arm_smmu_cmdq_issue_cmdlist()'s wait loop */
    { "queue_has_space", SMMULAB_PLACE_SPACE },
    { "arm_smmu_cmdq_poll_until_not_full", SMMULAB_PLACE_SPACE },
    { "arm_smmu_cmdq_poll_until_has_space", SMMULAB_PLACE_SPACE },
    { "arm_smmu_cmdq_poll_v3", SMMULAB_PLACE_SPACE },
    { "arm_smmu_cmdq_add_poll_until_has_space", SMMULAB_PLACE_SPACE },
    { "arm_smmu_cmdq_add_poll_until_published", SMMULAB_PLACE_PUBLISH },
    { "arm_smmu_cmdq_poll_until_sync", SMMULAB_PLACE_SYNC },
    { "__arm_smmu_cmdq_poll_until_msi", SMMULAB_PLACE_SYNC },
    { "__arm_smmu_cmdq_poll_until_consumed", SMMULAB_PLACE_SYNC },
    { "arm_smmu_cmdq_issue_cmdlist", SMMULAB_PLACE_CMDQ_OTHER },
};

typedef struct Frame {
    char *sym;
    guint64 off, len;
    gboolean exact;             /* the interrupted PC, not a return address */
    char **chain;               /* resolved: functions, innermost first */
} Frame;

typedef struct CpuAt {
    gint cpu;
    gboolean traced;            /* a backtrace came */
    Frame *lr;                  /* its "lr : " line, until the trace */
    gboolean idle;
    GPtrArray *frames;          /* Frame */
    SmmulabPlace place;
    char *fn;                   /* the function that decided */
} CpuAt;

typedef struct Snapshot {
    double t;
    gint stuck;
    gboolean all;               /* every other CPU was asked */
    GPtrArray *cpus;            /* CpuAt, in the order they came */
} Snapshot;

struct SmmulabLockups {
    GPtrArray *snaps;
    guint dropped;              /* lockups past MAX_SNAPSHOTS */
    CpuAt *cur;                 /* whose backtrace the console prints */
    gboolean in_trace;
    gboolean resolved;
    char *note;
    guint places[SMMULAB_PLACE_COUNT];
};

static void frame_free(gpointer p)
{
    Frame *f = p;

    g_free(f->sym);
    g_strfreev(f->chain);
    g_free(f);
}

static void cpu_free(gpointer p)
{
    CpuAt *c = p;

    g_ptr_array_unref(c->frames);
    if (c->lr) {
        frame_free(c->lr);
    }
    g_free(c->fn);
    g_free(c);
}

static void snap_free(gpointer p)
{
    Snapshot *s = p;

    g_ptr_array_unref(s->cpus);
    g_free(s);
}

SmmulabLockups *smmulab_lockups_new(void)
{
    SmmulabLockups *lk = g_new0(SmmulabLockups, 1);

    lk->snaps = g_ptr_array_new_with_free_func(snap_free);
    return lk;
}

void smmulab_lockups_free(SmmulabLockups *lk)
{
    if (!lk) {
        return;
    }
    g_ptr_array_unref(lk->snaps);
    g_free(lk->note);
    g_free(lk);
}

guint smmulab_lockups_count(const SmmulabLockups *lk)
{
    return lk->snaps->len + lk->dropped;
}

static CpuAt *cpu_get(Snapshot *s, gint cpu)
{
    CpuAt *c;
    guint i;

    for (i = 0; i < s->cpus->len; i++) {
        c = g_ptr_array_index(s->cpus, i);
        if (c->cpu == cpu) {
            return c;
        }
    }
    c = g_new0(CpuAt, 1);
    c->cpu = cpu;
    c->place = SMMULAB_PLACE_NONE;
    c->frames = g_ptr_array_new_with_free_func(frame_free);
    g_ptr_array_add(s->cpus, c);
    return c;
}

/* "0-2,4-7" */
static void ask_cpus(Snapshot *s, const char *list)
{
    while (*list) {
        char *end;
        guint64 a = g_ascii_strtoull(list, &end, 10), b = a;

        if (end == list) {
            return;
        }
        if (*end == '-') {
            const char *q = end + 1;

            b = g_ascii_strtoull(q, &end, 10);
            if (end == q) {
                return;
            }
        }
        for (; a <= b && a < MAX_CPUS; a++) {
            cpu_get(s, a);
        }
        if (*end != ',') {
            return;
        }
        list = end + 1;
    }
}

/*
 * "sym+0x638/0x840", then " [module]" and/or " (P)"/" (L)" (later kernels
 * mark the PC and LR entries); FALSE if @s is not a frame
 */
static gboolean parse_frame(const char *s, Frame *f)
{
    const char *plus = strstr(s, "+0x"), *sp = strchr(s, ' '), *slash, *p;
    char *end;

    if (!plus || plus == s || (sp && sp < plus)) {
        return FALSE;
    }
    f->off = g_ascii_strtoull(plus + 3, &end, 16);
    if (end == plus + 3 || strncmp(end, "/0x", 3)) {
        return FALSE;
    }
    slash = end;
    f->len = g_ascii_strtoull(slash + 3, &end, 16);
    if (end == slash + 3) {
        return FALSE;
    }
    for (p = end; *p; p++) {
        if (*p == '[') {
            /* a module's: looked up like any other, by its symbol */
        } else if (!strncmp(p, "(P)", 3)) {
            f->exact = TRUE;
            p += 2;
        } else if (!strncmp(p, "(L)", 3)) {
            f->exact = FALSE;
            p += 2;
        } else if (*p != ' ' && *p != ']' && !g_ascii_isalnum(*p) &&
                   *p != '_') {
            return FALSE;
        }
    }
    f->sym = g_strndup(s, plus - s);
    return TRUE;
}

void smmulab_lockups_scan(SmmulabLockups *lk, const char *line)
{
    Snapshot *s = lk->snaps->len ?
        g_ptr_array_index(lk->snaps, lk->snaps->len - 1) : NULL;
    const char *body = line, *p;
    double t = -1;
    gint cpu;

    if (*body == '[' && (p = strchr(body, ']'))) {
        t = g_ascii_strtod(body + 1, NULL);
        body = p + 1;
    }
    while (*body == ' ') {
        body++;
    }
    if ((p = strstr(body, "BUG: soft lockup - CPU#")) &&
        sscanf(p, "BUG: soft lockup - CPU#%d", &cpu) == 1 &&
        cpu >= 0 && cpu < MAX_CPUS) {
        lk->in_trace = FALSE;
        lk->cur = NULL;
        if (lk->snaps->len >= MAX_SNAPSHOTS) {
            lk->dropped++;
            return;
        }
        s = g_new0(Snapshot, 1);
        s->t = t;
        s->stuck = cpu;
        s->cpus = g_ptr_array_new_with_free_func(cpu_free);
        g_ptr_array_add(lk->snaps, s);
        lk->cur = cpu_get(s, cpu);
        return;
    }
    if (!s || lk->dropped) {
        return;
    }
    if ((p = strstr(body, "Sending NMI from CPU ")) && (p = strstr(p, " to CPUs "))) {
        s->all = TRUE;
        ask_cpus(s, p + strlen(" to CPUs "));
        lk->in_trace = FALSE;
        lk->cur = NULL;
        return;
    }
    if ((p = strstr(body, "NMI backtrace for cpu ")) &&
        sscanf(p, "NMI backtrace for cpu %d", &cpu) == 1 &&
        cpu >= 0 && cpu < MAX_CPUS) {
        CpuAt *c = cpu_get(s, cpu);

        lk->in_trace = FALSE;
        lk->cur = NULL;
        if (strstr(p, "skipped: idling")) {
            c->idle = TRUE;
        } else if (!c->traced) {
            lk->cur = c;
        }
        return;
    }
    if (lk->cur && !lk->cur->traced && g_str_has_prefix(body, "lr : ")) {
        Frame f = { 0 };

        if (parse_frame(body + 5, &f)) {
            if (lk->cur->lr) {
                frame_free(lk->cur->lr);
            }
            lk->cur->lr = g_memdup2(&f, sizeof(f));
        }
        return;
    }
    if (g_str_has_prefix(body, "Call trace:")) {
        lk->in_trace = lk->cur && !lk->cur->traced;
        if (lk->in_trace) {
            lk->cur->traced = TRUE;
        }
        return;
    }
    if (lk->in_trace) {
        Frame f = { 0 };

        if (!parse_frame(body, &f)) {
            lk->in_trace = FALSE;
            lk->cur = NULL;
            return;
        }
        f.exact |= lk->cur->frames->len == 0;
        if (lk->cur->frames->len < MAX_FRAMES) {
            g_ptr_array_add(lk->cur->frames, g_memdup2(&f, sizeof(f)));
        } else {
            g_free(f.sym);
        }
        /*
         * Stopped at a function's entry, or in a leaf, the PC's function
         * has no frame record yet and the unwinder skips its caller: the
         * link register, when it is in another function, names the caller
         * (a return address).  In the usual case it repeats the next frame.
         */
        if (lk->cur->frames->len == 1 && lk->cur->lr &&
            strcmp(lk->cur->lr->sym, f.sym)) {
            lk->cur->lr->exact = FALSE;
            g_ptr_array_add(lk->cur->frames, lk->cur->lr);
            lk->cur->lr = NULL;
        }
    }
}

/* The binutils that read an arm64 object on this host */
static char *tool(const char *name)
{
    g_autofree char *cross = g_strconcat("aarch64-linux-gnu-", name, NULL);

    return g_find_program_in_path(cross);
}

static gboolean run_tool(const char *const *argv, char **out, GError **err)
{
    g_autofree char *errs = NULL;
    gint status;

    return g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL,
                        NULL, out, &errs, &status, err) &&
           g_spawn_check_wait_status(status, err);
}

typedef struct Sym {
    guint64 addr, size;
    char *section;
} Sym;

static void sym_free(gpointer p)
{
    Sym *sy = p;

    g_free(sy->section);
    g_free(sy);
}

/*
 * Function symbols of @file (objdump -t): name -> Sym.  A name defined
 * twice (static functions of other files, in a vmlinux) is dropped: which
 * one a frame means cannot be told.
 */
static GHashTable *read_symbols(const char *objdump, const char *file,
                                GError **err)
{
    const char *argv[] = { objdump, "-t", file, NULL };
    g_autofree char *out = NULL;
    g_auto(GStrv) lines = NULL;
    g_autoptr(GHashTable) twice = g_hash_table_new_full(g_str_hash,
                                                        g_str_equal, g_free,
                                                        NULL);
    GHashTable *h;
    GHashTableIter it;
    gpointer k;
    guint i;

    if (!run_tool(argv, &out, err)) {
        return NULL;
    }
    h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, sym_free);
    lines = g_strsplit(out, "\n", -1);
    for (i = 0; lines[i]; i++) {
        /* "0000000000003244 l     F .text\t00000000000008a8 name" */
        const char *l = lines[i], *tab = strchr(l, '\t');
        g_auto(GStrv) head = NULL, tail = NULL;
        Sym *sy;
        guint n;

        if (strlen(l) < 26 || l[16] != ' ' || l[23] != 'F' || !tab) {
            continue;
        }
        head = g_strsplit_set(l + 25, " \t", -1);
        tail = g_strsplit(tab + 1, " ", 2);
        n = g_strv_length(head);
        if (n < 2 || !*head[0] || g_strv_length(tail) != 2) {
            continue;
        }
        if (g_hash_table_contains(h, tail[1])) {
            g_hash_table_add(twice, g_strdup(tail[1]));
            continue;
        }
        sy = g_new0(Sym, 1);
        sy->addr = g_ascii_strtoull(l, NULL, 16);
        sy->size = g_ascii_strtoull(tail[0], NULL, 16);
        sy->section = g_strdup(head[0]);
        g_hash_table_insert(h, g_strdup(tail[1]), sy);
    }
    g_hash_table_iter_init(&it, twice);
    while (g_hash_table_iter_next(&it, &k, NULL)) {
        g_hash_table_remove(h, k);
    }
    return h;
}

/* The address a frame names in its symbol's section (the caller's BL for a
 * return address) */
static guint64 frame_addr(const Sym *sy, const Frame *f)
{
    return sy->addr + f->off - (f->exact || f->off < 4 ? 0 : 4);
}

/*
 * addr2line -a -f -i for @addrs of @section (NULL: absolute addresses of
 * a linked vmlinux): into @chains (address -> NULL-terminated function
 * "function<TAB>file:line" entries, innermost first) the answers that came
 * from DWARF.  FALSE with @err if addr2line failed.
 */
static gboolean lookup_chains(const char *addr2line, const char *file,
                              const char *section, GArray *addrs,
                              GHashTable *chains, GError **err)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
    g_autofree char *out = NULL;
    g_auto(GStrv) lines = NULL;
    GPtrArray *cur = NULL;
    guint64 cur_addr = 0;
    gboolean lined = FALSE;
    guint i;

    g_ptr_array_add(argv, g_strdup(addr2line));
    g_ptr_array_add(argv, g_strdup("-afi"));
    if (section) {
        g_ptr_array_add(argv, g_strdup("-j"));
        g_ptr_array_add(argv, g_strdup(section));
    }
    g_ptr_array_add(argv, g_strdup("-e"));
    g_ptr_array_add(argv, g_strdup(file));
    for (i = 0; i < addrs->len; i++) {
        g_ptr_array_add(argv, g_strdup_printf("0x%" G_GINT64_MODIFIER "x",
                                              g_array_index(addrs, guint64, i)));
    }
    g_ptr_array_add(argv, NULL);
    if (!run_tool((const char *const *)argv->pdata, &out, err)) {
        return FALSE;
    }
    lines = g_strsplit(out, "\n", -1);
    for (i = 0; ; i++) {
        const char *l = lines[i];

        if (!l || g_str_has_prefix(l, "0x")) {
            if (cur) {
                if (lined) {
                    /* only DWARF's answer names the inlined waits */
                    g_ptr_array_add(cur, NULL);
                    g_hash_table_insert(chains,
                                        g_memdup2(&cur_addr, sizeof(cur_addr)),
                                        g_ptr_array_free(cur, FALSE));
                } else {
                    g_ptr_array_add(cur, NULL);
                    g_strfreev((char **)g_ptr_array_free(cur, FALSE));
                }
                cur = NULL;
            }
            if (!l) {
                break;
            }
            cur_addr = g_ascii_strtoull(l + 2, NULL, 16);
            cur = g_ptr_array_new();
            lined = FALSE;
            continue;
        }
        /*
         * function, then file:line; without DWARF addr2line still names
         * the symbol, with "file.c:?" or "??:0"
         */
        if (cur && *l && lines[i + 1]) {
            const char *fl = lines[i + 1], *colon = strrchr(fl, ':');
            g_autofree char *where = g_path_get_basename(fl);

            if (!cur->len && strcmp(l, "??") && colon &&
                g_ascii_isdigit(colon[1]) && strcmp(colon, ":0")) {
                lined = TRUE;
            }
            /* "/path/arm-smmu-v3.c:1402 (discriminator 1)" */
            where[strcspn(where, " ")] = '\0';
            g_ptr_array_add(cur, g_strdup_printf("%s\t%s", l, where));
            i++;
        }
    }
    return TRUE;
}

/* @fn: a function's name, or "name<TAB>file:line" */
static SmmulabPlace place_of(const char *fn)
{
    gsize n = strcspn(fn, "\t");
    guint i;

    for (i = 0; i < G_N_ELEMENTS(wait_fns); i++) {
        if (strlen(wait_fns[i].fn) == n && !strncmp(fn, wait_fns[i].fn, n)) {
            return wait_fns[i].place;
        }
    }
    return SMMULAB_PLACE_COUNT;
}

/*
 * Where @c was: the first frame whose inline chain (or, unresolved, its
 * symbol) names one of wait_fns[]
 */
static void place_cpu(CpuAt *c)
{
    guint i, j;

    g_free(c->fn);
    c->fn = NULL;
    if (c->idle) {
        c->place = SMMULAB_PLACE_IDLE;
        return;
    }
    if (!c->frames->len) {
        c->place = SMMULAB_PLACE_NONE;
        return;
    }
    for (i = 0; i < c->frames->len; i++) {
        const Frame *f = g_ptr_array_index(c->frames, i);
        SmmulabPlace p;

        if (f->chain) {
            for (j = 0; f->chain[j]; j++) {
                const char *tab = strchr(f->chain[j], '\t');

                p = place_of(f->chain[j]);
                if (p == SMMULAB_PLACE_CMDQ_OTHER) {
                    /*
                     * none of its waits: the innermost function, and the
                     * line of arm_smmu_cmdq_issue_cmdlist() it is at
                     */
                    c->place = p;
                    c->fn = g_strdup_printf("%.*s, %s",
                                            (int)strcspn(f->chain[0], "\t"),
                                            f->chain[0], tab ? tab + 1 : "?");
                    return;
                } else if (p != SMMULAB_PLACE_COUNT) {
                    c->place = p;
                    c->fn = g_strndup(f->chain[j], strcspn(f->chain[j], "\t"));
                    return;
                }
            }
        } else if ((p = place_of(f->sym)) != SMMULAB_PLACE_COUNT) {
            /* without DWARF the waits inlined into it are not told apart */
            c->place = p == SMMULAB_PLACE_CMDQ_OTHER ?
                       SMMULAB_PLACE_CMDQ_UNRESOLVED : p;
            c->fn = g_strdup(f->sym);
            return;
        }
    }
    c->place = SMMULAB_PLACE_ELSEWHERE;
    c->fn = g_strdup(((Frame *)g_ptr_array_index(c->frames, 0))->sym);
}

#define EACH_FRAME(lk, f, body) do {                                       \
    guint i_, j_, k_;                                                      \
    for (i_ = 0; i_ < (lk)->snaps->len; i_++) {                            \
        Snapshot *s_ = g_ptr_array_index((lk)->snaps, i_);                 \
        for (j_ = 0; j_ < s_->cpus->len; j_++) {                           \
            CpuAt *c_ = g_ptr_array_index(s_->cpus, j_);                   \
            for (k_ = 0; k_ < c_->frames->len; k_++) {                     \
                Frame *f = g_ptr_array_index(c_->frames, k_);              \
                body                                                       \
            }                                                              \
        }                                                                  \
    }                                                                      \
} while (0)

/*
 * Look every frame up in @dwarf; a one-line note on how it went.  Only a
 * symbol of the frame's own size is looked up: another size means another
 * build of the driver than the one that ran.
 */
static char *resolve_frames(SmmulabLockups *lk, const char *dwarf)
{
    g_autofree char *objdump = tool("objdump"), *a2l = tool("addr2line");
    g_autofree char *readelf = tool("readelf"), *hdr = NULL;
    g_autoptr(GHashTable) syms = NULL;
    g_autoptr(GHashTable) sections = g_hash_table_new_full(g_str_hash,
                            g_str_equal, g_free, (GDestroyNotify)g_array_unref);
    g_autoptr(GHashTable) chains = g_hash_table_new_full(g_int64_hash,
                            g_int64_equal, g_free, (GDestroyNotify)g_strfreev);
    g_autoptr(GError) err = NULL;
    g_autofree char *other = NULL;
    const char *hargv[] = { readelf, "-h", dwarf, NULL };
    GHashTableIter it;
    gpointer key, val;
    gboolean rel;
    guint found = 0, resolved = 0;

    if (!dwarf || !g_file_test(dwarf, G_FILE_TEST_IS_REGULAR)) {
        return g_strdup_printf("no debug object%s%s: waits inlined into "
                               "arm_smmu_cmdq_issue_cmdlist unresolved",
                               dwarf ? " at " : "", dwarf ? dwarf : "");
    }
    if (!objdump || !a2l || !readelf) {
        return g_strdup("aarch64-linux-gnu-objdump, -addr2line or -readelf "
                        "not found (binutils-aarch64-linux-gnu): waits "
                        "unresolved");
    }
    if (!run_tool(hargv, &hdr, &err) ||
        !(syms = read_symbols(objdump, dwarf, &err))) {
        return g_strdup_printf("%s: %s", dwarf, err->message);
    }
    /* an object (the driver's) has section-relative addresses */
    rel = strstr(hdr, "REL (Relocatable file)") != NULL;
    EACH_FRAME(lk, f, {
        Sym *sy = g_hash_table_lookup(syms, f->sym);
        GArray *a;
        guint64 ad;

        if (!sy) {
            continue;
        }
        found++;
        if (sy->size != f->len) {
            if (!other) {
                other = g_strdup_printf("%s is 0x%" G_GINT64_MODIFIER "x bytes "
                                        "in the kernel that ran, 0x%"
                                        G_GINT64_MODIFIER "x in %s",
                                        f->sym, f->len, sy->size, dwarf);
            }
            continue;
        }
        ad = frame_addr(sy, f);
        a = g_hash_table_lookup(sections, sy->section);
        if (!a) {
            a = g_array_new(FALSE, FALSE, sizeof(guint64));
            g_hash_table_insert(sections, g_strdup(sy->section), a);
        }
        g_array_append_val(a, ad);
    });
    g_hash_table_iter_init(&it, sections);
    while (g_hash_table_iter_next(&it, &key, &val)) {
        if (!lookup_chains(a2l, dwarf, rel ? key : NULL, val, chains, &err)) {
            return g_strdup_printf("addr2line: %s", err->message);
        }
    }
    EACH_FRAME(lk, f, {
        Sym *sy = g_hash_table_lookup(syms, f->sym);
        guint64 ad;
        char **ch;

        g_strfreev(f->chain);
        f->chain = NULL;
        if (!sy || sy->size != f->len) {
            continue;
        }
        ad = frame_addr(sy, f);
        ch = g_hash_table_lookup(chains, &ad);
        if (ch) {
            f->chain = g_strdupv(ch);
            resolved++;
        }
    });
    if (other) {
        return g_strdup_printf("another build than the kernel that ran: %s; "
                               "waits unresolved", other);
    }
    if (!found) {
        return g_strdup_printf("no frame is a function of %s", dwarf);
    }
    if (!resolved) {
        return g_strdup_printf("%s has no DWARF: waits inlined into "
                               "arm_smmu_cmdq_issue_cmdlist unresolved",
                               dwarf);
    }
    return g_strdup_printf("DWARF of %s", dwarf);
}

void smmulab_lockups_resolve(SmmulabLockups *lk, const char *dwarf)
{
    guint i, j;

    g_free(lk->note);
    memset(lk->places, 0, sizeof(lk->places));
    lk->note = lk->snaps->len ? resolve_frames(lk, dwarf) :
               g_strdup("no soft lockup");
    for (i = 0; i < lk->snaps->len; i++) {
        Snapshot *s = g_ptr_array_index(lk->snaps, i);

        for (j = 0; j < s->cpus->len; j++) {
            CpuAt *c = g_ptr_array_index(s->cpus, j);

            place_cpu(c);
            lk->places[c->place]++;
        }
    }
    lk->resolved = TRUE;
}

static int cmp_cpu(gconstpointer a, gconstpointer b)
{
    const CpuAt *x = *(CpuAt **)a, *y = *(CpuAt **)b;

    return x->cpu - y->cpu;
}

void smmulab_lockups_to_json(const SmmulabLockups *lk, JsonBuilder *b)
{
    guint i, j, all = 0;

    for (i = 0; i < lk->snaps->len; i++) {
        all += ((Snapshot *)g_ptr_array_index(lk->snaps, i))->all;
    }
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "lockups");
    json_builder_add_int_value(b, lk->snaps->len);
    if (lk->dropped) {
        json_builder_set_member_name(b, "lockups_not_placed");
        json_builder_add_int_value(b, lk->dropped);
    }
    json_builder_set_member_name(b, "all_cpus");
    json_builder_add_int_value(b, all);
    json_builder_set_member_name(b, "resolved");
    json_builder_add_string_value(b, lk->resolved ? lk->note : "not resolved");
    json_builder_set_member_name(b, "places");
    json_builder_begin_object(b);
    for (i = 0; i < SMMULAB_PLACE_COUNT; i++) {
        if (lk->places[i]) {
            json_builder_set_member_name(b, smmulab_place_names[i]);
            json_builder_add_int_value(b, lk->places[i]);
        }
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "snapshots");
    json_builder_begin_array(b);
    for (i = 0; i < MIN(lk->snaps->len, JSON_SNAPSHOTS); i++) {
        Snapshot *s = g_ptr_array_index(lk->snaps, i);
        g_autoptr(GPtrArray) cpus = g_ptr_array_sized_new(s->cpus->len);

        /* a view sorted by CPU number (the copy frees nothing) */
        for (j = 0; j < s->cpus->len; j++) {
            g_ptr_array_add(cpus, g_ptr_array_index(s->cpus, j));
        }
        g_ptr_array_sort(cpus, cmp_cpu);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "t");
        json_builder_add_double_value(b, s->t);
        json_builder_set_member_name(b, "stuck");
        json_builder_add_int_value(b, s->stuck);
        json_builder_set_member_name(b, "cpus");
        json_builder_begin_array(b);
        for (j = 0; j < cpus->len; j++) {
            CpuAt *c = g_ptr_array_index(cpus, j);

            json_builder_begin_array(b);
            json_builder_add_int_value(b, c->cpu);
            json_builder_add_string_value(b, smmulab_place_names[c->place]);
            json_builder_add_string_value(b, c->fn ? c->fn : "");
            json_builder_end_array(b);
        }
        json_builder_end_array(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
}

char *smmulab_places_text(JsonObject *places)
{
    GString *t = g_string_new(NULL);
    guint i;

    for (i = 0; i < SMMULAB_PLACE_COUNT; i++) {
        const char *n = smmulab_place_names[i];

        if (json_object_has_member(places, n)) {
            g_string_append_printf(t, "%s%s %" G_GINT64_FORMAT,
                                   t->len ? ", " : "", n,
                                   json_object_get_int_member(places, n));
        }
    }
    return g_string_free(t, FALSE);
}

void smmulab_lockups_text(JsonObject *o, GString *t, const char *indent,
                          guint snapshots)
{
    JsonArray *snaps = json_object_get_array_member(o, "snapshots");
    g_autofree char *places =
        smmulab_places_text(json_object_get_object_member(o, "places"));
    gint64 n = json_object_get_int_member(o, "lockups");
    gint64 all = json_object_get_int_member(o, "all_cpus");
    guint i, j;

    g_string_append_printf(t, "%sCPUs at its %" G_GINT64_FORMAT
                           " lockup(s) (%s; %s): %s\n", indent, n,
                           all == n ? "every CPU's backtrace" :
                           all ? "every CPU's at some, the stuck CPU's at "
                                 "the others" :
                           "the stuck CPU's backtrace only",
                           json_object_get_string_member(o, "resolved"),
                           *places ? places : "none");
    for (i = 0; i < MIN(snapshots, json_array_get_length(snaps)); i++) {
        JsonObject *s = json_array_get_object_element(snaps, i);
        JsonArray *cpus = json_object_get_array_member(s, "cpus");

        g_string_append_printf(t, "%s  lockup %u at %.3f s, CPU#%" G_GINT64_FORMAT
                               " stuck:", indent, i + 1,
                               json_object_get_double_member(s, "t"),
                               json_object_get_int_member(s, "stuck"));
        for (j = 0; j < json_array_get_length(cpus); j++) {
            JsonArray *c = json_array_get_array_element(cpus, j);
            const char *fn = json_array_get_string_element(c, 2);

            g_string_append_printf(t, "%s CPU#%" G_GINT64_FORMAT " %s%s%s%s",
                                   j ? "," : "",
                                   json_array_get_int_element(c, 0),
                                   json_array_get_string_element(c, 1),
                                   *fn ? " (" : "", fn, *fn ? ")" : "");
        }
        g_string_append_c(t, '\n');
    }
}
