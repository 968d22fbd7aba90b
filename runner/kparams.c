/*
 * smmulab: the parameters a kernel knows, and whether a variant's kernel
 * command line asks for something it ran (see kparams.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kparams.h"

/* ---- reading a vmlinux ---- */

typedef struct Vmlinux {
    Elf *elf;
    GArray *secs;               /* GElf_Shdr of the allocated sections */
    GHashTable *syms;           /* name -> address (guint64 *) */
    GHashTable *relative;       /* address -> R_AARCH64_RELATIVE addend */
    GHashTable *fn_size;        /* a function's address -> its size */
} Vmlinux;

#define R_AARCH64_RELATIVE_ 1027

static gboolean sec_of(const Vmlinux *v, guint64 addr, gsize len,
                       GElf_Shdr **out)
{
    guint i;

    for (i = 0; i < v->secs->len; i++) {
        GElf_Shdr *s = &g_array_index(v->secs, GElf_Shdr, i);

        if (addr >= s->sh_addr && addr + len <= s->sh_addr + s->sh_size) {
            *out = s;
            return TRUE;
        }
    }
    return FALSE;
}

/* @len bytes at link address @addr; zeros in .bss; FALSE if not mapped */
static gboolean read_at(const Vmlinux *v, guint64 addr, void *buf, gsize len)
{
    GElf_Shdr *s;
    Elf_Scn *scn = NULL;
    Elf_Data *d;

    if (!sec_of(v, addr, len, &s)) {
        return FALSE;
    }
    if (s->sh_type == SHT_NOBITS) {
        memset(buf, 0, len);
        return TRUE;
    }
    while ((scn = elf_nextscn(v->elf, scn))) {
        GElf_Shdr sh;

        if (gelf_getshdr(scn, &sh) && sh.sh_addr == s->sh_addr &&
            sh.sh_size == s->sh_size && sh.sh_offset == s->sh_offset) {
            break;
        }
    }
    if (!scn || !(d = elf_getdata(scn, NULL)) ||
        addr - s->sh_addr + len > d->d_size) {
        return FALSE;
    }
    memcpy(buf, (char *)d->d_buf + (addr - s->sh_addr), len);
    return TRUE;
}

/*
 * A pointer stored at @addr.  A relocatable arm64 kernel is linked with
 * --no-apply-dynamic-relocs: the slot holds 0 and the value is the addend
 * of its R_AARCH64_RELATIVE relocation.
 */
static guint64 read_ptr(const Vmlinux *v, guint64 addr)
{
    guint64 *rel = g_hash_table_lookup(v->relative, &addr);
    guint64 x = 0;

    if (rel) {
        return *rel;
    }
    return read_at(v, addr, &x, sizeof(x)) ? GUINT64_FROM_LE(x) : 0;
}

static char *read_str(const Vmlinux *v, guint64 addr)
{
    GString *s = g_string_new(NULL);
    char c;

    while (addr && s->len < 256 && read_at(v, addr++, &c, 1) && c) {
        g_string_append_c(s, c);
    }
    if (!addr || s->len == 0 || s->len >= 256) {
        g_string_free(s, TRUE);
        return NULL;
    }
    return g_string_free(s, FALSE);
}

static guint64 sym(const Vmlinux *v, const char *name)
{
    guint64 *a = g_hash_table_lookup(v->syms, name);

    return a ? *a : 0;
}

static gboolean vmlinux_open(Vmlinux *v, int fd, const char *path,
                             GError **err)
{
    Elf_Scn *scn = NULL;
    GElf_Ehdr eh;

    elf_version(EV_CURRENT);
    v->elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!v->elf || elf_kind(v->elf) != ELF_K_ELF ||
        !gelf_getehdr(v->elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_machine != EM_AARCH64) {
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: not an arm64 ELF kernel (vmlinux)", path);
        return FALSE;
    }
    v->secs = g_array_new(FALSE, FALSE, sizeof(GElf_Shdr));
    v->syms = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    v->relative = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                        g_free);
    v->fn_size = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                       g_free);
    while ((scn = elf_nextscn(v->elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *d;
        size_t i, n;

        if (!gelf_getshdr(scn, &sh)) {
            continue;
        }
        if (sh.sh_flags & SHF_ALLOC) {
            g_array_append_val(v->secs, sh);
        }
        if (sh.sh_type == SHT_SYMTAB && (d = elf_getdata(scn, NULL))) {
            n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
            for (i = 0; i < n; i++) {
                GElf_Sym s;
                const char *name;
                guint64 *a;

                if (!gelf_getsym(d, i, &s) ||
                    !(name = elf_strptr(v->elf, sh.sh_link, s.st_name)) ||
                    !*name) {
                    continue;
                }
                a = g_new(guint64, 1);
                *a = s.st_value;
                g_hash_table_replace(v->syms, g_strdup(name), a);
                if (GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_size) {
                    guint64 *k = g_new(guint64, 1), *z = g_new(guint64, 1);

                    *k = s.st_value;
                    *z = s.st_size;
                    g_hash_table_replace(v->fn_size, k, z);
                }
            }
        }
        if (sh.sh_type == SHT_RELA && (d = elf_getdata(scn, NULL))) {
            n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
            for (i = 0; i < n; i++) {
                GElf_Rela r;
                guint64 *k, *x;

                if (!gelf_getrela(d, i, &r) ||
                    GELF_R_TYPE(r.r_info) != R_AARCH64_RELATIVE_) {
                    continue;
                }
                k = g_new(guint64, 1);
                x = g_new(guint64, 1);
                *k = r.r_offset;
                *x = r.r_addend;
                g_hash_table_replace(v->relative, k, x);
            }
        }
    }
    if (!g_hash_table_size(v->syms)) {
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: no symbol table (a stripped kernel?)", path);
        return FALSE;
    }
    return TRUE;
}

static void vmlinux_close(Vmlinux *v)
{
    if (v->secs) {
        g_array_unref(v->secs);
        g_hash_table_unref(v->syms);
        g_hash_table_unref(v->relative);
        g_hash_table_unref(v->fn_size);
    }
    if (v->elf) {
        elf_end(v->elf);
    }
}

static void param_free(gpointer p)
{
    SmmulabKParam *k = p;

    g_free(k->name);
    g_free(k->type);
    g_strfreev(k->values);
    g_free(k->def);
    g_free(k);
}

static SmmulabKParams *kparams_new(const char *source)
{
    SmmulabKParams *kp = g_new0(SmmulabKParams, 1);

    kp->source = g_strdup(source);
    kp->params = g_ptr_array_new_with_free_func(param_free);
    /* by the name as parameq() compares it ('-' read as '_') */
    kp->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                        NULL);
    kp->prefixes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                         NULL);
    return kp;
}

void smmulab_kparams_free(SmmulabKParams *kp)
{
    if (!kp) {
        return;
    }
    g_hash_table_unref(kp->by_name);
    g_hash_table_unref(kp->prefixes);
    g_ptr_array_unref(kp->params);
    g_free(kp->source);
    g_free(kp);
}

/* "a-b" and "a_b" are one name to the kernel (parameq()) */
static char *param_name(const char *tok)
{
    char *n = g_strndup(tok, strcspn(tok, "="));
    char *c;

    for (c = n; *c; c++) {
        if (*c == '-') {
            *c = '_';
        }
    }
    return n;
}

/* Add a parameter; the first of a name wins (a __setup and an early one) */
static void kparams_add(SmmulabKParams *kp, SmmulabKParam *k)
{
    const char *dot;

    char *name = param_name(k->name);

    if (g_hash_table_contains(kp->by_name, name)) {
        g_free(name);
        param_free(k);
        return;
    }
    g_ptr_array_add(kp->params, k);
    g_hash_table_insert(kp->by_name, name, k);
    if ((dot = strchr(k->name, '.'))) {
        g_hash_table_add(kp->prefixes, g_strndup(k->name, dot - k->name));
    }
}

/* struct kernel_param (64-bit): name, mod, ops, perm/level/flags, arg */
#define KP_SIZE 40
#define KP_OPS 16
#define KP_ARG 32
/* struct obs_kernel_param: str, setup_func, early */
#define SETUP_SIZE 24
#define SETUP_FUNC 8
#define SETUP_EARLY 16
/* The kit's struct arm_smmu_choice: int val; names; int nr_names */
#define CHOICE_VAL 0
#define CHOICE_NAMES 8
#define CHOICE_NR 16

static const char *const std_ops[] = {
    "byte", "short", "ushort", "int", "uint", "long", "ulong", "ullong",
    "hexint", "charp", "bool", "bool_enable_only", "invbool", "bint",
};

/* The type of a kernel_param from its ops, and its value in force */
static void param_type(const Vmlinux *v, SmmulabKParam *k, guint64 ops,
                       guint64 arg)
{
    guint i;

    if (ops && ops == sym(v, "arm_smmu_choice_ops")) {
        gint32 val = -1, nr = 0;
        guint64 names = read_ptr(v, arg + CHOICE_NAMES);
        GPtrArray *vals = g_ptr_array_new();

        read_at(v, arg + CHOICE_VAL, &val, 4);
        read_at(v, arg + CHOICE_NR, &nr, 4);
        val = GINT32_FROM_LE(val);
        nr = GINT32_FROM_LE(nr);
        for (i = 0; nr > 0 && nr < 64 && i < (guint)nr; i++) {
            char *s = read_str(v, read_ptr(v, names + 8 * i));

            if (s) {
                g_ptr_array_add(vals, s);
            }
        }
        g_ptr_array_add(vals, NULL);
        k->values = (GStrv)g_ptr_array_free(vals, FALSE);
        if (!k->values[0]) {
            g_clear_pointer(&k->values, g_strfreev);
            k->type = g_strdup("other");
            return;
        }
        k->type = g_strdup("choice");
        if (val >= 0 && (guint)val < g_strv_length(k->values)) {
            k->def = g_strdup(k->values[val]);
        }
        return;
    }
    for (i = 0; ops && i < G_N_ELEMENTS(std_ops); i++) {
        g_autofree char *n = g_strdup_printf("param_ops_%s", std_ops[i]);

        if (ops == sym(v, n)) {
            k->type = g_strdup(std_ops[i]);
            break;
        }
    }
    if (!k->type) {
        k->type = g_strdup("other");
        return;
    }
    if (!strcmp(k->type, "uint") || !strcmp(k->type, "int")) {
        guint32 x;

        if (read_at(v, arg, &x, 4)) {
            x = GUINT32_FROM_LE(x);
            k->def = !strcmp(k->type, "uint") ?
                g_strdup_printf("%u", x) : g_strdup_printf("%d", (gint32)x);
        }
    } else if (!strcmp(k->type, "bool") || !strcmp(k->type, "invbool") ||
               !strcmp(k->type, "bool_enable_only")) {
        guint8 b;

        if (read_at(v, arg, &b, 1)) {
            k->def = g_strdup((b != 0) != !strcmp(k->type, "invbool") ?
                              "Y" : "N");
        }
    }
}

/*
 * The strings setup function @fn (arm64 code) takes the address of: each
 * ADRP Xd, page followed by ADD Xd, Xd, #off
 */
static GPtrArray *setup_strings(const Vmlinux *v, guint64 fn)
{
    GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
    guint64 *size = g_hash_table_lookup(v->fn_size, &fn);
    guint64 page[32] = { 0 }, pc;

    for (pc = fn; size && *size <= 4096 && pc < fn + *size; pc += 4) {
        guint32 insn;

        if (!read_at(v, pc, &insn, 4)) {
            break;
        }
        insn = GUINT32_FROM_LE(insn);
        if ((insn & 0x9f000000) == 0x90000000) {            /* ADRP */
            gint64 imm = ((insn >> 5) & 0x7ffff) << 2 | ((insn >> 29) & 3);

            imm = (imm ^ (1 << 20)) - (1 << 20);            /* 21 bits */
            page[insn & 0x1f] = (pc & ~0xfffULL) + (imm << 12);
        } else if ((insn & 0xff800000) == 0x91000000) {     /* ADD imm */
            guint rn = (insn >> 5) & 0x1f;
            guint64 off = ((insn >> 10) & 0xfff) << ((insn >> 22 & 1) * 12);
            char *str;

            if (rn != 31 && page[rn] &&
                (str = read_str(v, page[rn] + off))) {
                g_ptr_array_add(out, str);
            }
            page[insn & 0x1f] = 0;
        }
    }
    return out;
}

/*
 * An early or __setup() parameter whose setup function warns "NAME=%s:
 * unknown, using DEFAULT" (the kit's iommu.probe_lock, iommu.alias_walk)
 * takes only the words it compares with: a choice of those, DEFAULT in
 * force.  Any other keeps its type, and its values are not checked.
 */
static void setup_choice(const Vmlinux *v, SmmulabKParam *k, guint64 fn)
{
    g_autoptr(GPtrArray) strs = setup_strings(v, fn);
    g_autofree char *warn = g_strdup_printf("%s=%%s: unknown, using ",
                                            k->name);
    g_autoptr(GPtrArray) vals = g_ptr_array_new_with_free_func(g_free);
    char *def = NULL;
    guint i;

    for (i = 0; i < strs->len; i++) {
        const char *s = g_ptr_array_index(strs, i);
        const char *w = strstr(s, warn);

        if (w) {        /* after a KERN_ level and pr_fmt's "iommu: " */
            def = g_strndup(w + strlen(warn), strcspn(w + strlen(warn),
                                                      " \n"));
        } else if (s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-")]
                   == '\0' && !g_ptr_array_find_with_equal_func(vals, s,
                                                 g_str_equal, NULL)) {
            g_ptr_array_add(vals, g_strdup(s));
        }
    }
    if (!def || !vals->len ||
        !g_ptr_array_find_with_equal_func(vals, def, g_str_equal, NULL)) {
        g_free(def);
        return;
    }
    g_free(k->type);
    k->type = g_strdup("choice");
    k->def = def;
    g_ptr_array_add(vals, NULL);
    k->values = (GStrv)g_ptr_array_free(g_steal_pointer(&vals), FALSE);
}

SmmulabKParams *smmulab_kparams_from_vmlinux(const char *vmlinux,
                                             GError **err)
{
    g_autoptr(SmmulabKParams) kp = kparams_new(vmlinux);
    Vmlinux v = { 0 };
    guint64 a, start, stop;
    int fd = open(vmlinux, O_RDONLY);
    gboolean ok = FALSE;

    if (fd < 0) {
        g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(errno),
                    "%s: %s", vmlinux, g_strerror(errno));
        return NULL;
    }
    if (!vmlinux_open(&v, fd, vmlinux, err)) {
        goto out;
    }
    start = sym(&v, "__start___param");
    stop = sym(&v, "__stop___param");
    if (!start || stop < start || (stop - start) % KP_SIZE) {
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: no __param section of struct kernel_param", vmlinux);
        goto out;
    }
    for (a = start; a < stop; a += KP_SIZE) {
        SmmulabKParam *k = g_new0(SmmulabKParam, 1);

        k->name = read_str(&v, read_ptr(&v, a));
        if (!k->name) {
            param_free(k);
            g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s: a kernel_param without a name at 0x%"
                        G_GINT64_MODIFIER "x: not the layout this reader "
                        "knows", vmlinux, a);
            goto out;
        }
        param_type(&v, k, read_ptr(&v, a + KP_OPS), read_ptr(&v, a + KP_ARG));
        kparams_add(kp, k);
    }
    start = sym(&v, "__setup_start");
    stop = sym(&v, "__setup_end");
    if (!start || stop < start || (stop - start) % SETUP_SIZE) {
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: no __setup table of struct obs_kernel_param", vmlinux);
        goto out;
    }
    for (a = start; a < stop; a += SETUP_SIZE) {
        SmmulabKParam *k = g_new0(SmmulabKParam, 1);
        gint32 early = 0;
        char *s = read_str(&v, read_ptr(&v, a));
        gsize n;

        if (!s) {
            param_free(k);
            continue;
        }
        read_at(&v, a + SETUP_EARLY, &early, 4);
        /* __setup("name=", ...) matches "name=value" */
        n = strlen(s);
        if (n > 1 && s[n - 1] == '=') {
            s[n - 1] = '\0';
        }
        k->name = s;
        k->type = g_strdup(early ? "early" : "setup");
        setup_choice(&v, k, read_ptr(&v, a + SETUP_FUNC));
        kparams_add(kp, k);
    }
    ok = TRUE;
out:
    vmlinux_close(&v);
    close(fd);
    return ok ? g_steal_pointer(&kp) : NULL;
}

/* ---- the list beside an Image ---- */

/*
 * One parameter a line, tab-separated: name, type, the value in force
 * ("-" when unknown), a choice's values separated by '|'.
 */
char *smmulab_kparams_format(const SmmulabKParams *kp)
{
    GString *s = g_string_new(NULL);
    guint i;

    g_string_append_printf(s, "# smmulab kernel parameters, read from %s "
                           "(name, type, value in force, values)\n",
                           kp->source);
    for (i = 0; i < kp->params->len; i++) {
        const SmmulabKParam *k = g_ptr_array_index(kp->params, i);
        g_autofree char *vals = k->values ? g_strjoinv("|", k->values) : NULL;

        g_string_append_printf(s, "%s\t%s\t%s\t%s\n", k->name, k->type,
                               k->def ? k->def : "-", vals ? vals : "-");
    }
    return g_string_free(s, FALSE);
}

gboolean smmulab_kparams_save(const SmmulabKParams *kp, const char *path,
                              GError **err)
{
    g_autofree char *text = smmulab_kparams_format(kp);
    g_autofree char *tmp = g_strdup_printf("%s.tmp", path);

    if (!g_file_set_contents(tmp, text, -1, err)) {
        return FALSE;
    }
    if (rename(tmp, path)) {
        g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(errno),
                    "%s: %s", path, g_strerror(errno));
        return FALSE;
    }
    return TRUE;
}

SmmulabKParams *smmulab_kparams_load(const char *path, GError **err)
{
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    g_autoptr(SmmulabKParams) kp = kparams_new(path);
    guint i;

    if (!g_file_get_contents(path, &text, NULL, err)) {
        return NULL;
    }
    lines = g_strsplit(text, "\n", -1);
    for (i = 0; lines[i]; i++) {
        g_auto(GStrv) f = NULL;
        SmmulabKParam *k;

        if (!lines[i][0] || lines[i][0] == '#') {
            continue;
        }
        f = g_strsplit(lines[i], "\t", -1);
        if (g_strv_length(f) != 4 || !f[0][0] || !f[1][0]) {
            g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s:%u: not NAME<tab>TYPE<tab>DEFAULT<tab>VALUES",
                        path, i + 1);
            return NULL;
        }
        k = g_new0(SmmulabKParam, 1);
        k->name = g_strdup(f[0]);
        k->type = g_strdup(f[1]);
        k->def = strcmp(f[2], "-") ? g_strdup(f[2]) : NULL;
        k->values = strcmp(f[3], "-") ? g_strsplit(f[3], "|", -1) : NULL;
        kparams_add(kp, k);
    }
    if (!kp->params->len) {
        g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: lists no parameter", path);
        return NULL;
    }
    return g_steal_pointer(&kp);
}

char *smmulab_kparams_path(const char *image)
{
    return g_strdup_printf("%s.params", image);
}

/* ---- checking a command line ---- */

/* The command line's parameters, split as the kernel splits them */
static GPtrArray *split_cmdline(const char *append)
{
    GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
    const char *p = append ? append : "";

    while (*p) {
        GString *t = g_string_new(NULL);
        gboolean quoted = FALSE;

        while (*p == ' ' || *p == '\t' || *p == '\n') {
            p++;
        }
        if (!*p) {
            g_string_free(t, TRUE);
            break;
        }
        while (*p && (quoted || (*p != ' ' && *p != '\t' && *p != '\n'))) {
            if (*p == '"') {
                quoted = !quoted;
            } else {
                g_string_append_c(t, *p);
            }
            p++;
        }
        g_ptr_array_add(a, g_string_free(t, FALSE));
    }
    return a;
}

static const SmmulabKParam *find_param(const SmmulabKParams *kp,
                                       const char *name)
{
    return g_hash_table_lookup(kp->by_name, name);
}

static gboolean is_number(const char *s, gboolean sign)
{
    char *end;

    if (!*s || (!sign && *s == '-')) {
        return FALSE;
    }
    errno = 0;
    if (sign) {
        g_ascii_strtoll(s, &end, 0);
    } else {
        g_ascii_strtoull(s, &end, 0);
    }
    return !errno && end != s && !*end;
}

/* NULL if @val suits @k, or why not */
static char *bad_value(const SmmulabKParam *k, const char *val)
{
    if (k->values) {
        g_autofree char *all = g_strjoinv(", ", k->values);

        if (!val || !g_strv_contains((const char *const *)k->values, val)) {
            return g_strdup_printf("not a value it takes (%s)", all);
        }
    } else if (!strcmp(k->type, "uint") || !strcmp(k->type, "ulong") ||
               !strcmp(k->type, "ullong") || !strcmp(k->type, "ushort") ||
               !strcmp(k->type, "byte") || !strcmp(k->type, "hexint")) {
        if (!val || !is_number(val, FALSE)) {
            return g_strdup_printf("not an unsigned number (%s)", k->type);
        }
    } else if (!strcmp(k->type, "int") || !strcmp(k->type, "long") ||
               !strcmp(k->type, "short")) {
        if (!val || !is_number(val, TRUE)) {
            return g_strdup_printf("not a number (%s)", k->type);
        }
    } else if (!strcmp(k->type, "bool") || !strcmp(k->type, "invbool") ||
               !strcmp(k->type, "bint")) {
        static const char *const ok[] = {
            "y", "Y", "n", "N", "1", "0", "on", "off", "true", "false", NULL
        };

        if (val && !g_strv_contains(ok, val)) {
            return g_strdup("not a bool (y, n, 1, 0, on, off)");
        }
    }
    return NULL;
}

gboolean smmulab_kparams_check(const SmmulabKParams *kp, const char *append,
                               GError **err)
{
    g_autoptr(GPtrArray) toks = split_cmdline(append);
    guint i;

    for (i = 0; i < toks->len; i++) {
        const char *t = g_ptr_array_index(toks, i);
        const char *eq = strchr(t, '=');
        g_autofree char *name = param_name(t);
        const char *dot = strchr(name, '.');
        const SmmulabKParam *k;
        g_autofree char *why = NULL;
        g_autofree char *family = NULL;

        if (!strcmp(t, "--")) {
            break;      /* the rest is init's */
        }
        if (g_str_has_prefix(name, "smmulab.")) {
            continue;   /* the guest init's, checked as workload keys */
        }
        k = find_param(kp, name);
        if (!k) {
            family = dot ? g_strndup(name, dot - name) : NULL;
            if (dot && !g_hash_table_contains(kp->prefixes, family)) {
                /* a module this kernel does not have built in */
                continue;
            }
            g_set_error(err, G_KEY_FILE_ERROR,
                        G_KEY_FILE_ERROR_INVALID_VALUE,
                        "%s: the kernel has no parameter %s%s%s (its list: %s)",
                        t, name, dot ? " in " : "", dot ? family : "",
                        kp->source);
            return FALSE;
        }
        why = bad_value(k, eq ? eq + 1 : NULL);
        if (why) {
            g_set_error(err, G_KEY_FILE_ERROR,
                        G_KEY_FILE_ERROR_INVALID_VALUE, "%s: %s", t, why);
            return FALSE;
        }
    }
    return TRUE;
}

char *smmulab_kparams_ignored(const char *append)
{
    g_autoptr(GPtrArray) toks = split_cmdline(append);
    const char *wait = NULL, *alloc = NULL;
    guint i;

    for (i = 0; i < toks->len; i++) {
        const char *t = g_ptr_array_index(toks, i);

        if (!strcmp(t, "--")) {
            break;
        }
        /* the last setting of a parameter is the one the kernel keeps */
        if (g_str_has_prefix(t, "arm_smmu_v3.cmdq_wait=")) {
            wait = t;
        } else if (g_str_has_prefix(t, "arm_smmu_v3.cmdq_alloc=")) {
            alloc = t + strlen("arm_smmu_v3.cmdq_alloc=");
        }
    }
    if (wait && alloc && !strcmp(alloc, "add")) {
        return g_strdup_printf("%s: ignored under arm_smmu_v3.cmdq_alloc=add "
                               "(add waits for its slots with a helper of "
                               "its own, docs/guest.md), though the "
                               "kernel's line would print it: drop one of "
                               "them", wait);
    }
    return NULL;
}

static int cmp_str(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *smmulab_kparams_canonical(const SmmulabKParams *kp, const char *append)
{
    g_autoptr(GPtrArray) toks = split_cmdline(append);
    g_autoptr(GHashTable) last = g_hash_table_new_full(g_str_hash,
                                                       g_str_equal, g_free,
                                                       g_free);
    g_autoptr(GPtrArray) out = g_ptr_array_new();
    GHashTableIter it;
    gpointer key, val;
    GString *s = g_string_new(NULL);
    guint i;

    for (i = 0; i < toks->len; i++) {
        const char *t = g_ptr_array_index(toks, i);
        const char *eq = strchr(t, '=');
        char *name = param_name(t);
        const SmmulabKParam *k = kp ? find_param(kp, name) : NULL;

        if (k && k->def && eq && !strcmp(eq + 1, k->def)) {
            /* the default written out: as if not set */
            g_hash_table_remove(last, name);
            g_free(name);
            continue;
        }
        g_hash_table_replace(last, name,
                             g_strdup_printf("%s%s", name, eq ? eq : ""));
    }
    g_hash_table_iter_init(&it, last);
    while (g_hash_table_iter_next(&it, &key, &val)) {
        g_ptr_array_add(out, val);
    }
    g_ptr_array_sort(out, cmp_str);
    for (i = 0; i < out->len; i++) {
        g_string_append_printf(s, "%s%s", i ? " " : "",
                               (char *)g_ptr_array_index(out, i));
    }
    return g_string_free(s, FALSE);
}

/* ---- what a boot said it ran ---- */

SmmulabRan *smmulab_ran_new(void)
{
    SmmulabRan *ran = g_new0(SmmulabRan, 1);

    ran->said = g_ptr_array_new_with_free_func(g_free);
    ran->refused = g_ptr_array_new_with_free_func(g_free);
    return ran;
}

void smmulab_ran_free(SmmulabRan *ran)
{
    if (!ran) {
        return;
    }
    g_free(ran->cmdline);
    g_ptr_array_unref(ran->said);
    g_ptr_array_unref(ran->refused);
    g_free(ran);
}

/* The message of a console line: after "[    0.123456] " */
static const char *message(const char *line)
{
    const char *p = line;

    while (*p == ' ') {
        p++;
    }
    if (*p == '[') {
        const char *q = strchr(p, ']');

        if (q) {
            p = q + 1;
            while (*p == ' ') {
                p++;
            }
        }
    }
    return p;
}

/* "key=value" with a value that does not end a clause ("add:") */
static gboolean is_setting(const char *tok)
{
    const char *eq = strchr(tok, '=');
    gsize n = strlen(tok);
    const char *c;

    if (!eq || eq == tok || !eq[1] || tok[n - 1] == ':' ||
        tok[n - 1] == ',') {
        return FALSE;
    }
    for (c = tok; c < eq; c++) {
        if (!g_ascii_isalnum(*c) && *c != '_') {
            return FALSE;
        }
    }
    return TRUE;
}

/*
 * The kit's lines that say what runs, one "family.key=value" each:
 * "arm-smmu-v3 DEV: cmdq_lock=fair cmdq_wait=full ..." (family
 * arm_smmu_v3) and "iommu: probe_lock=hashed buckets=64" (family iommu,
 * where a key after the first qualifies the first: probe_lock_buckets).
 * A value printed with a reason, "cmdq_alloc=cmpxchg (add requested:
 * ...)", keeps its reason.
 */
static void scan_said(SmmulabRan *ran, const char *msg)
{
    const char *family, *body;
    g_auto(GStrv) toks = NULL;
    g_autofree char *first = NULL;
    guint i;

    if (g_str_has_prefix(msg, "arm-smmu-v3 ") && (body = strstr(msg, ": "))) {
        family = "arm_smmu_v3";
        body += 2;
    } else if (g_str_has_prefix(msg, "iommu: ")) {
        family = "iommu";
        body = msg + strlen("iommu: ");
    } else {
        return;
    }
    toks = g_strsplit(body, " ", -1);
    if (!toks[0] || !is_setting(toks[0])) {
        return;
    }
    for (i = 0; toks[i] && is_setting(toks[i]); i++) {
        g_autofree char *key = g_strndup(toks[i],
                                         strchr(toks[i], '=') - toks[i]);
        const char *val = strchr(toks[i], '=') + 1;
        g_autofree char *rest = NULL;
        gboolean sub;

        if (!first) {
            first = g_strdup(key);
        }
        if (toks[i + 1] && toks[i + 1][0] == '(') {
            /* "(add requested: ...)" up to its ")" */
            GString *r = g_string_new(NULL);
            guint j;

            for (j = i + 1; toks[j]; j++) {
                g_string_append_printf(r, " %s", toks[j]);
                if (strchr(toks[j], ')')) {
                    break;
                }
            }
            rest = g_string_free(r, FALSE);
        }
        /* iommu's lines qualify the first setting: buckets of probe_lock */
        sub = !strcmp(family, "iommu") && strcmp(first, key);
        g_ptr_array_add(ran->said,
            g_strdup_printf("%s.%s%s%s=%s%s", family, sub ? first : "",
                            sub ? "_" : "", key, val, rest ? rest : ""));
        if (rest) {
            break;
        }
    }
}

void smmulab_ran_scan(SmmulabRan *ran, const char *line)
{
    const char *msg = message(line);
    const char *p;

    if (!ran->cmdline && (p = strstr(msg, "Kernel command line: "))) {
        ran->cmdline = g_strdup(p + strlen("Kernel command line: "));
        g_strchomp(ran->cmdline);
        return;
    }
    if (strstr(msg, " invalid for parameter ") ||
        strstr(msg, "Unknown kernel command line parameters") ||
        (g_str_has_prefix(msg, "iommu: iommu.") &&
         (strstr(msg, ": unknown, using") || strstr(msg, ": not a ")))) {
        if (ran->refused->len < 64) {
            g_ptr_array_add(ran->refused, g_strdup(msg));
        }
        return;
    }
    if (ran->said->len < 256) {
        scan_said(ran, msg);
    }
}

char *smmulab_ran_summary(const SmmulabRan *ran)
{
    g_autoptr(GPtrArray) seen = g_ptr_array_new();
    GString *s = g_string_new(NULL);
    guint i;

    /* once each: every SMMU instance prints its line */
    for (i = 0; i < ran->said->len; i++) {
        const char *x = g_ptr_array_index(ran->said, i);
        guint j;
        gboolean dup = FALSE;

        for (j = 0; j < seen->len && !dup; j++) {
            dup = !strcmp(g_ptr_array_index(seen, j), x);
        }
        if (!dup) {
            g_ptr_array_add(seen, (gpointer)x);
            g_string_append_printf(s, "%s%s", s->len ? "; " : "", x);
        }
    }
    return g_string_free(s, FALSE);
}

/* Whether refusal line @line names parameter @name */
static gboolean names_param(const char *line, const char *name)
{
    const char *p = line;
    gsize n = strlen(name);

    while ((p = strstr(p, name))) {
        char before = p == line ? ' ' : p[-1];
        char after = p[n];

        if ((before == ' ' || before == '`' || before == '"' ||
             before == '\'') &&
            (after == '\'' || after == '=' || after == '"' || after == ' ' ||
             after == '\0')) {
            return TRUE;
        }
        p += n;
    }
    return FALSE;
}

char *smmulab_kparams_verify(const SmmulabRan *ran, const char *append)
{
    g_autoptr(GPtrArray) toks = split_cmdline(append);
    g_autoptr(GPtrArray) running = split_cmdline(ran->cmdline);
    guint i, j;

    if (!ran->cmdline) {
        return g_strdup("the console has no \"Kernel command line:\" line "
                        "(a loglevel below 5, quiet?): what ran cannot be "
                        "checked");
    }
    for (i = 0; i < toks->len; i++) {
        const char *t = g_ptr_array_index(toks, i);
        const char *eq = strchr(t, '=');
        g_autofree char *name = param_name(t);
        gboolean in_cmdline = FALSE;

        if (!strcmp(t, "--")) {
            break;
        }
        for (j = 0; j < running->len && !in_cmdline; j++) {
            in_cmdline = !strcmp(g_ptr_array_index(running, j), t);
        }
        if (!in_cmdline) {
            return g_strdup_printf("%s: not in the kernel's command line", t);
        }
        for (j = 0; j < ran->refused->len; j++) {
            const char *l = g_ptr_array_index(ran->refused, j);

            if (names_param(l, name) || names_param(l, t)) {
                return g_strdup_printf("%s: refused by the kernel: %s", t, l);
            }
        }
        /* the last line printed for it (every SMMU prints its own) */
        for (j = 0; j < ran->said->len; j++) {
            const char *x = g_ptr_array_index(ran->said, j);
            g_autofree char *xn = param_name(x);

            if (!strcmp(xn, name)) {
                const char *v = strchr(x, '=') + 1;
                gsize vn = strcspn(v, " ");

                if (!eq || strlen(eq + 1) != vn || strncmp(eq + 1, v, vn)) {
                    return g_strdup_printf("%s: the kernel ran %s", t,
                                           strchr(x, '.') + 1);
                }
            }
        }
    }
    return NULL;
}

char *smmulab_ran_signature(const SmmulabRan *ran, const char *append)
{
    g_autoptr(GPtrArray) toks = split_cmdline(append);
    g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func(g_free);
    GString *s = g_string_new(NULL);
    guint i, j;

    for (i = 0; i < ran->said->len; i++) {
        const char *x = g_ptr_array_index(ran->said, i);

        g_ptr_array_add(items, g_strndup(x, strcspn(x, " ")));
    }
    for (i = 0; i < toks->len; i++) {
        const char *t = g_ptr_array_index(toks, i);
        g_autofree char *name = param_name(t);
        gboolean printed = FALSE;

        for (j = 0; j < ran->said->len && !printed; j++) {
            g_autofree char *xn = param_name(g_ptr_array_index(ran->said, j));

            printed = !strcmp(xn, name);
        }
        if (!printed) {
            g_ptr_array_add(items, g_strdup(t));
        }
    }
    g_ptr_array_sort(items, cmp_str);
    for (i = 0; i < items->len; i++) {
        const char *x = g_ptr_array_index(items, i);

        if (i && !strcmp(x, g_ptr_array_index(items, i - 1))) {
            continue;
        }
        g_string_append_printf(s, "%s%s", s->len ? " " : "", x);
    }
    return g_string_free(s, FALSE);
}
