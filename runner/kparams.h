/*
 * smmulab: the parameters a kernel knows, and whether a variant's kernel
 * command line asks for something it ran
 *
 * A kernel's parameters are read from its vmlinux when the kernel is built
 * (smmulab-kparams, called by scripts/build-kernel.sh) into a list beside
 * its Image, KERNEL.params: every module and core parameter (struct
 * kernel_param, its type from its ops, and for the kit's choices
 * (struct arm_smmu_choice) the values it accepts and its default), and
 * every __setup() and early_param() name; one whose setup function warns
 * "NAME=%s: unknown, using DEFAULT" (the kit's iommu.probe_lock and
 * iommu.alias_walk) is a choice of the words that function compares with.  The list comes from the built
 * kernel itself, so it follows the kit's patches and a tree of one's own.
 *
 * Before a boot it refuses a parameter the kernel does not know (a typo
 * the kernel would ignore silently: unknown "module.name" parameters are
 * dropped without a word) or a value a choice or number does not accept,
 * and two variants that would boot identically configured (an A/A).
 * After a boot, smmulab_kparams_verify() reads the console: each
 * parameter the scenario set must be in the kernel's command line, not
 * named by an "invalid for parameter" or "Unknown kernel command line
 * parameters" line, and, where the kit prints the value in force (the
 * arm-smmu-v3 variant line, "iommu: probe_lock=...", "iommu:
 * alias_walk=..."), printed with the value asked for.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_KPARAMS_H
#define SMMULAB_KPARAMS_H

#include <glib.h>

typedef struct SmmulabKParam {
    char *name;         /* "arm_smmu_v3.cmdq_lock", "watchdog_thresh" */
    char *type;         /* choice uint int ulong bool charp ... setup early */
    GStrv values;       /* a choice's values, or NULL */
    char *def;          /* the value in force when not set, or NULL */
} SmmulabKParam;

typedef struct SmmulabKParams {
    char *source;       /* the vmlinux or list it was read from */
    GPtrArray *params;  /* SmmulabKParam * */
    GHashTable *by_name;        /* parameq() name -> SmmulabKParam */
    GHashTable *prefixes;       /* "arm_smmu_v3", "iommu": dotted families */
} SmmulabKParams;

/* Every parameter of @vmlinux (an arm64 ELF), or NULL with @err */
SmmulabKParams *smmulab_kparams_from_vmlinux(const char *vmlinux,
                                             GError **err);
/*
 * @kp as a list, the format smmulab_kparams_load() reads: one parameter a
 * line, tab-separated: name, type, the value in force ("-" when not
 * known), a choice's values separated by '|' ("-" for others)
 */
char *smmulab_kparams_format(const SmmulabKParams *kp);
gboolean smmulab_kparams_save(const SmmulabKParams *kp, const char *path,
                              GError **err);
SmmulabKParams *smmulab_kparams_load(const char *path, GError **err);
void smmulab_kparams_free(SmmulabKParams *kp);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmmulabKParams, smmulab_kparams_free)

/* The list that belongs to kernel @image (IMAGE.params), or NULL */
char *smmulab_kparams_path(const char *image);

/*
 * Check each parameter of the command line @append against @kp: FALSE
 * with @err, one line naming the parameter and why, for one the kernel
 * does not know (in a family it knows, such as "arm_smmu_v3." or
 * "iommu.", or without a dot), or a value a choice, a number or a bool
 * refuses.  Parameters of the guest's init (smmulab.*) are not the
 * kernel's and pass.
 */
gboolean smmulab_kparams_check(const SmmulabKParams *kp, const char *append,
                               GError **err);

/*
 * Why a choice on the command line @append would be ignored, or NULL:
 * arm_smmu_v3.cmdq_wait= under arm_smmu_v3.cmdq_alloc=add, which waits for
 * its slots with its own helper whatever cmdq_wait says, while the
 * driver's probe line still prints cmdq_wait (the last setting of each
 * counts, as for the kernel).  Free with g_free().
 */
char *smmulab_kparams_ignored(const char *append);

/*
 * @append as the kernel will run it: its parameters sorted, the last of
 * each name kept, a choice's or number's default written out and dropped
 * (so "" and "arm_smmu_v3.cmdq_lock=fair" read the same).  Two variants
 * with the same kernel, initrd and canonical command line are an A/A.
 * @kp may be NULL (no list: only sorting and duplicates).
 */
char *smmulab_kparams_canonical(const SmmulabKParams *kp, const char *append);

/*
 * After a boot: the console lines that say what ran.  Collected by
 * smmulab_kparams_scan() from every console line, as they come.
 */
typedef struct SmmulabRan {
    char *cmdline;      /* "Kernel command line: ..." */
    GPtrArray *said;    /* "key=value" the kit printed, with its family */
    GPtrArray *refused; /* lines where the kernel refused a parameter */
} SmmulabRan;

SmmulabRan *smmulab_ran_new(void);
void smmulab_ran_free(SmmulabRan *ran);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmmulabRan, smmulab_ran_free)
void smmulab_ran_scan(SmmulabRan *ran, const char *line);
/* What the kit said it ran, "family.key=value ..." in console order */
char *smmulab_ran_summary(const SmmulabRan *ran);

/*
 * Whether each parameter of @append took the value asked for in the run
 * @ran describes: NULL when it did, or one line naming the first that did
 * not (not in the command line, refused by the kernel, or printed with
 * another value).  Parameters the kit does not print are checked only
 * against the command line and the kernel's refusals.
 */
char *smmulab_kparams_verify(const SmmulabRan *ran, const char *append);

/*
 * The configuration a run had: what the kit printed it ran and the
 * parameters of @append it does not print, sorted.  Two variants whose
 * runs have the same signature on the same kernel ran an A/A.
 */
char *smmulab_ran_signature(const SmmulabRan *ran, const char *append);

#endif
