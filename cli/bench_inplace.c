/* bench_inplace.c: `xpose bench --op inplace`: times the in-place transposes next to memcpy of the same bytes in the
 * same run, each row verified in full against the out-of-place reference, the data re-filled before every timed run
 * (outside the timed span: only the transpose is timed). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench_select.h"
#include "verify.h"

/* The in-place rows of --variants (copies may be named too), or every one of the backends --backend chooses; then the
 * copy rows of each backend, first, as the bound. */
static int select_rows(const bench_opts *o, const bench_env *env, selection *sel, bench_result *res)
{
    int st;
    memset(sel, 0, sizeof *sel);
    if (o->variants && ((st = select_list(sel, o->variants)) || (st = sel_check_family(sel, SEL_INPLACE))))
        return st;
    if (!o->variants)
        select_default(sel, o, env->gpu, SEL_INPLACE);
    if ((st = sel_runnable(sel, o, env, res)))
        return st;
    if (sel_has_backend(sel, XPOSE_BACKEND_CUDA))
        sel_put_first(sel, xpose_variant_find("memcpy"), 1);
    if (sel_has_backend(sel, XPOSE_BACKEND_CPU)) { /* both: the faster is the bound (result.c's relate) */
        sel_put_first(sel, xpose_variant_find("cpu-stream"), 1);
        sel_put_first(sel, xpose_variant_find("cpu-memcpy"), 1);
    }
    return 0;
}

/* One shape: the source, the reference transpose, the working copy a row transposes in place, the CPU workspace. */
typedef struct ip_shape {
    xpose_layout lay; /* dense; a copy row moves the same bytes as they lie */
    size_t bytes;
    unsigned char *src, *ref, *work, *ws;
    size_t ws_bytes;
    int on_gpu;
} ip_shape;

static size_t host_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : (size_t)-1;
}

/* The shapes: the --size list (squares), or --rows x --cols (default 4000 x 4000); each checked against the host's
 * memory (three copies, and the cache-flush buffer) before any runs. */
static int plan_shapes(const bench_opts *o, size_t extra, size_t (*out)[2], int *n)
{
    *n = 0;
    if (o->nsizes > 1)
        for (int i = 0; i < o->nsizes; i++)
            out[(*n)][0] = out[(*n)][1] = o->sizes[i], (*n)++;
    else
        out[0][0] = o->rows ? o->rows : 4000, out[0][1] = o->cols ? o->cols : out[0][0], *n = 1;
    for (int i = 0; i < *n; i++) {
        double need =
            3.0 * (double)out[i][0] * (double)out[i][1] * (double)o->elem_size * (double)(o->batch ? o->batch : 1) +
            (double)extra;
        if (need > 0.85 * (double)host_bytes()) {
            fprintf(stderr,
                    "xpose: %zux%zu with %zu-byte elements needs %.1f GiB of host memory; this machine has %.1f GiB\n",
                    out[i][0], out[i][1], o->elem_size, need / 1073741824.0, (double)host_bytes() / 1073741824.0);
            return CLI_EXIT_USAGE;
        }
    }
    return 0;
}

/* The workspace is sized at the run's largest thread count (the CPU rows run on as many threads as it has slices
 * for: one sized at the first count, 1, held every later count to one thread). */
static int shape_begin(const bench_opts *o, const thread_plan *tp, size_t rows, size_t cols, ip_shape *d)
{
    memset(d, 0, sizeof *d);
    d->lay = (xpose_layout){rows, cols, o->elem_size, 0, 0, o->batch, 0, 0};
    d->bytes = rows * cols * o->elem_size * (o->batch ? o->batch : 1);
    const int before = xpose_get_threads();
    int most = before;
    for (int p = 0; p < tp->n; p++)
        most = tp->t[p] > most ? tp->t[p] : most;
    xpose_set_threads(most);
    d->ws_bytes = xpose_transpose_inplace_workspace(XPOSE_BACKEND_CPU, rows, cols, o->elem_size, o->batch);
    xpose_set_threads(before);
    d->src = host_big_alloc(d->bytes), d->ref = host_big_alloc(d->bytes), d->work = host_big_alloc(d->bytes);
    d->ws = d->ws_bytes ? aligned_alloc(64, (d->ws_bytes + 63) & ~(size_t)63) : NULL;
    if (!d->src || !d->ref || !d->work || (d->ws_bytes && !d->ws)) {
        free(d->src), free(d->ref), free(d->work), free(d->ws);
        fprintf(stderr, "xpose: cannot allocate %.1f GiB for %zux%zu\n", 3.0 * (double)d->bytes / 1073741824.0, rows,
                cols);
        return CLI_EXIT_USAGE;
    }
    xv_fill_random(d->src, d->bytes, o->seed + rows * 31 + cols * 7 + o->elem_size);
    xv_poison(d->ref, d->bytes);
    xv_reference(&d->lay, d->src, d->ref);
    return 0;
}

static void shape_end(ip_shape *d)
{
    if (d->on_gpu)
        gpu_end_shape();
    free(d->src), free(d->ref), free(d->work), free(d->ws);
}

/* One CPU row's call, as time_cpu_runs_prep makes it: an in-place row re-fills its working copy first. */
typedef struct ip_run {
    const char *id;
    const ip_shape *d;
    int copy;
} ip_run;

static void ip_refill(void *ctx)
{
    const ip_run *r = ctx;
    if (!r->copy)
        memcpy(r->d->work, r->d->src, r->d->bytes);
}

static int ip_call(void *ctx)
{
    const ip_run *r = ctx;
    const xpose_layout *l = &r->d->lay;
    if (r->copy)
        return xpose_transpose_variant(r->id, l, r->d->src, r->d->work);
    return xpose_transpose_inplace_variant(r->id, l->rows, l->cols, l->elem_size, l->batch, r->d->work, r->d->ws,
                                           r->d->ws_bytes);
}

/* Verifies, then times, one CPU row. */
static void time_cpu_row(const char *id, const ip_shape *d, int copy, int reps, int flush, bench_row *row)
{
    ip_run r = {id, d, copy};
    size_t first;
    xv_poison(d->work, d->bytes);
    ip_refill(&r);
    row->status = ip_call(&r);
    if (row->status != XPOSE_OK)
        return;
    row->verified = xv_compare(d->work, copy ? d->src : d->ref, d->bytes, &first) == 0;
    time_cpu_runs_prep(ip_refill, ip_call, &r, reps, flush, row);
}

/* The shape's GPU rows, verified and waiting to be timed together (gpu_time_jobs). */
typedef struct ip_jobs {
    gpu_job job[512];
    bench_row row[512];
    int n, reps;
} ip_jobs;

static int run_variant(const bench_opts *o, const xpose_variant_info *v, ip_shape *d, ip_jobs *q, bench_result *res)
{
    char id[96];
    variant_id(v, id, sizeof id);
    const int gpu = v->backend == XPOSE_BACKEND_CUDA, copy = v->family == XPOSE_FAMILY_COPY;
    if (gpu && !d->on_gpu) {
        int st = gpu_begin_shape(&d->lay, d->src, d->bytes, d->bytes);
        if (st != XPOSE_OK) {
            fprintf(stderr, "xpose: cannot place %zux%zu on the GPU: %s\n", d->lay.rows, d->lay.cols,
                    xpose_strerror(st));
            return CLI_EXIT_USAGE;
        }
        d->on_gpu = 1;
    }
    progress(id);
    bench_row cpu_row, *row = gpu ? &q->row[q->n] : &cpu_row;
    row_start(row, v, o, d->lay.elem_size);
    row->rows = d->lay.rows, row->cols = d->lay.cols, row->batch = o->batch ? o->batch : 1;
    row->ld_src = d->lay.cols, row->ld_dst = d->lay.rows;
    row->bytes = 2.0 * (double)d->bytes;
    const int reps = o->reps ? o->reps : gpu ? 50 : 5;
    if (!gpu)
        time_cpu_row(id, d, copy, reps, !o->warm, row);
    else if (copy)
        gpu_verify_variant(id, &d->lay, d->src, d->bytes, row);
    else
        gpu_inplace_verify(id, &d->lay, d->ref, d->bytes, row);
    if (!copy && row->status == XPOSE_ERR_UNSUPPORTED) { /* a square-only variant on a rectangle: said, not failed */
        note_add(res, "not run at %zux%zu: %s, which does not take that shape", d->lay.rows, d->lay.cols, id);
        return 0;
    }
    if (!gpu || row->status != XPOSE_OK || q->n == 511)
        return result_push(res, row);
    gpu_job *b = &q->job[q->n++];
    snprintf(b->id, sizeof b->id, "%s", id);
    b->lay = &d->lay;
    b->row = row;
    b->plan = NULL;
    q->reps = reps;
    return 0;
}

/* Times the shape's GPU rows in turn and pushes them. */
static int flush_jobs(ip_jobs *q, bench_result *res)
{
    int st = 0;
    if (q->n)
        gpu_time_jobs(q->job, q->n, q->reps);
    for (int j = 0; j < q->n && !st; j++)
        st = result_push(res, &q->row[j]);
    q->n = 0;
    return st;
}

/* The selection on one shape, once per --threads count (later passes: the threaded CPU rows only); the GPU rows are
 * timed last, together, or each at once with --by-row. */
static int run_shape(const bench_opts *o, const selection *sel, size_t rows, size_t cols, const bench_env *env,
                     bench_result *res)
{
    ip_shape d;
    int st = shape_begin(o, &env->tp, rows, cols, &d);
    if (st)
        return st;
    res->setup++;
    ip_jobs *q = calloc(1, sizeof *q);
    if (!q) {
        shape_end(&d);
        return CLI_EXIT_USAGE;
    }
    const thread_plan *tp = &env->tp;
    for (int p = 0; p < (tp->n ? tp->n : 1) && !st; p++) {
        if (tp->n)
            xpose_set_threads(tp->t[p]);
        result_hold(res); /* the references, which come first */
        for (int k = 0; k < sel->n && !st; k++) {
            xpose_variant_info v;
            xpose_variant_get(sel->idx[k], &v);
            if (k == sel->nref)
                result_release(res);
            if (!(v.elem_sizes & (unsigned)o->elem_size) || (v.backend == XPOSE_BACKEND_CUDA && (!env->gpu || p > 0)) ||
                (p > 0 && !v.threaded))
                continue;
            st = run_variant(o, &v, &d, q, res);
            if (!st && o->by_row)
                st = flush_jobs(q, res);
        }
        result_release(res);
    }
    if (!st)
        st = flush_jobs(q, res);
    free(q);
    progress(NULL);
    shape_end(&d);
    return st;
}

int bench_inplace(const bench_opts *o, const bench_env *env, bench_result *res)
{
    selection sel;
    size_t shapes[CLI_MAX_LIST][2];
    int ns, st = select_rows(o, env, &sel, res);
    size_t es = o->elem_size;
    if (!st && o->variants)
        st = sel_check_named(&sel, &es, 1, res);
    const int cpu_rows = sel_has_backend(&sel, XPOSE_BACKEND_CPU), cold = cpu_rows && !o->warm;
    if (!st)
        st = plan_shapes(o, cold ? cpu_flush_size() : 0, shapes, &ns);
    if (!st) {
        int w = 0;
        for (int i = 0; i < ns; i++) {
            char buf[64];
            int k = o->batch > 1 ? snprintf(buf, sizeof buf, "%zux%zu x%zu", shapes[i][0], shapes[i][1], o->batch)
                                 : snprintf(buf, sizeof buf, "%zux%zu", shapes[i][0], shapes[i][1]);
            w = k > w ? k : w;
        }
        st = result_start(res, o, w);
    }
    if (st)
        return st;
    if (cold)
        cpu_flush_init();
    for (int i = 0; i < ns && !st; i++)
        st = run_shape(o, &sel, shapes[i][0], shapes[i][1], env, res);
    if (cpu_rows)
        cpu_flush_note(res, cold);
    cpu_flush_free();
    note_add(res, "in-place rows: the working copy re-filled from the source before each timed run, outside the timed "
                  "span; CPU rows given a workspace allocated beforehand (xpose_transpose_inplace_workspace)");
    if (env->gpu && sel_has_backend(&sel, XPOSE_BACKEND_CUDA))
        note_add(res,
                 "GPU rows of a shape timed in turn, each launch after its re-fill and an L2 flush; time: the mean "
                 "of the middle half of the launches");
    return st;
}
