/*
 * smmulab: what a scenario asks of its kernels, checked before any boot
 * (see preflight.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "kparams.h"
#include "preflight.h"

typedef struct Planned {
    const SmmulabVariant *var;
    char *kernel, *initrd;      /* resolved paths */
    char *canon;                /* the parameters as the kernel runs them */
} Planned;

static char *resolved(const char *path)
{
    char *r = realpath(path, NULL);

    return r ? r : g_strdup(path);
}

gboolean smmulab_preflight(const SmmulabScenario *sc, const char *kernel,
                           const char *initrd, GString *notes, GError **err)
{
    g_autoptr(GHashTable) lists = g_hash_table_new_full(g_str_hash,
        g_str_equal, g_free, (GDestroyNotify)smmulab_kparams_free);
    g_autofree Planned *pl = g_new0(Planned, sc->variants->len);
    gboolean ok = FALSE;
    guint i, j;

    for (i = 0; i < sc->variants->len; i++) {
        const SmmulabVariant *var = g_ptr_array_index(sc->variants, i);
        g_autofree char *asked = smmulab_scenario_asked(sc, var->append);
        g_autofree char *ignored = NULL;
        const SmmulabKParams *kp;

        pl[i].var = var;
        pl[i].kernel = resolved(var->kernel ? var->kernel : kernel);
        pl[i].initrd = resolved(var->initrd ? var->initrd : initrd);
        if (!g_hash_table_contains(lists, pl[i].kernel)) {
            g_autofree char *path = smmulab_kparams_path(pl[i].kernel);
            g_autoptr(GError) lerr = NULL;
            SmmulabKParams *k = NULL;

            if (g_file_test(path, G_FILE_TEST_EXISTS)) {
                k = smmulab_kparams_load(path, &lerr);
                if (!k) {
                    g_propagate_error(err, g_steal_pointer(&lerr));
                    goto out;
                }
            }
            g_hash_table_insert(lists, g_strdup(pl[i].kernel), k);
        }
        kp = g_hash_table_lookup(lists, pl[i].kernel);
        ignored = smmulab_kparams_ignored(asked);
        if (ignored) {
            g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                        "%s: variant %s: %s", sc->file, var->name, ignored);
            goto out;
        }
        if (kp && !smmulab_kparams_check(kp, asked, err)) {
            g_prefix_error(err, "%s: variant %s: ", sc->file, var->name);
            goto out;
        }
        pl[i].canon = smmulab_kparams_canonical(kp, asked);
        if (notes) {
            g_string_append_printf(notes, "  variant %s: %s", var->name,
                                   pl[i].canon[0] ? pl[i].canon :
                                   "the kernel's defaults");
            if (!kp) {
                g_string_append_printf(notes, " (no %s.params: parameters "
                                       "checked at boot only)", pl[i].kernel);
            }
            g_string_append_c(notes, '\n');
        }
        for (j = 0; j < i; j++) {
            if (!strcmp(pl[i].kernel, pl[j].kernel) &&
                !strcmp(pl[i].initrd, pl[j].initrd) &&
                !strcmp(pl[i].canon, pl[j].canon)) {
                g_set_error(err, G_KEY_FILE_ERROR,
                            G_KEY_FILE_ERROR_INVALID_VALUE,
                            "%s: variants %s and %s boot identically "
                            "configured (one kernel, %s): an A/A; give them "
                            "different parameters or kernels", sc->file,
                            pl[j].var->name, var->name,
                            pl[i].canon[0] ? pl[i].canon :
                            "the kernel's defaults");
                goto out;
            }
        }
    }
    ok = TRUE;
out:
    for (i = 0; i < sc->variants->len; i++) {
        g_free(pl[i].kernel);
        g_free(pl[i].initrd);
        g_free(pl[i].canon);
    }
    return ok;
}
