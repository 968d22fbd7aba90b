/*
 * smmulab: workload topologies (configs/topologies.ini)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

static const char *const known_keys[] = {
    "description", "cpus", "cpu", "memory", "devices", "pfs", "per-pf",
    "needs-module", "append", NULL,
};

static gboolean parse_uint(const char *file, const char *group,
                           const char *key, const char *val, guint min,
                           guint max, guint *out, GError **err)
{
    guint64 v;

    if (!g_ascii_string_to_unsigned(val, 10, min, max, &v, NULL)) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [%s] %s=%s: not a number in %u..%u", file, group,
                    key, val, min, max);
        return FALSE;
    }
    *out = v;
    return TRUE;
}

static void add_specs(GPtrArray *out, const char *specs, guint i)
{
    g_auto(GStrv) parts = g_strsplit(specs, ";", -1);
    char num[16];
    int k;

    snprintf(num, sizeof(num), "%u", i);
    for (k = 0; parts[k]; k++) {
        g_auto(GStrv) pieces = NULL;
        char *spec = g_strstrip(parts[k]);

        if (!*spec) {
            continue;
        }
        pieces = g_strsplit(spec, "{i}", -1);
        g_ptr_array_add(out, g_strjoinv(num, pieces));
    }
}

SmmulabTopology *smmulab_topology_load(const char *file, const char *workload,
                                       char **overrides, GError **err)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(SmmulabTopology) t = g_new0(SmmulabTopology, 1);
    g_auto(GStrv) keys = NULL;
    g_autofree char *per_pf = NULL;
    g_autofree char *devices = NULL;
    g_autofree char *cpus = NULL, *pfs = NULL, *module = NULL;
    guint i;

    if (!g_key_file_load_from_file(kf, file, G_KEY_FILE_NONE, err)) {
        g_prefix_error(err, "%s: ", file);
        return NULL;
    }
    if (!g_key_file_has_group(kf, workload)) {
        g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
        g_autofree char *list = g_strjoinv(", ", groups);

        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND,
                    "%s: no workload [%s] (known: %s)", file, workload, list);
        return NULL;
    }
    for (i = 0; overrides && overrides[i]; i++) {
        const char *eq = strchr(overrides[i], '=');
        g_autofree char *key = NULL;

        if (!eq || eq == overrides[i]) {
            g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
                        "override '%s' is not KEY=VALUE", overrides[i]);
            return NULL;
        }
        key = g_strndup(overrides[i], eq - overrides[i]);
        g_key_file_set_value(kf, workload, key, eq + 1);
    }
    keys = g_key_file_get_keys(kf, workload, NULL, NULL);
    for (i = 0; keys && keys[i]; i++) {
        if (!g_strv_contains(known_keys, keys[i])) {
            g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                        "%s: [%s] unknown key '%s'", file, workload, keys[i]);
            return NULL;
        }
    }

    t->workload = g_strdup(workload);
    t->description = g_key_file_get_value(kf, workload, "description", NULL);
    t->memory = g_key_file_get_value(kf, workload, "memory", NULL);
    if (!t->memory) {
        t->memory = g_strdup("512M");
    }
    t->cpu = g_key_file_get_value(kf, workload, "cpu", NULL);
    if (!t->cpu) {
        t->cpu = g_strdup("cortex-a57");
    } else if (!*t->cpu || strspn(t->cpu, "abcdefghijklmnopqrstuvwxyz"
                                  "0123456789-_") != strlen(t->cpu)) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [%s] cpu=%s: not a CPU model name like max or "
                    "neoverse-n1", file, workload, t->cpu);
        return NULL;
    }
    cpus = g_key_file_get_value(kf, workload, "cpus", NULL);
    t->cpus = 2;
    if (cpus && !parse_uint(file, workload, "cpus", cpus, 1, 512, &t->cpus,
                            err)) {
        return NULL;
    }
    pfs = g_key_file_get_value(kf, workload, "pfs", NULL);
    if (pfs && !parse_uint(file, workload, "pfs", pfs, 0, 64, &t->pfs, err)) {
        return NULL;
    }
    module = g_key_file_get_value(kf, workload, "needs-module", NULL);
    if (module && strcmp(module, "true") && strcmp(module, "false")) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [%s] needs-module=%s: not true or false", file,
                    workload, module);
        return NULL;
    }
    t->needs_module = module && !strcmp(module, "true");
    t->append = g_key_file_get_value(kf, workload, "append", NULL);

    t->devices = g_ptr_array_new_with_free_func(g_free);
    devices = g_key_file_get_value(kf, workload, "devices", NULL);
    if (devices) {
        add_specs(t->devices, devices, 0);
    }
    per_pf = g_key_file_get_value(kf, workload, "per-pf", NULL);
    if (t->pfs && !per_pf) {
        g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                    "%s: [%s] pfs=%u needs a per-pf device list", file,
                    workload, t->pfs);
        return NULL;
    }
    for (i = 1; i <= t->pfs; i++) {
        add_specs(t->devices, per_pf, i);
    }
    return g_steal_pointer(&t);
}

void smmulab_topology_free(SmmulabTopology *t)
{
    if (!t) {
        return;
    }
    g_free(t->workload);
    g_free(t->description);
    g_free(t->memory);
    g_free(t->cpu);
    g_free(t->append);
    if (t->devices) {
        g_ptr_array_unref(t->devices);
    }
    g_free(t);
}

GPtrArray *smmulab_machine_args(const SmmulabTopology *t, int icount_shift,
                                guint64 quantum_ns, const char *quantum_yield,
                                guint64 line_ns)
{
    GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) targs = smmulab_topology_qemu_args(t);
    const char *fixed[] = { "-display", "none", "-monitor", "none", "-serial",
                            "stdio", "-net", "none", "-no-reboot" };
    guint i;

    g_ptr_array_add(a, g_strdup("-M"));
    g_ptr_array_add(a, g_strdup("virt,iommu=smmuv3,gic-version=3,"
                                "dtb-randomness=off"));
    g_ptr_array_add(a, g_strdup("-cpu"));
    g_ptr_array_add(a, g_strdup(t->cpu));
    for (i = 0; i < targs->len; i++) {
        g_ptr_array_add(a, g_strdup(g_ptr_array_index(targs, i)));
    }
    g_ptr_array_add(a, g_strdup("-accel"));
    if (icount_shift >= 0) {
        /* Deterministic: one thread, time from instruction counts */
        g_ptr_array_add(a, g_strdup("tcg,thread=single"));
        g_ptr_array_add(a, g_strdup("-icount"));
        if (quantum_ns) {
            GString *o = g_string_new(NULL);

            g_string_printf(o, "shift=%d,sleep=off,quantum=%" G_GUINT64_FORMAT,
                            icount_shift, quantum_ns);
            if (quantum_yield) {
                g_string_append_printf(o, ",quantum-yield=%s", quantum_yield);
            }
            if (line_ns) {
                g_string_append_printf(o, ",line-ns=%" G_GUINT64_FORMAT,
                                       line_ns);
            }
            g_ptr_array_add(a, g_string_free(o, FALSE));
        } else {
            g_ptr_array_add(a, g_strdup_printf("shift=%d,sleep=off",
                                               icount_shift));
        }
        g_ptr_array_add(a, g_strdup("-rtc"));
        g_ptr_array_add(a, g_strdup("clock=vm,base=2026-01-01"));
    } else {
        g_ptr_array_add(a, g_strdup("tcg,thread=multi"));
    }
    for (i = 0; i < G_N_ELEMENTS(fixed); i++) {
        g_ptr_array_add(a, g_strdup(fixed[i]));
    }
    return a;
}

GPtrArray *smmulab_topology_qemu_args(const SmmulabTopology *t)
{
    GPtrArray *args = g_ptr_array_new_with_free_func(g_free);
    guint i;

    g_ptr_array_add(args, g_strdup("-smp"));
    g_ptr_array_add(args, g_strdup_printf("%u", t->cpus));
    g_ptr_array_add(args, g_strdup("-m"));
    g_ptr_array_add(args, g_strdup(t->memory));
    for (i = 0; i < t->devices->len; i++) {
        g_ptr_array_add(args, g_strdup("-device"));
        g_ptr_array_add(args, g_strdup(g_ptr_array_index(t->devices, i)));
    }
    return args;
}
