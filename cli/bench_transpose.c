/* bench_transpose.c: `xpose bench` for transposes: picks shapes and variants, runs, verifies and times them. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench_select.h"
#include "verify.h"

size_t phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : (size_t)-1;
}

/* The row's layout: shape, leading dimensions as the variant sees them (dense where none were given), batch, and
 * the bytes one run reads and writes. */
static void row_layout(bench_row *row, const xpose_layout *lay)
{
    row->rows = lay->rows;
    row->cols = lay->cols;
    row->ld_src = lay->ld_src ? lay->ld_src : lay->cols;
    row->ld_dst = lay->ld_dst ? lay->ld_dst : lay->rows;
    row->batch = lay->batch ? lay->batch : 1;
    row->bytes = 2.0 * (double)lay->rows * (double)lay->cols * (double)lay->elem_size * (double)row->batch;
}

/* One CPU transpose call, as time_cpu_turns makes it (ctx: a transpose_run). */
int run_transpose(void *ctx)
{
    const transpose_run *r = ctx;
    return xpose_transpose_variant(r->id, r->lay, r->src, r->out);
}

/* One CPU variant: poison, run, compare in full with the reference. */
void check_cpu_variant(const char *id, const xpose_layout *lay, const void *src, const void *want, size_t cmp_bytes,
                       void *out, size_t dst_bytes, bench_row *row)
{
    xv_poison(out, dst_bytes);
    row->status = xpose_transpose_variant(id, lay, src, out);
    size_t first;
    row->verified = row->status == XPOSE_OK && xv_compare(out, want, cmp_bytes, &first) == 0;
}

typedef struct shape {
    size_t rows, cols, es;
} shape;

/* One shape's host buffers and layouts, shared by every variant and thread count timed on it. */
typedef struct shape_data {
    shape sh;
    xpose_layout lay, dense; /* dense: what a copy row moves, the same elements without the strides */
    unsigned char *src, *ref, *out;
    size_t sb, db, dense_bytes;
    int on_gpu; /* gpu_begin_shape has placed it */
} shape_data;

/* Rejects a shape whose leading dimensions are too small or that cannot fit in host memory, with `extra` bytes of
 * other host memory held at the same time (the CPU cache-flush buffer): checked for every shape before any runs,
 * so that a bad last entry of a --size list does not cost the earlier ones' time. */
static int check_shape(const bench_opts *o, shape sh, size_t extra)
{
    if ((o->ld_src && o->ld_src < sh.cols) || (o->ld_dst && o->ld_dst < sh.rows)) {
        fprintf(stderr, "xpose: --ld-src must be >= cols and --ld-dst >= rows (%zux%zu)\n", sh.rows, sh.cols);
        return CLI_EXIT_USAGE;
    }
    /* Estimated in floating point first, so that absurd sizes cannot wrap the byte counts. */
    double b = (double)(o->batch ? o->batch : 1), es = (double)sh.es;
    double need = b * es *
                      ((double)sh.rows * (double)(o->ld_src ? o->ld_src : sh.cols) +
                       2.0 * (double)sh.cols * (double)(o->ld_dst ? o->ld_dst : sh.rows)) +
                  (double)extra;
    if (need > 0.85 * (double)phys_bytes()) {
        fprintf(stderr,
                "xpose: %zux%zu with %zu-byte elements needs %.1f GiB of host memory; this machine has "
                "%.1f GiB\n",
                sh.rows, sh.cols, sh.es, need / 1073741824.0, (double)phys_bytes() / 1073741824.0);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

/* Allocates the shape's buffers, fills the source with random data and computes the reference transpose. */
static int shape_begin(const bench_opts *o, shape sh, shape_data *d)
{
    memset(d, 0, sizeof *d);
    d->sh = sh;
    d->lay = (xpose_layout){sh.rows, sh.cols, sh.es, o->ld_src, o->ld_dst, o->batch, 0, 0};
    d->dense = (xpose_layout){sh.rows, sh.cols, sh.es, 0, 0, o->batch, 0, 0};
    d->dense_bytes = (o->batch ? o->batch : 1) * sh.rows * sh.cols * sh.es;
    xv_spans(&d->lay, &d->sb, &d->db);
    d->src = host_big_alloc(d->sb), d->ref = host_big_alloc(d->db), d->out = host_big_alloc(d->db);
    if (!d->src || !d->ref || !d->out) {
        free(d->src), free(d->ref), free(d->out);
        fprintf(stderr, "xpose: cannot allocate %.1f GiB for %zux%zu\n", (double)(d->sb + 2 * d->db) / 1073741824.0,
                sh.rows, sh.cols);
        return CLI_EXIT_USAGE;
    }
    xv_fill_random(d->src, d->sb, o->seed + sh.rows * 31 + sh.cols * 7 + sh.es);
    xv_poison(d->ref, d->db);
    xv_reference(&d->lay, d->src, d->ref);
    return 0;
}

static void shape_end(shape_data *d)
{
    if (d->on_gpu)
        gpu_end_shape();
    free(d->src), free(d->ref), free(d->out);
}

/* The GPU rows of one shape, verified and waiting to be timed together (gpu_time_jobs); row[j] is job[j]'s. */
typedef struct shape_jobs {
    gpu_job *job;
    bench_row *row;
    int n, reps;
} shape_jobs;

/* A pass's CPU rows, verified as they come and timed together at the pass's end (run_pass): k is the row's place in
 * the selection (references first); turn[j] times job[j]. */
typedef struct cpu_job {
    char id[96];
    transpose_run run;
    bench_row row;
    int k;
} cpu_job;

typedef struct cpu_jobs {
    cpu_job *job;
    cpu_turn *turn;
    int n;
} cpu_jobs;

/* Times the shape's waiting GPU rows, in turn (or the one row just verified, with --by-row), and pushes them. */
static int time_jobs(shape_jobs *q, bench_result *res)
{
    int st = 0;
    if (q->n)
        gpu_time_jobs(q->job, q->n, q->reps);
    for (int j = 0; j < q->n && !st; j++)
        st = result_push(res, &q->row[j]);
    q->n = 0;
    return st;
}

/* Places the shape on the GPU, once, before its first GPU row. */
static int shape_on_gpu(shape_data *d)
{
    if (d->on_gpu)
        return 0;
    int st = gpu_begin_shape(&d->lay, d->src, d->sb, d->db);
    if (st != XPOSE_OK) {
        fprintf(stderr, "xpose: cannot place %zux%zu on the GPU: %s\n", d->sh.rows, d->sh.cols, xpose_strerror(st));
        return CLI_EXIT_USAGE;
    }
    d->on_gpu = 1;
    return 0;
}

/* Runs variant v (the selection's k-th) on the shape: a CPU row is verified now and queued in c, to be timed with
 * the pass's other CPU rows; a GPU row verified now and queued in q, to be timed with the shape's other GPU rows;
 * `implicit`: a reference the user did not ask for. */
static int run_variant(const bench_opts *o, const xpose_variant_info *v, int implicit, int k, shape_data *d,
                       shape_jobs *q, cpu_jobs *c, bench_result *res)
{
    char id[96];
    variant_id(v, id, sizeof id);
    int gpu = v->backend == XPOSE_BACKEND_CUDA, st = gpu ? shape_on_gpu(d) : 0;
    if (st)
        return st;
    progress(id);
    int reps = o->reps ? o->reps : (gpu ? 50 : 5);
    if (implicit && !o->reps && !gpu)
        reps = 1; /* a reference-only CPU baseline: one timed run */
    /* A copy moves the same rows x cols elements densely: the bound for any layout of that size. */
    int copy = v->family == XPOSE_FAMILY_COPY;
    const xpose_layout *vl = copy ? &d->dense : &d->lay;
    const void *want = copy ? (const void *)d->src : (const void *)d->ref;
    size_t cmp = copy ? d->dense_bytes : d->db;
    cpu_job *cj = gpu ? NULL : &c->job[c->n];
    bench_row *row = gpu ? &q->row[q->n] : &cj->row; /* it waits in q or c until it is timed */
    row_start(row, v, o, d->sh.es);
    row_layout(row, vl);
    if (!gpu) {
        snprintf(cj->id, sizeof cj->id, "%s", id);
        cj->run = (transpose_run){cj->id, vl, d->src, d->out};
        cj->k = k;
        c->turn[c->n++] = (cpu_turn){NULL, run_transpose, &cj->run, reps, row};
        check_cpu_variant(id, vl, d->src, want, cmp, d->out, d->db, row);
        return 0;
    }
    gpu_verify_variant(id, vl, want, cmp, row);
    if (row->status != XPOSE_OK)
        return result_push(res, row);
    gpu_job *b = &q->job[q->n++];
    snprintf(b->id, sizeof b->id, "%s", id);
    b->lay = vl;
    b->row = row;
    b->plan = NULL;
    q->reps = reps; /* the same for every GPU row of a run */
    return o->by_row ? time_jobs(q, res) : 0;
}

/* Times the pass's verified CPU rows in turn (time_cpu_turns: the bench's ratios are of rows timed side by side) and
 * pushes them all in the selection's order, the references held until both are in. */
static int time_cpu_jobs(const bench_opts *o, const selection *sel, cpu_jobs *c, bench_result *res)
{
    int st = 0;
    time_cpu_turns(c->turn, c->n, !o->warm); /* rows that failed their check are left out */
    for (int j = 0; j < c->n && !st; j++) {
        if (c->job[j].k >= sel->nref)
            result_release(res);
        st = result_push(res, &c->job[j].row);
    }
    c->n = 0;
    return st;
}

/* One --threads pass over the selection on a shape: the first pass runs every variant, later passes only the CPU
 * ones that use the threads (a GPU row, cpu-naive or OpenBLAS's omatcopy would repeat the first pass's run). */
static int run_pass(const bench_opts *o, const selection *sel, int pass, int gpu, shape_data *d, shape_jobs *q,
                    cpu_jobs *c, bench_result *res)
{
    int st = 0;
    result_hold(res); /* the references, which come first */
    for (int k = 0; k < sel->n && !st; k++) {
        xpose_variant_info v;
        xpose_variant_get(sel->idx[k], &v);
        if (!(v.elem_sizes & (unsigned)d->sh.es))
            continue; /* this variant does not take this element size */
        if (v.backend == XPOSE_BACKEND_CUDA && (!gpu || pass > 0))
            continue;
        if (pass > 0 && !v.threaded)
            continue; /* runs on one thread in every pass: timed once, in the first */
        st = run_variant(o, &v, sel->implicit[k], k, d, q, c, res);
    }
    if (!st)
        st = time_cpu_jobs(o, sel, c, res);
    result_release(res);
    return st;
}

/* Runs the selection on one shape, once per thread count (with one count the order is the selection's); the
 * shape's GPU rows are timed last, together. */
static int run_shape(const bench_opts *o, const selection *sel, shape sh, const bench_env *env, bench_result *res)
{
    shape_data d;
    int st = shape_begin(o, sh, &d);
    if (st)
        return st;
    res->setup++;
    const size_t most = (size_t)sel->n + 1; /* the GPU rows of one shape; + 1: never a malloc(0) */
    shape_jobs q = {malloc(sizeof(gpu_job) * most), malloc(sizeof(bench_row) * most), 0, 0};
    cpu_jobs c = {malloc(sizeof(cpu_job) * most), malloc(sizeof(cpu_turn) * most), 0};
    if (!q.job || !q.row || !c.job || !c.turn) {
        fprintf(stderr, "xpose: out of memory for the GPU rows\n");
        st = CLI_EXIT_USAGE;
    }
    const thread_plan *tp = &env->tp;
    for (int p = 0; p < (tp->n ? tp->n : 1) && !st; p++) {
        if (tp->n)
            xpose_set_threads(tp->t[p]);
        st = run_pass(o, sel, p, env->gpu, &d, &q, &c, res);
    }
    if (!st)
        st = time_jobs(&q, res);
    free(q.job);
    free(q.row);
    free(c.job);
    free(c.turn);
    progress(NULL);
    shape_end(&d);
    return st;
}

/* Appends rows x cols at each of the nes element sizes, while there is room. */
static void add_shapes(shape *out, int *n, int max, size_t rows, size_t cols, const size_t *es, int nes)
{
    for (int e = 0; e < nes && *n < max; e++)
        out[(*n)++] = (shape){rows, cols, es[e]};
}

/* The shapes to run: each matrix size (the sweep's, the --size list's, or one rows x cols) at each element
 * size (all five with --peers, unless --type or --elem-size names one). big_sweep: the sweep's default top is the
 * GPU's 32768, not the CPU's 8192. */
static int plan_shapes(const bench_opts *o, int big_sweep, shape *out, int max)
{
    static const size_t all[5] = {1, 2, 4, 8, 16};
    const int every = o->peers && !o->elem_given;
    const size_t *es = every ? all : &o->elem_size;
    int nes = every ? 5 : 1, n = 0;
    if (o->sweep) {
        size_t top = o->sweep_max ? o->sweep_max : (big_sweep ? 32768 : 8192);
        for (size_t m = CLI_SWEEP_FIRST; m <= top && n + nes <= max; m *= 2)
            add_shapes(out, &n, max, m, m, es, nes);
    } else if (o->nsizes > 1) {
        for (int i = 0; i < o->nsizes; i++)
            add_shapes(out, &n, max, o->sizes[i], o->sizes[i], es, nes);
    } else {
        size_t r = o->rows ? o->rows : (o->peers ? 16384 : 4000), c = o->cols ? o->cols : r;
        add_shapes(out, &n, max, r, c, es, nes);
    }
    return n;
}

/* Where a preset (seed004) or the options ask for a sweep, checked once the preset has set what it sets. */
static int check_sweep(const bench_opts *o)
{
    if (o->sweep && (o->nsizes > 1 || o->rect)) {
        fprintf(stderr, "xpose: --sweep picks its own square sizes (256 up to --sweep-max); give it no --size list "
                        "or --rows/--cols\n");
        return CLI_EXIT_USAGE;
    }
    if (o->sweep_max && !o->sweep) {
        fprintf(stderr, "xpose: --sweep-max applies to --sweep (or --preset seed004)\n");
        return CLI_EXIT_USAGE;
    }
    return 0;
}

/* The variants to run: the preset's, --variants, --peers' or the default, less what cannot run here; then the
 * references every row is stated against (cpu-naive for the speedup, each backend's memcpy), first. */
static int select_rows(bench_opts *o, const bench_env *env, selection *sel, bench_result *res)
{
    int st;
    memset(sel, 0, sizeof *sel);
    if ((st = apply_preset(o, sel)) || (st = check_sweep(o)))
        return st;
    if (o->variants && ((st = select_list(sel, o->variants)) || (st = sel_check_family(sel, 0))))
        return st;
    if (o->peers && !o->variants) {
        /* "cpu-fast/": the production row alone; `--variants cpu-fast` adds its tile-height lab rows. */
        int on_gpu = o->backend == BE_CUDA || (env->gpu && o->backend != BE_CPU);
        if ((st =
                 select_list(sel, on_gpu ? "fast,cublas-geam,memcpy" : "cpu-fast/,cpu-openblas,cpu-memcpy,cpu-stream")))
            return st;
        sel_drop_unavailable(sel);
    }
    if (sel->n == 0)
        select_default(sel, o, env->gpu, 0);
    if ((st = sel_runnable(sel, o, env, res)))
        return st;
    if (sel_has_backend(sel, XPOSE_BACKEND_CUDA))
        sel_put_first(sel, xpose_variant_find("memcpy"), 1);
    if (sel_has_backend(sel, XPOSE_BACKEND_CPU)) { /* both: the faster is the bound (result.c's relate) */
        sel_put_first(sel, xpose_variant_find("cpu-stream"), 1);
        sel_put_first(sel, xpose_variant_find("cpu-memcpy"), 1);
    }
    /* Not for a peers view, nor where the run is kept to the GPU (--backend cuda): one-thread naive passes over a
     * large matrix take seconds each (8.6 s at c128 16384^2), far longer than the GPU rows they would sit next to. */
    if (!o->peers && o->backend != BE_CUDA)
        sel_put_first(sel, xpose_variant_find("cpu-naive"), 1);
    return 0;
}

/* A variant named on the command line that a shape cannot run is said, not silently left out. */
static int check_named(const selection *sel, const shape *shapes, int ns, bench_result *res)
{
    size_t es[5];
    int nes = 0;
    for (int i = 0; i < ns; i++) {
        int seen = 0;
        for (int k = 0; k < nes; k++)
            seen |= es[k] == shapes[i].es;
        if (!seen && nes < 5)
            es[nes++] = shapes[i].es;
    }
    return sel_check_named(sel, es, nes, res);
}

/* The table's shape column: as wide as the widest shape of the run. */
static int shape_width(const bench_opts *o, const shape *shapes, int ns)
{
    int w = 0;
    for (int i = 0; i < ns; i++) {
        char buf[64];
        int k = o->batch > 1 ? snprintf(buf, sizeof buf, "%zux%zu x%zu", shapes[i].rows, shapes[i].cols, o->batch)
                             : snprintf(buf, sizeof buf, "%zux%zu", shapes[i].rows, shapes[i].cols);
        w = k > w ? k : w;
    }
    return w;
}

void gpu_timing_note(bench_result *res, int by_row)
{
    note_add(res, by_row ? "GPU rows timed one after another (--by-row), each launch after an L2 flush; "
                           "time: the mean of the middle half of the launches"
                         : "GPU rows of a shape timed in turn, rep by rep, in a new shuffled order each round, "
                           "each launch after an L2 flush; time: the mean of the middle half of the launches");
}

/* Runs every shape; CPU rows (the references included) are timed from memory, not from cache, unless --warm. */
static int run_shapes(const bench_opts *o, const selection *sel, const shape *shapes, int ns, const bench_env *env,
                      bench_result *res)
{
    int cpu_rows = sel_has_backend(sel, XPOSE_BACKEND_CPU), cold = cpu_rows && !o->warm, st = 0;
    for (int i = 0; i < ns && !st; i++)
        st = check_shape(o, shapes[i], cold ? cpu_flush_size() : 0);
    if (!st)
        st = result_start(res, o, shape_width(o, shapes, ns));
    if (st)
        return st;
    if (cold)
        cpu_flush_init();
    for (int i = 0; i < ns && !st; i++)
        st = run_shape(o, sel, shapes[i], env, res);
    if (cpu_rows) {
        cpu_flush_note(res, cold);
        note_add(res, "CPU rows of a shape and thread count timed in turn, round by round, a round starting one row "
                      "further on each time");
    }
    cpu_flush_free();
    if (env->gpu && sel_has_backend(sel, XPOSE_BACKEND_CUDA))
        gpu_timing_note(res, o->by_row);
    return st;
}

int bench_transpose(bench_opts *o, const bench_env *env, bench_result *res)
{
    selection sel;
    int st = select_rows(o, env, &sel, res);
    if (st)
        return st;
    shape shapes[64];
    int ns = plan_shapes(o, env->gpu && sel_has_backend(&sel, XPOSE_BACKEND_CUDA), shapes, 64);
    if (o->variants && (st = check_named(&sel, shapes, ns, res)))
        return st;
    return run_shapes(o, &sel, shapes, ns, env, res);
}
