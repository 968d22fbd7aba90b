/*
 * smmulab: where every CPU was at each soft lockup
 *
 * The console of a run holds, for each soft lockup, the stuck CPU's
 * backtrace and, with softlockup_all_cpu_backtrace=1, every other CPU's
 * ("NMI backtrace for cpu N").  The CMDQ's waits are inlined into
 * arm_smmu_cmdq_issue_cmdlist(), so a frame's "function+offset" names that
 * function whichever wait it is in.  The offsets are looked up (addr2line
 * -i) in the driver's object compiled again with DWARF, which
 * scripts/build-kernel.sh leaves beside the Image as arm-smmu-v3.debug.o
 * (or in a vmlinux with DWARF): the functions inlined at that address name
 * the place, the shared lock, queue space, its CMD_SYNC, ...
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SMMULAB_LOCKUP_H
#define SMMULAB_LOCKUP_H

#include <glib.h>
#include <json-glib/json-glib.h>

/* The places, in the order reports list them */
typedef enum SmmulabPlace {
    SMMULAB_PLACE_SHARED_LOCK,  /* arm_smmu_cmdq_shared_lock() */
    SMMULAB_PLACE_SPACE,        /* waiting for queue space */
    SMMULAB_PLACE_SYNC,         /* waiting for its CMD_SYNC */
    SMMULAB_PLACE_PUBLISH,      /* cmdq_alloc=add: for earlier publication */
    SMMULAB_PLACE_CMDQ_OTHER,   /* in the CMDQ insertion, none of those */
    SMMULAB_PLACE_CMDQ_UNRESOLVED, /* in it, no DWARF to say where */
    SMMULAB_PLACE_ELSEWHERE,
    SMMULAB_PLACE_IDLE,         /* "skipped: idling" */
    SMMULAB_PLACE_NONE,         /* asked for a backtrace, none came */
    SMMULAB_PLACE_COUNT
} SmmulabPlace;

extern const char *const smmulab_place_names[SMMULAB_PLACE_COUNT];

typedef struct SmmulabLockups SmmulabLockups;

SmmulabLockups *smmulab_lockups_new(void);
void smmulab_lockups_free(SmmulabLockups *lk);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmmulabLockups, smmulab_lockups_free)

/* One console line as printed (with its "[   t]" time, no newline) */
void smmulab_lockups_scan(SmmulabLockups *lk, const char *line);

/*
 * Look every recorded frame up in @dwarf (the driver's debug object or a
 * vmlinux with DWARF; NULL: none) and place every CPU.  A one-line note on
 * how the frames were resolved is kept.
 */
void smmulab_lockups_resolve(SmmulabLockups *lk, const char *dwarf);

guint smmulab_lockups_count(const SmmulabLockups *lk);

/*
 * As JSON (a run's "cpus_at_lockups"): "lockups", "all_cpus" (lockups
 * with every other CPU's backtrace), "resolved", "places" (CPUs per place,
 * summed over the lockups) and "snapshots" (the first few lockups, each
 * CPU's place and the function that decided it).
 */
void smmulab_lockups_to_json(const SmmulabLockups *lk, JsonBuilder *b);

/* Text of the places in @places (an object of counts): "shared lock 3, ..." */
char *smmulab_places_text(JsonObject *places);

/*
 * A run's "cpus_at_lockups" @o as text into @t: one line with the places
 * summed, then the first @snapshots lockups CPU by CPU, each line after
 * @indent
 */
void smmulab_lockups_text(JsonObject *o, GString *t, const char *indent,
                          guint snapshots);

#endif
