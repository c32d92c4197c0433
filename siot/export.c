#include "siot/export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "replay/json.h"
#include "siot/measures.h"
#include "replay/progress.h"
#include "core/roles.h"
#include "replay/synth.h"
#include "replay/files.h"
#include "siot/rankstats.h"

static void put(siot_vbuf *o, const char *s)
{
    siot_vbuf_put(o, s, strlen(s));
}

static void putf_i64(siot_vbuf *o, const char *key, int64_t v)
{
    char t[64];
    int n = snprintf(t, sizeof t, "%s%" PRId64, key, v);
    siot_vbuf_put(o, t, (size_t)n);
}

/* Work areas of one Chrome or CSV export: values evaluated, the CSV's
 * argument object, the names of values (core/names.h), the output. */
typedef struct ex_bufs {
    siot_vbuf scratch, args, names;
    siot_files files; /* which file each handle refers to, event by event */
    siot_vbuf out;
    FILE *fp;
    int format, first;
} ex_bufs;

/* The arguments as the members of a JSON object (no braces), then
 * "names":{...} for the values that have names; after: o holds members
 * before the arguments. */
static int put_args(siot_vbuf *o, const siot_trace *t, const siot_synth_ev *ev, ex_bufs *b, int after, char *err,
                    size_t errlen)
{
    siot_vbuf *scratch = &b->scratch, *names = &b->names;
    names->len = 0;
    const siot_event *e = &ev->node->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    uint32_t bad;
    if (siot_json_args(o, names, f, e, &ev->ctx, scratch, &bad) != 0) {
        snprintf(err, errlen, "rank %" PRId64 " event %" PRId64 " (%s): argument %s cannot be evaluated",
                 ev->ctx.rank, ev->seq, f->name, f->argnames[bad]);
        return -1;
    }
    siot_files_name_handles(&b->files, names, t, ev->node, &ev->ctx);
    siot_json_errno_name(names, siot_eval_int(e->err, &ev->ctx, 0));
    siot_json_ret_name(names, t->flavour, f->retrole, siot_eval_int(e->ret, &ev->ctx, 0));
    if (names->len && !e->nargs && !after) { /* the first member: no comma */
        siot_vbuf_put(o, "\"names\":{", 9);
        siot_vbuf_put(o, names->data, names->len);
        siot_vbuf_u8(o, '}');
    } else {
        siot_json_put_names(o, names);
    }
    return 0;
}

/* "X" event: times in microseconds, as the format wants. */
static int chrome_event(siot_vbuf *o, const siot_trace *t, const siot_synth_ev *ev, ex_bufs *b, int *first,
                        char *err, size_t errlen)
{
    const siot_event *e = &ev->node->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    char head[256];
    int n = snprintf(head, sizeof head, "%s\n{\"ph\":\"X\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":%.3f,\"dur\":%.3f,\"cat\":\"%s\",\"name\":",
                     *first ? "" : ",", ev->ctx.rank, siot_eval_int(e->thread, &ev->ctx, 0), ev->start_ns / 1e3,
                     ev->dur_ns / 1e3, siot_layer_name(f->layer));
    *first = 0;
    if (n < 0 || (size_t)n >= sizeof head) {
        snprintf(err, errlen, "rank %" PRId64 " event %" PRId64 ": times out of range", ev->ctx.rank, ev->seq);
        return -1;
    }
    siot_vbuf_put(o, head, (size_t)n);
    siot_json_str(o, f->name, strlen(f->name));
    putf_i64(o, ",\"args\":{\"seq\":", ev->seq);
    putf_i64(o, ",\"parent\":", ev->parent);
    putf_i64(o, ",\"ret\":", siot_eval_int(e->ret, &ev->ctx, 0));
    if (siot_is_data_class(f->cls))
        putf_i64(o, ",\"bytes\":", siot_eval_int(e->bytes, &ev->ctx, 0));
    int64_t ern = siot_eval_int(e->err, &ev->ctx, 0);
    if (ern)
        putf_i64(o, ",\"errno\":", ern);
    if (e->nargs)
        siot_vbuf_u8(o, ',');
    if (put_args(o, t, ev, b, 1, err, errlen) != 0)
        return -1;
    put(o, "}}");
    return 0;
}

/* A CSV field holding JSON: quoted, its quotes doubled. */
static void csv_quoted(siot_vbuf *o, const char *s, size_t n)
{
    siot_vbuf_u8(o, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            siot_vbuf_u8(o, '"');
        siot_vbuf_u8(o, (uint8_t)s[i]);
    }
    siot_vbuf_u8(o, '"');
}

/* The file the event's handle (its first: fd, stream, MPI file...) refers
 * to before the event, or NULL; valid until the export ends. */
static const char *handle_file(const siot_trace *t, const siot_synth_ev *ev, ex_bufs *b)
{
    const siot_event *e = &ev->node->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    int k = siot_file_handle_arg(f);
    siot_value v;
    if (k < 0 || (uint32_t)k >= e->nargs || siot_eval(e->args[k], &ev->ctx, &b->scratch, &v) != 0 ||
        v.kind != SIOT_V_INT)
        return NULL;
    return siot_files_handle_file(&b->files, (int32_t)ev->ctx.rank, f->argroles[k], v.i);
}

static int csv_event(siot_vbuf *o, const siot_trace *t, const siot_synth_ev *ev, ex_bufs *b, char *err,
                     size_t errlen)
{
    const siot_event *e = &ev->node->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    char head[320];
    int data = siot_is_data_class(f->cls);
    int n = snprintf(head, sizeof head,
                     "%" PRId64 ",%" PRId64 ",%s,%s,%" PRId64 ",%u,%.0f,%.0f,%" PRId64 ",%" PRId64 ",", ev->ctx.rank,
                     ev->seq, siot_layer_name(f->layer), f->name, ev->parent, ev->depth, ev->start_ns, ev->dur_ns,
                     siot_eval_int(e->ret, &ev->ctx, 0), siot_eval_int(e->err, &ev->ctx, 0));
    if (n < 0 || (size_t)n >= sizeof head) {
        snprintf(err, errlen, "rank %" PRId64 " event %" PRId64 ": times out of range", ev->ctx.rank, ev->seq);
        return -1;
    }
    siot_vbuf_put(o, head, (size_t)n);
    if (data)
        putf_i64(o, "", siot_eval_int(e->bytes, &ev->ctx, 0));
    putf_i64(o, ",", siot_eval_int(e->thread, &ev->ctx, 0));
    siot_vbuf_u8(o, ',');
    const char *file = handle_file(t, ev, b);
    if (file)
        csv_quoted(o, file, strlen(file));
    siot_vbuf_u8(o, ',');
    siot_vbuf *argbuf = &b->args;
    argbuf->len = 0;
    siot_vbuf_u8(argbuf, '{');
    if (put_args(argbuf, t, ev, b, 0, err, errlen) != 0)
        return -1;
    siot_vbuf_u8(argbuf, '}');
    csv_quoted(o, (const char *)argbuf->data, argbuf->len);
    siot_vbuf_u8(o, '\n');
    return 0;
}

/* The Chrome JSON up to the events: the array, the ranks' names. */
static void chrome_head(siot_vbuf *o, const siot_trace *t, const uint8_t *has, int *first)
{
    put(o, "{\"traceEvents\":[");
    for (uint32_t r = 0; r < t->nranks; r++) {
        if (!has[r])
            continue;
        char m[160];
        int n = snprintf(m, sizeof m, "%s\n{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_name\",\"args\":{\"name\":\"rank %u\"}}",
                         *first ? "" : ",", r, r);
        *first = 0;
        siot_vbuf_put(o, m, (size_t)n);
    }
}

/* After the events, once the synthesis is known: the metadata. */
static void chrome_tail(siot_vbuf *o, const siot_trace *t, const siot_export_account *a)
{
    put(o, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"siotrace\",\"times\":\"synthesised from "
           "the mean computation time and duration of each event; children scaled into their parents\"");
    putf_i64(o, ",\"ranks\":", t->nranks);
    putf_i64(o, ",\"events\":", (int64_t)a->total);
    putf_i64(o, ",\"sampled_one_in\":", (int64_t)a->every);
    char m[160];
    int n = snprintf(m, sizeof m, ",\"max_end_error\":%.6g", a->worst);
    if (a->worst_span >= 0)
        n += snprintf(m + n, sizeof m - (size_t)n, ",\"max_span_error\":%.6g", a->worst_span);
    n += snprintf(m + n, sizeof m - (size_t)n, ",\"synthesis\":[");
    siot_vbuf_put(o, m, (size_t)n);
    siot_vbuf_put(o, a->synth.data, a->synth.len);
    put(o, "]}}\n");
}

/* What synthesising a rank cost (synth.h): into otherData and the note. */
static void synth_account(siot_export_account *a, const siot_trace *t, const siot_synth *s, uint32_t rank)
{
    double end = siot_synth_end(s), rec = s->recorded_ns, span = siot_rank_time(t, rank, SIOT_RT_span);
    double err = rec > 0 ? (end > rec ? end - rec : rec - end) / rec : 0;
    if (span > 0) { /* the truth the trace keeps per rank: its first call's start to its last call's end */
        double e = (end > span ? end - span : span - end) / span;
        a->worst_span = e > a->worst_span ? e : a->worst_span;
    }
    char m[240];
    int n = snprintf(m, sizeof m, "%s{\"rank\":%u,\"end_ns\":%.0f,\"recorded_ns\":%.0f,\"squeezed_ns\":%.0f",
                     a->synth.len ? "," : "", rank, end, rec, s->squeezed_ns);
    if (span >= 0 && n > 0 && (size_t)n < sizeof m)
        n += snprintf(m + n, sizeof m - (size_t)n, ",\"span_ns\":%.0f", span);
    if (n > 0 && (size_t)n + 1 < sizeof m)
        m[n++] = '}';
    if (n > 0 && (size_t)n < sizeof m)
        siot_vbuf_put(&a->synth, m, (size_t)n);
    a->end += end;
    a->recorded += rec;
    a->squeezed += s->squeezed_ns;
    a->worst = err > a->worst ? err : a->worst;
}

static int flush(siot_vbuf *o, FILE *out, int force)
{
    if (o->oom)
        return -1;
    if (!force && o->len < (1u << 20))
        return 0;
    if (o->len && fwrite(o->data, 1, o->len, out) != o->len)
        return -1;
    o->len = 0;
    return 0;
}

/* The note for stderr: how far the synthesised times are from the means. */
static void account_note(const siot_export_account *a, char *note, size_t cap)
{
    int nn = snprintf(note, cap,
                      "times synthesised from the recorded means: the ranks' ends are within %.3f%% of their "
                      "outermost calls' means (sum %.0f ns); %.0f ns of nested time was scaled to fit children "
                      "into their parents",
                      a->worst * 100, a->recorded, a->squeezed);
    if (a->worst_span >= 0 && nn > 0 && (size_t)nn < cap)
        snprintf(note + nn, cap - (size_t)nn,
                 "; against each rank's recorded span (its first call to its last), within %.1f%%",
                 a->worst_span * 100);
}

/* The events to keep: all, or one in every k; 1 when refused. */
static int export_limit(const siot_trace *t, const siot_export_opts *opt, uint8_t *has, siot_export_account *a,
                        char *err, size_t errlen)
{
    if (siot_count_events_by_rank(t, has, &a->total, err, errlen) != 0)
        return -1;
    a->every = 1;
    if (a->total <= opt->max_events)
        return 0;
    if (!opt->sample || opt->max_events == 0) {
        snprintf(err, errlen,
                 "the trace holds %" PRIu64 " events, more than --max-events %" PRIu64 ": raise the limit",
                 a->total, opt->max_events);
        size_t n = strlen(err);
        if (opt->format != SIOT_EXPORT_OTF2 && n < errlen) /* sampling would break the OTF2 nesting */
            snprintf(err + n, errlen - n, ", or add --sample to keep one event in %" PRIu64,
                     opt->max_events ? (a->total + opt->max_events - 1) / opt->max_events : a->total);
        return 1;
    }
    a->every = (a->total + opt->max_events - 1) / opt->max_events;
    return 0;
}

/* One rank's events through the sink. */
static int walk_rank(const siot_trace *t, uint32_t r, siot_export_sink *sink, siot_export_account *a,
                     siot_progress *pg, uint64_t *done, uint64_t *written, char *err, size_t errlen)
{
    siot_synth s;
    if (siot_synth_init(&s, t, r) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    siot_synth_ev ev;
    int k, rc = 0;
    while (rc == 0 && (k = siot_synth_next(&s, &ev)) == 1) {
        int keep = (*done)++ % a->every == 0;
        rc = sink->event(sink->self, t, &ev, keep, err, errlen);
        *written += keep;
        siot_progress_tick(pg, *done);
    }
    if (rc == 0 && k < 0) {
        snprintf(err, errlen, "rank %u: %s", r, s.it.err ? s.it.err : "inconsistent trace");
        rc = -1;
    }
    synth_account(a, t, &s, r);
    if (rc == 0 && sink->rank_end)
        rc = sink->rank_end(sink->self, t, r, siot_synth_end(&s), err, errlen);
    siot_synth_free(&s);
    return rc;
}

int siot_export_walk(const siot_trace *t, siot_export_opts *opt, siot_export_sink *sink, siot_export_account *a,
                     uint64_t *written, char *err, size_t errlen)
{
    *written = 0;
    memset(a, 0, sizeof *a);
    siot_vbuf_init(&a->synth);
    a->worst_span = t->nrt ? 0 : -1;
    uint8_t *has = calloc(t->nranks ? t->nranks : 1, 1);
    if (!has) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = export_limit(t, opt, has, a, err, errlen);
    if (rc == 0 && sink->begin)
        rc = sink->begin(sink->self, t, has, err, errlen);
    siot_progress pg;
    siot_progress_start(&pg, "siot export", a->total, opt->progress);
    uint64_t done = 0;
    for (uint32_t r = 0; r < t->nranks && rc == 0; r++)
        if (has[r])
            rc = walk_rank(t, r, sink, a, &pg, &done, written, err, errlen);
    siot_progress_end(&pg, done);
    account_note(a, opt->note, sizeof opt->note);
    free(has);
    return rc;
}

static int ex_begin(void *self, const siot_trace *t, const uint8_t *has, char *err, size_t errlen)
{
    ex_bufs *b = self;
    if (b->format == SIOT_EXPORT_CHROME)
        chrome_head(&b->out, t, has, &b->first);
    else
        put(&b->out, "rank,seq,layer,func,parent,depth,start_ns,dur_ns,ret,errno,bytes,thread,file,args\n");
    return 0;
}

static int ex_event(void *self, const siot_trace *t, const siot_synth_ev *ev, int keep, char *err, size_t errlen)
{
    ex_bufs *b = self;
    if (!keep) { /* a skipped event still opens and closes handles */
        siot_files_step(&b->files, t, ev->node, &ev->ctx);
        return 0;
    }
    int rc = b->format == SIOT_EXPORT_CHROME ? chrome_event(&b->out, t, ev, b, &b->first, err, errlen)
                                             : csv_event(&b->out, t, ev, b, err, errlen);
    if (rc == 0 && flush(&b->out, b->fp, 0) != 0) {
        snprintf(err, errlen, "write error");
        rc = -1;
    }
    return rc;
}

int siot_export(const siot_trace *t, siot_export_opts *opt, FILE *out, uint64_t *written, char *err,
                size_t errlen)
{
    ex_bufs b;
    siot_vbuf_init(&b.out);
    siot_vbuf_init(&b.scratch);
    siot_vbuf_init(&b.args);
    siot_vbuf_init(&b.names);
    siot_files_init(&b.files);
    b.fp = out;
    b.format = opt->format;
    b.first = 1;
    siot_export_sink sink = {ex_begin, ex_event, NULL, &b};
    siot_export_account a;
    int rc = siot_export_walk(t, opt, &sink, &a, written, err, errlen);
    if (rc == 0 && opt->format == SIOT_EXPORT_CHROME)
        chrome_tail(&b.out, t, &a);
    if (rc == 0 && (flush(&b.out, out, 1) != 0 || fflush(out) != 0)) {
        snprintf(err, errlen, "write error");
        rc = -1;
    }
    siot_vbuf_free(&b.out);
    siot_vbuf_free(&b.scratch);
    siot_vbuf_free(&b.args);
    siot_vbuf_free(&b.names);
    siot_files_free(&b.files);
    siot_vbuf_free(&a.synth);
    return rc;
}
