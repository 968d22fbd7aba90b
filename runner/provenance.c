/*
 * smmulab: what produced a result — the QEMU, the kernel, the patch series,
 * the smmulab commit, the host and the runner's command line
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "provenance.h"

/* First line of `argv...` on stdout, or NULL */
static char *first_line_of(const char *const *argv)
{
    g_autofree char *out = NULL;
    int status;

    if (!g_spawn_sync(NULL, (char **)argv, NULL,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                      NULL, NULL, &out, NULL, &status, NULL) ||
        !g_spawn_check_wait_status(status, NULL) || !out) {
        return NULL;
    }
    out[strcspn(out, "\n")] = '\0';
    return *out ? g_strdup(out) : NULL;
}

static gint cmp_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* SHA-256 of the files matching @suffix in @dir, in name order */
static char *hash_dir(const char *dir, const char *suffix)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
    const char *n;
    guint i;

    if (!d) {
        return NULL;
    }
    while ((n = g_dir_read_name(d))) {
        if (g_str_has_suffix(n, suffix)) {
            g_ptr_array_add(names, g_strdup(n));
        }
    }
    if (!names->len) {
        return NULL;
    }
    g_ptr_array_sort(names, cmp_names);
    for (i = 0; i < names->len; i++) {
        g_autofree char *path = g_build_filename(dir,
                                                 (char *)names->pdata[i],
                                                 NULL);
        g_autofree char *text = NULL;
        gsize len;

        if (!g_file_get_contents(path, &text, &len, NULL)) {
            return NULL;
        }
        g_checksum_update(sum, (const guchar *)names->pdata[i],
                          strlen(names->pdata[i]));
        g_checksum_update(sum, (const guchar *)text, len);
    }
    return g_strdup(g_checksum_get_string(sum));
}

static char *hash_file(const char *path)
{
    g_autofree char *text = NULL;
    gsize len;

    if (!g_file_get_contents(path, &text, &len, NULL)) {
        return NULL;
    }
    return g_compute_checksum_for_data(G_CHECKSUM_SHA256,
                                       (const guchar *)text, len);
}

static char *cpu_model(void)
{
    g_autofree char *info = NULL;
    g_auto(GStrv) lines = NULL;
    guint i;

    if (!g_file_get_contents("/proc/cpuinfo", &info, NULL, NULL)) {
        return NULL;
    }
    lines = g_strsplit(info, "\n", -1);
    for (i = 0; lines[i]; i++) {
        if (g_str_has_prefix(lines[i], "model name")) {
            const char *colon = strchr(lines[i], ':');

            return colon ? g_strstrip(g_strdup(colon + 1)) : NULL;
        }
    }
    return NULL;
}

static void member(JsonBuilder *b, const char *name, const char *value)
{
    json_builder_set_member_name(b, name);
    if (value) {
        json_builder_add_string_value(b, value);
    } else {
        json_builder_add_null_value(b);
    }
}

JsonNode *smmulab_provenance(const char *qemu, const char *kernel,
                             const char *build, int argc, char **argv)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    const char *src = SMMULAB_SOURCE_ROOT;
    const char *qv[] = { qemu, "--version", NULL };
    const char *git[] = { "git", "-C", src, "describe", "--always",
                          "--dirty", "--abbrev=12", NULL };
    g_autofree char *qemu_version = first_line_of(qv);
    g_autofree char *commit = first_line_of(git);
    g_autofree char *pq = g_build_filename(src, "patches", "qemu", NULL);
    g_autofree char *pl = g_build_filename(src, "patches", "linux", NULL);
    g_autofree char *hq = hash_dir(pq, ".patch");
    g_autofree char *hl = hash_dir(pl, ".patch");
    g_autofree char *cfg = g_build_filename(build, "linux", "obj", ".config",
                                            NULL);
    g_autofree char *default_kernel = g_build_filename(build, "guest",
                                                       "Image", NULL);
    /* The kit's config only describes the kit's kernel */
    g_autofree char *hc = !g_strcmp0(kernel, default_kernel) ?
                          hash_file(cfg) : NULL;
    g_autofree char *hk = hash_file(kernel);
    g_autofree char *cpu = cpu_model();
    g_autofree char *cmdline = NULL;
    GString *cl = g_string_new(NULL);
    int i;

    for (i = 0; i < argc; i++) {
        const char *a = argv[i];
        gboolean plain = *a && strspn(a, "abcdefghijklmnopqrstuvwxyz"
                                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_./=:,+-@%") == strlen(a);
        g_autofree char *q = plain ? g_strdup(a) : g_shell_quote(a);

        g_string_append_printf(cl, "%s%s", i ? " " : "", q);
    }
    cmdline = g_string_free(cl, FALSE);

    json_builder_begin_object(b);
    member(b, "smmulab", commit);
    member(b, "runner_version", SMMULAB_VERSION);
    member(b, "runner_cmdline", cmdline);
    member(b, "qemu", qemu_version);
    member(b, "qemu_patches_sha256", hq);
    member(b, "linux_patches_sha256", hl);
    member(b, "kernel_image_sha256", hk);
    member(b, "kernel_config_sha256", hc);
    member(b, "host_cpu", cpu);
    json_builder_set_member_name(b, "host_cores");
    json_builder_add_int_value(b, g_get_num_processors());
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

void smmulab_provenance_add_kernel(JsonNode *prov, const char *variant,
                                   const char *kernel)
{
    JsonObject *p = json_node_get_object(prov);
    JsonObject *own;
    g_autofree char *h = hash_file(kernel);

    if (!json_object_has_member(p, "variant_kernels_sha256")) {
        json_object_set_object_member(p, "variant_kernels_sha256",
                                      json_object_new());
    }
    own = json_object_get_object_member(p, "variant_kernels_sha256");
    if (h) {
        json_object_set_string_member(own, variant, h);
    } else {
        json_object_set_null_member(own, variant);
    }
}
