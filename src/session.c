/* session: a rank's tracing session (session.h). */
#include "src/session.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "compress/queue.h"
#include "compress/renest.h"
#include "core/format.h"
#include "core/predef.h"
#include "src/config.h"
#include "src/handles.h"
#include "src/lock.h"
#include "src/runtime.h"
#include "src/spill.h"
#include "src/stack.h"
#include "src/tracefile.h"

#ifndef SIOT_FLAVOUR
#define SIOT_FLAVOUR "unknown"
#endif
#ifndef SIOT_VERSION
#define SIOT_VERSION "0.1.0"
#endif

static struct {
    int inited;
    int mpi;           /* MPI_Init was called: the MPI layer owns the end of the session */
    int ended;         /* the trace has been taken */
    int32_t rank;
    uint32_t nranks;
    uint64_t start_ns; /* wall clock */
    siot_arena arena;
    siot_queue queue;
    /* checkpoints (SIOT_CHECKPOINT): the first traced call at or after
     * ckpt_next writes the rank's part */
    uint64_t ckpt_next;
    uint64_t ckpts;   /* checkpoints written */
    uint64_t ckpt_ns; /* time they took */
    siot_out ckpt_out; /* a checkpoint written, to be committed out of the lock (fd >= 0) */
    uint64_t first, last;      /* start of the first traced call, end of the last */
    uint64_t rt[SIOT_RT_N];    /* the rank's own time totals (core/ranktimes.h) */
} S = {.ckpt_next = UINT64_MAX, .ckpt_out = {.fd = -1}};

void siot_runtime_init(void)
{
    if (S.inited)
        return;
    S.inited = 1;
    siot_config_load();
    siot_lock_faults_setup();
    siot_fd_init();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    S.start_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    /* A process of an MPI launch is that rank from the start: should the
     * tracer never see MPI_Init, its trace is still its rank's part. */
    int launched = siot_cfg.launch_size > 1;
    S.rank = launched ? siot_cfg.launch_rank : 0;
    S.nranks = launched ? siot_cfg.launch_size : 1;
    siot_arena_init(&S.arena);
    siot_queue_init(&S.queue, &S.arena, S.rank, siot_cfg.compress, siot_cfg.window);
    S.queue.tolerance = siot_cfg.tolerance;
    siot_spill_attach(&S.queue, S.rank);
    siot_record_init_thread();
    atomic_store(&siot_layer_mask, siot_cfg.layers);
}

void siot_session_pause(void) { atomic_store(&siot_layer_mask, 0); }

void siot_session_set_mpi(int on)
{
    S.mpi = on;
    /* Checkpoints start with the rank's own session: before MPI_Init every
     * rank would be rank 0. */
    if (on && siot_cfg.checkpoint_ns)
        S.ckpt_next = siot_now() + siot_cfg.checkpoint_ns;
}

int siot_session_is_mpi(void) { return S.mpi; }

int siot_session_in_job(void) { return S.mpi || S.nranks > 1; }

int32_t siot_session_rank(void) { return S.rank; }

uint32_t siot_session_nranks(void) { return S.nranks; }

int siot_session_ended(void) { return S.ended; }

void siot_session_forget(void)
{
    S.ended = 1;
    S.mpi = 0;
}

void siot_session_restart(int32_t rank, uint32_t nranks)
{
    siot_lock();
    siot_queue_free(&S.queue);
    siot_arena_free(&S.arena);
    siot_arena_init(&S.arena);
    S.rank = rank;
    S.nranks = nranks;
    siot_queue_init(&S.queue, &S.arena, rank, siot_cfg.compress, siot_cfg.window);
    S.queue.tolerance = siot_cfg.tolerance;
    siot_spill_attach(&S.queue, rank);
    siot_fd_forget_all();
    siot_h_reset_all();
    memset(S.rt, 0, sizeof S.rt);
    S.first = S.last = 0;
    S.ended = 0;
    siot_unlock();
    atomic_store(&siot_layer_mask, siot_cfg.layers);
}

/* The layers SIOT_LAYERS left out: their calls are absent, and a reader
 * (ioreplay --check) says so rather than only what is missing. */
static void note_layers_left_out(siot_trace *t)
{
    char note[160];
    size_t n = 0;
    note[0] = 0;
    for (unsigned l = 0; l < SIOT_NLAYERS; l++)
        if (!(siot_cfg.layers >> l & 1) && n < sizeof note)
            n += (size_t)snprintf(note + n, sizeof note - n, "%s%s", n ? "," : "", siot_layer_name(l));
    if (n)
        siot_trace_set_kv(t, "layers_left_out", note);
}

/* The rank's trace as it stands (under the lock, the queue finished):
 * header, tables, the node list, and the notes and flags saying how it was
 * recorded (truncated, stopped, spilled, approximate), in t's arena; the
 * nodes stay the session's. */
static int describe_session(siot_trace *t)
{
    int rc = siot_sites_export_locked(t);
    t->nranks = S.nranks;
    t->start_ns = S.start_ns;
    t->flags = (S.queue.oom ? SIOT_TF_TRUNCATED : 0) | (siot_cfg.compress ? SIOT_TF_COMPRESSED : 0);
    char exe[PATH_MAX];
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    const char *e = siot_self_exe(exe, sizeof exe);
    t->exe = siot_arena_strdup(&t->arena, e, strlen(e));
    t->flavour = SIOT_FLAVOUR;
    t->host = siot_arena_strdup(&t->arena, host, strlen(host));
    t->version = SIOT_VERSION;
    t->funcs = (siot_funcdesc *)siot_functab;
    t->nfuncs = siot_nfuncs;
    t->top = siot_arena_alloc(&t->arena, (S.queue.n ? S.queue.n : 1) * sizeof *t->top);
    if (t->top && t->exe && t->host) {
        if (S.queue.n)
            memcpy(t->top, S.queue.nodes, S.queue.n * sizeof *t->top);
        t->ntop = S.queue.n;
    } else {
        rc = -1;
    }
    t->rt = siot_cfg.rank_times ? siot_arena_alloc(&t->arena, sizeof *t->rt) : NULL;
    if (t->rt) {
        t->nrt = 1;
        t->rt->rank = S.rank;
        memcpy(t->rt->v, S.rt, sizeof S.rt);
        t->rt->v[SIOT_RT_span] = S.last - S.first;
    }
    if (S.queue.oom) {
        char why[200];
        snprintf(why, sizeof why, "the tracer ran out of memory after event %llu: the %llu events after it were lost",
                 (unsigned long long)S.queue.events, (unsigned long long)S.queue.lost);
        siot_trace_set_kv(t, "truncated", why);
    }
    siot_spill_describe(t, &S.queue);
    char note[160];
    snprintf(note, sizeof note, "%llu", (unsigned long long)S.queue.events);
    siot_trace_set_kv(t, "events_recorded", note);
    if (S.queue.misses) {
        snprintf(note, sizeof note,
                 "%llu repeats found further back than SIOT_WINDOW=%u nodes (up to %llu): "
                 "a larger window may fold them",
                 (unsigned long long)S.queue.misses, siot_cfg.window, (unsigned long long)S.queue.miss_maxdist);
        siot_trace_set_kv(t, "window_misses", note);
    }
    if (S.queue.approx_merges) {
        t->flags |= SIOT_TF_APPROX;
        snprintf(note, sizeof note,
                 "%llu loop instances folded with counts within SIOT_TOLERANCE=%g%%: their counts (shown ~mean) "
                 "are approximate",
                 (unsigned long long)S.queue.approx_merges, siot_cfg.tolerance);
        siot_trace_set_kv(t, "approximate", note);
    }
    snprintf(note, sizeof note, "%zu", S.arena.used_bytes);
    siot_trace_set_kv(t, "recorder_memory_bytes", note);
    note_layers_left_out(t);
    if (siot_h_unknown_uses()) {
        snprintf(note, sizeof note,
                 "%llu uses of requests made by calls the tracer does not record (recorded as unknown, id %d)",
                 (unsigned long long)siot_h_unknown_uses(), SIOT_ID_UNKNOWN);
        siot_trace_set_kv(t, "unknown_handles", note);
    }
    if (siot_unstaged_calls()) {
        snprintf(note, sizeof note, "%llu calls ran unrecorded: no memory to stage them",
                 (unsigned long long)siot_unstaged_calls());
        siot_trace_set_kv(t, "calls_unrecorded", note);
    }
    if (siot_site_walk_mismatches()) {
        snprintf(note, sizeof note,
                 "%llu call-site walks by learned frame sizes disagreed with libunwind; libunwind's were kept",
                 (unsigned long long)siot_site_walk_mismatches());
        siot_trace_set_kv(t, "site_walk_mismatches", note);
    }
    return rc;
}

/* The session's trace, with the lock taken within wait_ns (0: no limit). */
int siot_session_take_within(siot_trace *t, uint64_t wait_ns)
{
    atomic_store(&siot_layer_mask, 0);
    siot_trace_init(t);
    if (wait_ns) {
        if (!siot_lock_within(wait_ns))
            return SIOT_TAKE_BUSY;
    } else {
        siot_lock();
    }
    S.ended = 1;
    siot_queue_finish(&S.queue);
    int rc = describe_session(t);
    siot_spill_set_own(t);
    siot_queue_free(&S.queue);
    siot_arena_take(&t->arena, &S.arena);
    siot_unlock();
    siot_trace_index(t);
    return rc;
}

/* The ending the program chose (MPI_Finalize, exit): the trace is
 * complete, so loops whose run tables hide a nest are rewritten as one
 * (compress/renest.h) before it is merged and written. */
static uint64_t renest_ns;

int siot_session_take(siot_trace *t)
{
    int rc = siot_session_take_within(t, 0);
    uint64_t t0 = siot_now();
    if (rc == 0 && siot_cfg.compress && !siot_spill_owns(t))
        siot_renest(t);
    renest_ns = siot_now() - t0;
    return rc;
}

uint64_t siot_session_renest_ns(void) { return renest_ns; }

/* SIOT_CHECKPOINT: the rank's trace so far, as the part an abnormal ending
 * would write (a later checkpoint, the ending, or the job's trace supersede
 * it). Called at the end of a traced call, under the lock: the encoding is
 * proportional to the compressed trace, plus the spill file when the rank
 * spilled. Against SIGKILL, which no handler sees. */
/* 1 when this call wrote a checkpoint (to be committed by the caller). */
static int checkpoint(uint64_t now)
{
    S.ckpt_next = now + siot_cfg.checkpoint_ns;
    if (S.ended || S.queue.stopped || S.ckpt_out.fd >= 0 || siot_queue_finish(&S.queue) != 0)
        return 0;
    siot_trace t;
    siot_trace_init(&t);
    if (describe_session(&t) == 0) {
        char note[160];
        snprintf(note, sizeof note, "checkpoint %llu, after event %llu of this rank (it was still running)",
                 (unsigned long long)S.ckpts + 1, (unsigned long long)S.queue.events);
        siot_trace_set_kv(&t, "partial", note);
        t.flags |= SIOT_TF_PARTIAL;
        char path[PATH_MAX + 64];
        siot_partial_path(path, sizeof path, S.rank);
        const siot_trace *own = siot_spill_set_own(&t); /* a rank that spilled: its spilled sections go in too */
        if (siot_write_uncommitted(&t, path, &S.ckpt_out) != 0)
            S.ckpt_out.fd = -1;
        siot_spill_set_own(own);
    }
    siot_trace_free(&t);
    S.ckpt_ns += siot_now() - now;
    return S.ckpt_out.fd >= 0;
}

int siot_session_push(const siot_raw *stage, uint32_t n, const uint8_t *pool, uint64_t now)
{
    if (!S.ended) {
        siot_queue_push(&S.queue, stage, n, pool);
        if (!S.first || stage[0].t_start < S.first) /* threads: groups end out of order */
            S.first = stage[0].t_start;
        if (now > S.last)
            S.last = now;
        for (uint32_t i = 0; i < n; i++) {
            const siot_funcdesc *f = &siot_functab[stage[i].func];
            siot_rt_add(S.rt, f->layer, f->cls, stage[i].parent < 0, stage[i].t_end - stage[i].t_start);
        }
    }
    if (SIOT_LIKELY(now < S.ckpt_next))
        return 0;
    return checkpoint(now);
}

/* The checkpoint written under the lock is made durable out of it: fsync
 * can take milliseconds, and other threads may need the lock meanwhile.
 * Only the thread that wrote it gets here with it (siot_finish). */
void siot_session_commit_checkpoint(void)
{
    uint64_t t0 = siot_now();
    /* the slow part out of the lock; no other thread touches the file while
     * ckpt_out.fd >= 0 (checkpoint) */
    syscall(SYS_fsync, S.ckpt_out.fd);
    siot_lock();
    if (S.ended) /* the session's ending was written meanwhile: this part is stale */
        siot_out_abort(&S.ckpt_out, NULL);
    else if (siot_out_commit(&S.ckpt_out) == 0)
        S.ckpts++;
    else
        siot_sayf("siotrace: %s", S.ckpt_out.why);
    S.ckpt_out.fd = -1;
    S.ckpt_ns += siot_now() - t0;
    siot_unlock();
}

void siot_checkpoint_settle(int job_written)
{
    if (!S.ckpts)
        return;
    if (siot_cfg.verbose)
        fprintf(stderr, "siotrace: rank %d: %llu checkpoints, %.6f s in all\n", (int)S.rank,
                (unsigned long long)S.ckpts, (double)S.ckpt_ns * 1e-9);
    char path[PATH_MAX + 64];
    siot_partial_path(path, sizeof path, S.rank);
    if (job_written > 0)
        syscall(SYS_unlinkat, AT_FDCWD, path, 0);
    else if (job_written == 0)
        fprintf(stderr, "siotrace: rank %d: the job's trace was not written; this rank's last checkpoint is in %s\n",
                (int)S.rank, path);
    S.ckpts = 0;
}
