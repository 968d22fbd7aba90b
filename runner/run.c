/*
 * smmulab: one boot of a scenario run, watched from the console and QMP
 *
 * QEMU runs with -no-shutdown, so that when the guest powers off (or
 * panics, with -no-reboot) the machine stops but stays: the model's
 * counters are read over QMP, then QEMU is told to quit.  The console is
 * read through a pipe, kept in the run's log up to a cap, and scanned for
 * RESULT lines, soft lockups, CMDQ/CMD_SYNC timeouts and panics.  A hard
 * timeout ends a guest that never finishes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib-unix.h>

#include "lines.h"
#include "qmp.h"
#include "run.h"
#include "trace.h"
#include "topology.h"

volatile sig_atomic_t smmulab_run_interrupted;

/* In the child before exec: QEMU dies with the runner, however it ends */
static void child_setup(gpointer data G_GNUC_UNUSED)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
}

void smmulab_run_free(SmmulabRun *r)
{
    if (!r) {
        return;
    }
    g_free(r->verdict);
    g_free(r->detail);
    g_free(r->first_lockup);
    g_free(r->first_lockup_fn);
    g_free(r->kernel_version);
    g_array_unref(r->lockup_cpus);
    g_array_unref(r->samples);
    g_array_unref(r->events);
    smmulab_lockups_free(r->lockups);
    smmulab_ran_free(r->ran);
    g_ptr_array_unref(r->results);
    if (r->stats) {
        json_node_unref(r->stats);
    }
    g_free(r->lines_text);
    if (r->lines) {
        json_node_unref(r->lines);
    }
    g_free(r);
}

const char *smmulab_result_get(GPtrArray *results, const char *with,
                               const char *key, char *buf, gsize len)
{
    g_autofree char *needle = g_strdup_printf(" %s=", key);
    guint i;

    for (i = 0; i < results->len; i++) {
        g_autofree char *line = g_strconcat(" ", g_ptr_array_index(results, i),
                                            NULL);
        const char *p = strstr(line, needle);
        gsize n;

        if (!p || (with && !strstr(line, with))) {
            continue;
        }
        p += strlen(needle);
        n = strcspn(p, " ");
        if (n >= len) {
            n = len - 1;
        }
        memcpy(buf, p, n);
        buf[n] = '\0';
        return buf;
    }
    return NULL;
}

GPtrArray *smmulab_run_argv(const SmmulabRunSpec *spec, const char *qmp_sock,
                            GError **err)
{
    const SmmulabScenario *sc = spec->sc;
    g_autoptr(GPtrArray) over = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(SmmulabTopology) topo = NULL;
    g_autoptr(GPtrArray) targs = NULL;
    g_autoptr(GString) append = g_string_new(NULL);
    GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
    guint i;

    if (sc->cpus) {
        g_ptr_array_add(over, g_strdup_printf("cpus=%u", sc->cpus));
    }
    if (sc->memory) {
        g_ptr_array_add(over, g_strdup_printf("memory=%s", sc->memory));
    }
    if (sc->cpu) {
        g_ptr_array_add(over, g_strdup_printf("cpu=%s", sc->cpu));
    }
    for (i = 0; i < sc->topology->len; i++) {
        g_ptr_array_add(over, g_strdup(g_ptr_array_index(sc->topology, i)));
    }
    g_ptr_array_add(over, NULL);
    topo = smmulab_topology_load(spec->topologies, sc->workload,
                                 (char **)over->pdata, err);
    if (!topo) {
        g_ptr_array_unref(argv);
        return NULL;
    }
    /* The machine, as scripts/boot.sh has it too */
    targs = smmulab_machine_args(topo, sc->icount ? (int)sc->icount_shift : -1,
                                 sc->icount ? sc->quantum_ns : 0,
                                 sc->quantum_yield,
                                 sc->icount && sc->quantum_ns ? sc->line_ns :
                                 0);

    g_ptr_array_add(argv, g_strdup(spec->qemu));
    for (i = 0; i < targs->len; i++) {
        g_ptr_array_add(argv, g_strdup(g_ptr_array_index(targs, i)));
    }
    /* The guest's power-off stops QEMU: the counters are read, then quit */
    g_ptr_array_add(argv, g_strdup("-no-shutdown"));
    if (qmp_sock) {
        g_ptr_array_add(argv, g_strdup("-qmp"));
        /* "@NAME": an abstract socket, which no kill leaves behind */
        g_ptr_array_add(argv, qmp_sock[0] == '@' ?
            g_strdup_printf("unix:%s,server=on,wait=off,abstract=on",
                            qmp_sock + 1) :
            g_strdup_printf("unix:%s,server=on,wait=off", qmp_sock));
    }
    if (spec->trace_path) {
        g_ptr_array_add(argv, g_strdup("-trace"));
        g_ptr_array_add(argv, g_strdup("enable=" SMMULAB_TRACE_EVENTS));
        g_ptr_array_add(argv, g_strdup("-D"));
        g_ptr_array_add(argv, g_strdup(spec->trace_path));
    }
    g_ptr_array_add(argv, g_strdup("-kernel"));
    g_ptr_array_add(argv, g_strdup(spec->kernel));
    g_ptr_array_add(argv, g_strdup("-initrd"));
    g_ptr_array_add(argv, g_strdup(spec->initrd));

    g_string_append_printf(append, SMMULAB_GUEST_CMDLINE
                           " smmulab.workload=%s", sc->workload);
    if (topo->append) {
        g_string_append_printf(append, " %s", topo->append);
    }
    for (i = 0; i < sc->params->len; i++) {
        g_string_append_printf(append, " %s",
                               (char *)g_ptr_array_index(sc->params, i));
    }
    if (sc->watchdog_thresh >= 0) {
        g_string_append_printf(append, " smmulab.watchdog_thresh=%d",
                               sc->watchdog_thresh);
    }
    if (sc->all_cpu_backtrace) {
        /*
         * The backtrace IPI as a pseudo-NMI, so that CPUs waiting with
         * interrupts off answer where they wait (CONFIG_ARM64_PSEUDO_NMI)
         */
        g_string_append(append, " softlockup_all_cpu_backtrace=1"
                        " irqchip.gicv3_pseudo_nmi=1");
    }
    if (sc->append) {
        g_string_append_printf(append, " %s", sc->append);
    }
    if (spec->variant_append && *spec->variant_append) {
        g_string_append_printf(append, " %s", spec->variant_append);
    }
    if (spec->seed) {
        g_string_append_printf(append, " smmulab.seed=%" G_GUINT64_FORMAT,
                               spec->seed);
    }
    g_ptr_array_add(argv, g_strdup("-append"));
    g_ptr_array_add(argv, g_string_free(g_steal_pointer(&append), FALSE));
    if (!spec->control) {
        gboolean own_seed = FALSE;

        for (i = 0; i < sc->smmu->len; i++) {
            const char *prop = g_ptr_array_index(sc->smmu, i);

            own_seed |= g_str_has_prefix(prop, "cmdq-seed=");
            g_ptr_array_add(argv, g_strdup("-global"));
            g_ptr_array_add(argv, g_strdup_printf("arm-smmuv3.%s", prop));
        }
        /* The model's jitter draws from the run's seed unless set */
        if (spec->seed && !own_seed) {
            g_ptr_array_add(argv, g_strdup("-global"));
            g_ptr_array_add(argv, g_strdup_printf(
                "arm-smmuv3.cmdq-seed=%" G_GUINT64_FORMAT, spec->seed));
        }
    }
    g_ptr_array_add(argv, NULL);
    return argv;
}

SmmulabRun *smmulab_run_new(void)
{
    SmmulabRun *r = g_new0(SmmulabRun, 1);

    r->results = g_ptr_array_new_with_free_func(g_free);
    r->lockup_cpus = g_array_new(FALSE, TRUE, sizeof(guint));
    r->samples = g_array_new(FALSE, TRUE, sizeof(SmmulabSample));
    r->events = g_array_new(FALSE, TRUE, sizeof(SmmulabEvent));
    r->lockups = smmulab_lockups_new();
    r->ran = smmulab_ran_new();
    return r;
}

/* @line without a leading "[   12.345678] " */
static const char *untimed(const char *line)
{
    const char *p = line;

    if (*p == '[') {
        p = strchr(p, ']');
        if (!p) {
            return line;
        }
        p++;
        while (*p == ' ') {
            p++;
        }
        return p;
    }
    return line;
}

static void note_event(SmmulabRun *r, const char *kind)
{
    SmmulabEvent e = { r->clock_s, kind };

    if (r->events->len < SMMULAB_RUN_MAX_EVENTS) {
        g_array_append_val(r->events, e);
    }
}

void smmulab_run_scan_console(SmmulabRun *r, const char *line)
{
    const char *p;

    if (!r->kernel_version && (p = strstr(line, "Linux version "))) {
        p += strlen("Linux version ");
        r->kernel_version = g_strndup(p, strcspn(p, " "));
    }
    smmulab_lockups_scan(r->lockups, line);
    smmulab_ran_scan(r->ran, line);
    if ((p = strstr(line, "BUG: soft lockup"))) {
        const char *cpu = strstr(p, "CPU#");

        r->soft_lockups++;
        note_event(r, "soft lockup");
        if (cpu) {
            guint64 c = g_ascii_strtoull(cpu + 4, NULL, 10);

            if (c < 4096) {
                if (c >= r->lockup_cpus->len) {
                    g_array_set_size(r->lockup_cpus, c + 1);
                }
                g_array_index(r->lockup_cpus, guint, c)++;
            }
        }
        if (!r->first_lockup) {
            r->first_lockup = g_strdup(untimed(line));
        }
    } else if (r->first_lockup && !r->first_lockup_fn &&
               (p = strstr(line, "pc : "))) {
        /* "pc : arm_smmu_cmdq_issue_cmdlist+0x2a4/0x6c8" */
        r->first_lockup_fn = g_strndup(p + 5, strcspn(p + 5, "+ \r\n"));
    }
    /*
     * Every space wait's timeout: "CMDQ timeout" (6.12, full, space-kit,
     * add), "CMDQ timed out, cons: ..." (cmdq_wait=v3 as posted).  The
     * kit's cmdq_timeouts counter counts the same events; add's waits for
     * publication say "CMDQ publication ..." and are counted apart.
     */
    if (strstr(line, "CMDQ timeout") || strstr(line, "CMDQ timed out")) {
        r->cmdq_timeouts_printed++;
        note_event(r, "CMDQ timeout");
    }
    if (strstr(line, "CMD_SYNC timeout")) {
        r->cmd_sync_timeouts_printed++;
        note_event(r, "CMD_SYNC timeout");
    }
    /* "arm_smmu_cmdq_issue_cmdlist: 5 callbacks suppressed" */
    if ((p = strstr(line, " callbacks suppressed")) &&
        strstr(line, "arm_smmu_")) {
        const char *q = p;

        while (q > line && g_ascii_isdigit(q[-1])) {
            q--;
        }
        r->suppressed += g_ascii_strtoull(q, NULL, 10);
    }
    r->cmdq_timeouts = r->cmdq_timeouts_printed;
    r->cmd_sync_timeouts = r->cmd_sync_timeouts_printed;
}

void smmulab_run_verify_params(SmmulabRun *r, const char *append)
{
    g_autofree char *bad = NULL;

    /* a run that failed before the kernel said anything keeps its verdict */
    if (!strcmp(r->verdict, "interrupted") ||
        (!r->ran->cmdline && strcmp(r->verdict, "ok"))) {
        return;
    }
    bad = smmulab_kparams_verify(r->ran, append);
    if (bad) {
        g_free(r->verdict);
        g_free(r->detail);
        r->verdict = g_strdup("misconfigured");
        r->detail = g_steal_pointer(&bad);
    }
}

void smmulab_run_settle_counts(SmmulabRun *r)
{
    char a[32], b[32];
    const char *cq = smmulab_result_get(r->results, "kernel-counters ",
                                        "cmdq_timeouts", a, sizeof(a));
    const char *cs = smmulab_result_get(r->results, "kernel-counters ",
                                        "cmd_sync_timeouts", b, sizeof(b));

    r->cmdq_timeouts = r->cmdq_timeouts_printed;
    r->cmd_sync_timeouts = r->cmd_sync_timeouts_printed;
    r->timeouts_exact = FALSE;
    if (cq && cs) {
        /* The kernel counts every one, printed or suppressed */
        r->cmdq_timeouts = MAX(r->cmdq_timeouts,
                               (guint)g_ascii_strtoull(cq, NULL, 10));
        r->cmd_sync_timeouts = MAX(r->cmd_sync_timeouts,
                                   (guint)g_ascii_strtoull(cs, NULL, 10));
        r->timeouts_exact = TRUE;
    }
}

typedef struct Watch {
    SmmulabRun *r;
    GString *partial;
    gboolean panic, status_seen;
    char *panic_line, *error_line;
    int log_fd;
    guint64 cap;
} Watch;

static void scan_line(Watch *w, char *line)
{
    SmmulabRun *r = w->r;
    gsize n = strlen(line);

    while (n && (line[n - 1] == '\r' || line[n - 1] == '\n')) {
        line[--n] = '\0';
    }
    if (g_str_has_prefix(line, "RESULT ")) {
        g_ptr_array_add(r->results, g_strdup(line + 7));
        if (g_str_has_prefix(line, "RESULT status=")) {
            w->status_seen = TRUE;
        }
        return;
    }
    smmulab_run_scan_console(r, line);
    if (strstr(line, "Kernel panic") && !w->panic) {
        w->panic = TRUE;
        w->panic_line = g_strdup(line);
    }
    if ((g_str_has_prefix(line, "SMMULAB: error:") ||
         g_str_has_prefix(line, "SMMULAB: skipped:") ||
         strstr(line, "qemu-system-aarch64:")) && !w->error_line) {
        w->error_line = g_strdup(line);
    }
}

static void consume(Watch *w, const char *buf, gsize n)
{
    gsize i, start = 0;

    if (w->r->console_bytes < w->cap) {
        gsize keep = MIN(n, w->cap - w->r->console_bytes);

        if (write(w->log_fd, buf, keep) < 0) {
            /* the log is best effort; the scan goes on */
        }
    } else if (!w->r->flood) {
        w->r->flood = TRUE;
    }
    w->r->console_bytes += n;
    for (i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            g_string_append_len(w->partial, buf + start, i - start);
            scan_line(w, w->partial->str);
            g_string_truncate(w->partial, 0);
            start = i + 1;
        }
    }
    g_string_append_len(w->partial, buf + start, n - start);
    /* a line that never ends is still scanned, in pieces */
    if (w->partial->len > 65536) {
        scan_line(w, w->partial->str);
        g_string_truncate(w->partial, 0);
    }
}

static void progress(const SmmulabRunSpec *spec, const SmmulabRun *r,
                     double t, JsonNode *stats, gboolean final)
{
    static gboolean tty = -1;
    static double last_line = -1;
    g_autoptr(GString) s = g_string_new(NULL);

    if (tty == (gboolean)-1) {
        tty = isatty(2);
    }
    /* Not on a terminal: a line every 10 s, and the final one */
    if (!tty && !final && last_line >= 0 && t - last_line < 10 && t >= last_line) {
        return;
    }
    g_string_append_printf(s, "%s  %5.1fs", spec->label, t);
    if (stats && JSON_NODE_HOLDS_OBJECT(stats)) {
        JsonObject *o = json_node_get_object(stats);

        g_string_append_printf(s, "  retired=%" G_GINT64_FORMAT
                               " full=%" G_GINT64_FORMAT
                               " pending=%" G_GINT64_FORMAT,
                               json_object_get_int_member_with_default(o, "retired", 0),
                               json_object_get_int_member_with_default(o, "full", 0),
                               json_object_get_int_member_with_default(o, "pending", 0));
    }
    if (r->soft_lockups || r->cmdq_timeouts || r->cmd_sync_timeouts) {
        g_string_append_printf(s, "  lockups=%u cmdq-timeouts=%u "
                               "sync-timeouts=%u", r->soft_lockups,
                               r->cmdq_timeouts, r->cmd_sync_timeouts);
    }
    if (final) {
        /* an interrupted boot is not done: resume runs it again */
        g_string_append(s, r->verdict && !strcmp(r->verdict, "interrupted") ?
                        "  interrupted (smmulab-run resume DIR runs it "
                        "again)" : "  done");
    }
    if (tty) {
        fprintf(stderr, "\r%-110s%s", s->str, final ? "\n" : "");
    } else if (final || t >= 10) {
        fprintf(stderr, "%s\n", s->str);
    }
    last_line = final ? -1 : t;
}

/*
 * Start QEMU for @spec, its console into a pipe: the command line is kept
 * in spec->cmdline_path, the log opened.  FALSE with @err if it cannot be.
 */
static gboolean start_qemu(const SmmulabRunSpec *spec, const char *sock,
                           Watch *w, GPid *pid, int *console_fd, GError **err)
{
    g_autoptr(GPtrArray) argv = NULL;
    g_autoptr(GString) cmdline = g_string_new(NULL);
    int pipefd[2];
    guint i;

    argv = smmulab_run_argv(spec, sock, err);
    if (!argv) {
        return FALSE;
    }
    for (i = 0; g_ptr_array_index(argv, i); i++) {
        g_autofree char *q = g_shell_quote(g_ptr_array_index(argv, i));

        g_string_append_printf(cmdline, "%s%s", i ? " " : "", q);
    }
    g_string_append_c(cmdline, '\n');
    if (!g_file_set_contents(spec->cmdline_path, cmdline->str, -1, err)) {
        return FALSE;
    }
    w->log_fd = open(spec->log_path,
                     O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->log_fd < 0) {
        g_set_error(err, G_IO_ERROR, g_io_error_from_errno(errno),
                    "cannot create %s: %s", spec->log_path, g_strerror(errno));
        return FALSE;
    }
    if (!g_unix_open_pipe(pipefd, FD_CLOEXEC, err)) {
        close(w->log_fd);
        return FALSE;
    }
    if (!g_spawn_async_with_pipes_and_fds(NULL,
            (const char * const *)argv->pdata, NULL,
            G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDIN_FROM_DEV_NULL,
            child_setup, NULL, -1, pipefd[1], pipefd[1], NULL, NULL, 0, pid,
            NULL, NULL, NULL, err)) {
        close(pipefd[0]);
        close(pipefd[1]);
        close(w->log_fd);
        g_prefix_error(err, "cannot start %s: ", spec->qemu);
        return FALSE;
    }
    close(pipefd[1]);
    *console_fd = pipefd[0];
    return TRUE;
}

/* What became of the run, from how it ended */
static void set_verdict(SmmulabRun *r, const SmmulabRunSpec *spec,
                        const Watch *w, gboolean interrupted,
                        gboolean timed_out, int status)
{
    if (interrupted) {
        r->verdict = g_strdup("interrupted");
        r->detail = g_strdup("the runner was interrupted (signal)");
    } else if (timed_out) {
        r->verdict = g_strdup("timeout");
        r->detail = g_strdup_printf("no end after %us", spec->sc->timeout_s);
    } else if (w->panic) {
        r->verdict = g_strdup("panic");
        r->detail = g_strdup(w->panic_line);
    } else if (w->status_seen) {
        char v[32];
        const char *st = smmulab_result_get(r->results, NULL, "status", v,
                                            sizeof(v));

        r->verdict = g_strdup(st ? st : "no-result");
        if (w->error_line && strcmp(r->verdict, "ok")) {
            r->detail = g_strdup(w->error_line);
        }
    } else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        r->verdict = g_strdup("qemu-failed");
        r->detail = w->error_line ? g_strdup(w->error_line) :
            g_strdup_printf("QEMU ended with status 0x%x before a result",
                            status);
    } else {
        r->verdict = g_strdup("no-result");
        r->detail = g_strdup("the guest stopped without a status line");
    }
}

/* One boot being watched: QEMU, its console and its monitor */
typedef struct Boot {
    const SmmulabRunSpec *spec;
    SmmulabRun *r;
    Watch w;
    char *sock;                 /* QMP's socket */
    SmmulabQmp *qmp;
    char *smmu_path;            /* the SMMU's QOM path, once found */
    GPid pid;
    int console_fd;
    gint64 start, last_poll, deadline, quit_at, status_at;
    gboolean eof, timed_out, stopped, qmp_dead, interrupted;
    int status;
} Boot;

/* Read what the console has (200 ms at most): EOF when QEMU closed it */
static void read_console(Boot *bt)
{
    struct pollfd pfd = { .fd = bt->console_fd, .events = POLLIN };
    char buf[65536];

    if (poll(&pfd, 1, 200) > 0) {
        ssize_t n = read(bt->console_fd, buf, sizeof(buf));

        if (n > 0) {
            bt->r->clock_s = (g_get_monotonic_time() - bt->start) / 1e6;
            consume(&bt->w, buf, n);
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            bt->eof = TRUE;
        }
    }
}

/*
 * End QEMU when the runner is told to stop, or when the guest printed its
 * status but QEMU does not stop
 */
static void end_when_done(Boot *bt, gint64 now)
{
    if (smmulab_run_interrupted && !bt->interrupted) {
        /* The runner was told to stop: so does this QEMU, now */
        bt->interrupted = TRUE;
        kill(bt->pid, SIGKILL);
        bt->quit_at = now;
    }
    if (bt->w.status_seen && !bt->status_at) {
        bt->status_at = now;
    }
    /*
     * A guest that printed its status is done: if QMP does not say the
     * machine stopped within 10 s (no QMP, or a monitor that does not
     * answer), end QEMU anyway.  That is not a timeout.
     */
    if (bt->status_at && !bt->stopped && !bt->quit_at &&
        now - bt->status_at > 10 * G_USEC_PER_SEC) {
        kill(bt->pid, SIGTERM);
        bt->quit_at = now;
    }
}

/* The model's counters just read replace the run's */
static void keep_stats(SmmulabRun *r, JsonNode *st)
{
    if (r->stats) {
        json_node_unref(r->stats);
    }
    r->stats = st;
}

/* Counters @st read at @t seconds: kept, and sampled for the timeline */
static void sample_stats(SmmulabRun *r, JsonNode *st, double t)
{
    keep_stats(r, st);
    if (JSON_NODE_HOLDS_OBJECT(st)) {
        JsonObject *o = json_node_get_object(st);
        SmmulabSample smp = {
            t,
            json_object_get_int_member_with_default(o, "retired", 0),
            json_object_get_int_member_with_default(o, "full", 0),
            json_object_get_int_member_with_default(o, "pending", 0),
            json_object_get_int_member_with_default(o, "cons-reads-busy", 0),
        };

        g_array_append_val(r->samples, smp);
    }
}

/*
 * The monitor: connected to in the first 20 s, its counters read every
 * second until the machine stops.  FALSE when the monitor just stopped
 * answering (the runner goes on without it).
 */
static gboolean poll_monitor(Boot *bt, gint64 now)
{
    g_autoptr(GError) qerr = NULL;
    JsonNode *st;

    if (!bt->qmp && !bt->qmp_dead && !bt->stopped &&
        now - bt->start < 20 * G_USEC_PER_SEC) {
        bt->qmp = smmulab_qmp_connect(bt->sock, 0, NULL);
        if (bt->qmp) {
            bt->smmu_path = smmulab_qmp_find_smmu(bt->qmp, NULL);
        }
    }
    if (!bt->qmp || !bt->smmu_path || bt->stopped ||
        now - bt->last_poll < G_USEC_PER_SEC) {
        return TRUE;
    }
    st = smmulab_qmp_cmdq_stats(bt->qmp, bt->smmu_path, &qerr);
    bt->last_poll = now;
    if (st) {
        sample_stats(bt->r, st, (now - bt->start) / 1e6);
    } else if (g_error_matches(qerr, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) ||
               g_error_matches(qerr, G_IO_ERROR, G_IO_ERROR_CLOSED)) {
        /* The monitor stopped answering: go on without it */
        smmulab_qmp_close(bt->qmp);
        bt->qmp = NULL;
        bt->qmp_dead = TRUE;
        return FALSE;
    }
    progress(bt->spec, bt->r, (now - bt->start) / 1e6, bt->r->stats, FALSE);
    if (smmulab_qmp_event_seen(bt->qmp, "SHUTDOWN") ||
        smmulab_qmp_event_seen(bt->qmp, "STOP")) {
        /* The guest is done: the counters just read are final */
        bt->stopped = TRUE;
    }
    return TRUE;
}

/*
 * Tell QEMU to quit once the machine stopped, end it at the hard timeout,
 * and kill it if it does not go 5 s after either
 */
static void quit_qemu(Boot *bt, gint64 now)
{
    if (bt->stopped && !bt->quit_at) {
        g_autoptr(JsonNode) ret = NULL;
        g_autoptr(GError) qerr = NULL;

        if (bt->smmu_path) {
            JsonNode *st = smmulab_qmp_cmdq_stats(bt->qmp, bt->smmu_path,
                                                  NULL);

            if (st) {
                keep_stats(bt->r, st);
            }
        }
        if (bt->spec->sc->icount && bt->spec->sc->quantum_ns &&
            bt->spec->sc->line_ns) {
            /* The line-transfer model's counters */
            g_autoptr(JsonNode) lt = smmulab_qmp_execute(
                bt->qmp, "x-query-icount-lines", NULL, NULL);

            if (lt && JSON_NODE_HOLDS_OBJECT(lt)) {
                g_free(bt->r->lines_text);
                bt->r->lines_text = g_strdup(json_object_get_string_member_with_default(
                    json_node_get_object(lt), "human-readable-text", ""));
            }
        }
        ret = smmulab_qmp_execute(bt->qmp, "quit", NULL, &qerr);
        bt->quit_at = now;
    }
    if (!bt->timed_out && now > bt->deadline) {
        bt->timed_out = TRUE;
        kill(bt->pid, SIGTERM);
        bt->quit_at = now;
    }
    /* QEMU that does not go after quit or SIGTERM is killed */
    if (bt->quit_at && now - bt->quit_at > 5 * G_USEC_PER_SEC) {
        kill(bt->pid, SIGKILL);
    }
}

/* Watch the boot until QEMU closes its console */
static void watch(Boot *bt)
{
    while (!bt->eof) {
        gint64 now;

        read_console(bt);
        now = g_get_monotonic_time();
        end_when_done(bt, now);
        if (!poll_monitor(bt, now)) {
            continue;
        }
        quit_qemu(bt, now);
    }
}

/*
 * QEMU gone: its status, the console's last line, the counts settled and
 * the lockups' waits named; the log and the monitor closed
 */
static void collect(Boot *bt)
{
    SmmulabRun *r = bt->r;

    if (waitpid(bt->pid, &bt->status, 0) < 0) {
        bt->status = -1;
    }
    g_spawn_close_pid(bt->pid);
    close(bt->console_fd);
    if (bt->w.partial->len) {
        scan_line(&bt->w, bt->w.partial->str);
    }
    g_string_free(bt->w.partial, TRUE);
    smmulab_run_settle_counts(r);
    if (smmulab_lockups_count(r->lockups)) {
        /* the waits named by the driver's DWARF, in its object beside */
        g_autofree char *dir = g_path_get_dirname(bt->spec->kernel);
        g_autofree char *dwarf = g_build_filename(dir, "arm-smmu-v3.debug.o",
                                                  NULL);

        smmulab_lockups_resolve(r->lockups, dwarf);
    }
    if (r->lines_text) {
        /* the hottest lines named from the kernel's System.map beside */
        g_autofree char *dir = g_path_get_dirname(bt->spec->kernel);
        g_autofree char *map = g_build_filename(dir, "System.map", NULL);

        r->lines = smmulab_lines_parse(r->lines_text, map,
                                       1ull << bt->spec->sc->icount_shift);
    }
    close(bt->w.log_fd);
    smmulab_qmp_close(bt->qmp);
    r->wall_s = (g_get_monotonic_time() - bt->start) / 1e6;
}

SmmulabRun *smmulab_run_boot(const SmmulabRunSpec *spec, GError **err)
{
    /*
     * QMP on an abstract socket (Linux): QEMU and the runner may die by
     * SIGKILL, and a socket file would outlive them
     */
    g_autofree char *sock = g_strdup_printf("@smmulab-qmp-%d-%p", getpid(),
                                            (void *)spec);
    g_autofree char *asked = NULL;
    Boot bt = { .spec = spec, .sock = sock };
    SmmulabRun *r;

    if (!start_qemu(spec, sock, &bt.w, &bt.pid, &bt.console_fd, err)) {
        return NULL;
    }

    r = bt.r = bt.w.r = smmulab_run_new();
    bt.w.partial = g_string_new(NULL);
    bt.w.cap = spec->console_cap ? spec->console_cap : 64 << 20;
    bt.start = g_get_monotonic_time();
    bt.deadline = bt.start + (gint64)spec->sc->timeout_s * G_USEC_PER_SEC;

    watch(&bt);
    collect(&bt);

    set_verdict(r, spec, &bt.w, bt.interrupted, bt.timed_out, bt.status);
    asked = smmulab_scenario_asked(spec->sc, spec->variant_append);
    smmulab_run_verify_params(r, asked);
    g_free(bt.smmu_path);
    g_free(bt.w.panic_line);
    g_free(bt.w.error_line);
    progress(spec, r, r->wall_s, r->stats, TRUE);
    return r;
}
