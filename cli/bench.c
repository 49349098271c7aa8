/* bench.c: `xpose bench`: picks shapes and variants, runs, verifies and times them, then reports. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench_select.h"
#include "verify.h"


bench_row *result_add(bench_result *r)
{
    if (r->count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        bench_row *p = realloc(r->rows, cap * sizeof *p);
        if (!p)
            return NULL;
        r->rows = p;
        r->cap = cap;
    }
    bench_row *row = &r->rows[r->count++];
    memset(row, 0, sizeof *row);
    row->pct_memcpy = row->speedup = -1;
    return row;
}

static int id_of(const xpose_variant_info *v, char *buf, size_t n)
{
    return snprintf(buf, n, "%s%s%s", v->name, v->params[0] ? "/" : "", v->params);
}

static size_t phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : (size_t)-1;
}

void row_name(bench_row *row, const xpose_variant_info *v)
{
    snprintf(row->variant, sizeof row->variant, "%s", v->name);
    snprintf(row->params, sizeof row->params, "%s", v->params);
    row->backend = v->backend;
    row->family = v->family;
    row->pass_threads = v->backend == XPOSE_BACKEND_CPU ? xpose_get_threads() : 0;
    row->threads = v->threaded ? row->pass_threads : v->backend == XPOSE_BACKEND_CPU; /* one-thread variants: 1 */
}

static void fill_row_head(bench_row *row, const xpose_variant_info *v, const xpose_layout *lay)
{
    row_name(row, v);
    row->rows = lay->rows;
    row->cols = lay->cols;
    row->elem_size = lay->elem_size;
    row->batch = lay->batch ? lay->batch : 1;
    row->bytes = 2.0 * (double)lay->rows * (double)lay->cols * (double)lay->elem_size * (double)row->batch;
}

/* One CPU transpose call, as time_cpu_runs calls it. */
typedef struct transpose_run {
    const char *id;
    const xpose_layout *lay;
    const void *src;
    void *out;
} transpose_run;

static int run_transpose(void *ctx)
{
    const transpose_run *r = ctx;
    return xpose_transpose_variant(r->id, r->lay, r->src, r->out);
}

/* Runs one CPU variant: poison, run, compare in full with the reference, then time. */
static void time_cpu(const char *id, const xpose_layout *lay, const void *src, const void *want, size_t cmp_bytes,
                     void *out, size_t dst_bytes, int reps, int flush, bench_row *row)
{
    xv_poison(out, dst_bytes);
    row->status = xpose_transpose_variant(id, lay, src, out);
    if (row->status != XPOSE_OK)
        return;
    size_t first;
    row->verified = xv_compare(out, want, cmp_bytes, &first) == 0;
    transpose_run r = {id, lay, src, out};
    time_cpu_runs(run_transpose, &r, reps, flush, row);
}

/* Whether row b is of row a's setup: same shape, element size and batch, and b has a time. */
static int same_shape(const bench_row *a, const bench_row *b)
{
    return b->status == XPOSE_OK && b->ms > 0 && b->rows == a->rows && b->cols == a->cols &&
           b->elem_size == a->elem_size && b->batch == a->batch;
}

/* Fills % of memcpy and speedup. % of memcpy: the same backend's copy row of the same shape, for a CPU row also of
 * the same --threads pass, so that a ratio compares like with like (a one-thread variant, timed in the first pass,
 * against that pass's copy). Speedup: the shape's cpu-naive row, which runs on one thread in every pass. A row that
 * failed has neither. */
static void relate_rows(bench_result *r)
{
    for (size_t i = 0; i < r->count; i++) {
        bench_row *a = &r->rows[i];
        a->gbps = a->ms > 0 ? a->bytes / (a->ms * 1e6) : 0;
    }
    for (size_t i = 0; i < r->count; i++) {
        bench_row *a = &r->rows[i];
        if (a->status != XPOSE_OK || a->ms <= 0)
            continue;
        for (size_t j = 0; j < r->count; j++) {
            const bench_row *b = &r->rows[j];
            if (!same_shape(a, b))
                continue;
            if (a->pct_memcpy < 0 && b->family == XPOSE_FAMILY_COPY && b->backend == a->backend &&
                b->pass_threads == a->pass_threads)
                a->pct_memcpy = 100.0 * b->ms / a->ms;
            if (a->speedup < 0 && !strcmp(b->variant, "cpu-naive"))
                a->speedup = b->ms / a->ms;
        }
    }
}

typedef struct shape {
    size_t rows, cols, es;
} shape;

/* The CPU thread counts to run, as the library runs them; n == 0: its default, never set. */
typedef struct thread_plan {
    int t[CLI_MAX_LIST];
    int n;
} thread_plan;

/* One shape's host buffers and layouts, shared by every variant and thread count timed on it. */
typedef struct shape_data {
    shape sh;
    xpose_layout lay, dense;  /* dense: what a copy row moves, the same elements without the strides */
    unsigned char *src, *ref, *out;
    size_t sb, db, dense_bytes;
    int on_gpu;               /* gpu_begin_shape has placed it */
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
    double need = b * es * ((double)sh.rows * (double)(o->ld_src ? o->ld_src : sh.cols) +
                            2.0 * (double)sh.cols * (double)(o->ld_dst ? o->ld_dst : sh.rows)) + (double)extra;
    if (need > 0.85 * (double)phys_bytes()) {
        fprintf(stderr, "xpose: %zux%zu with %zu-byte elements needs %.1f GiB of host memory; this machine has "
                        "%.1f GiB\n", sh.rows, sh.cols, sh.es, need / 1073741824.0,
                (double)phys_bytes() / 1073741824.0);
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
        fprintf(stderr, "xpose: cannot allocate %.1f GiB for %zux%zu\n",
                (double)(d->sb + 2 * d->db) / 1073741824.0, sh.rows, sh.cols);
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

/* The GPU rows of one shape, verified and waiting to be timed together (gpu_time_jobs). Rows are named by index
 * into the result until then: adding rows may move them. */
typedef struct shape_jobs {
    gpu_job *job;
    size_t *row;
    int n, reps;
} shape_jobs;

/* Times the shape's waiting GPU rows, in turn (or the one row just verified, with --by-row). */
static void time_jobs(shape_jobs *q, bench_result *res)
{
    for (int j = 0; j < q->n; j++)
        q->job[j].row = &res->rows[q->row[j]];
    if (q->n)
        gpu_time_jobs(q->job, q->n, q->reps);
    q->n = 0;
}

/* Runs variant v on the shape into a new row: CPU rows are timed now, GPU rows verified now and queued in q to
 * be timed with the shape's other GPU rows; `implicit`: a reference the user did not ask for. */
static int run_variant(const bench_opts *o, const xpose_variant_info *v, int implicit, shape_data *d,
                       shape_jobs *q, bench_result *res)
{
    char id[96];
    id_of(v, id, sizeof id);
    if (v->backend == XPOSE_BACKEND_CUDA && !d->on_gpu) {
        int st = gpu_begin_shape(&d->lay, d->src, d->sb, d->db);
        if (st != XPOSE_OK) {
            fprintf(stderr, "xpose: cannot place %zux%zu on the GPU: %s\n", d->sh.rows, d->sh.cols,
                    xpose_strerror(st));
            return CLI_EXIT_USAGE;
        }
        d->on_gpu = 1;
    }
    if (isatty(2))
        fprintf(stderr, "\r%-60s", id), fflush(stderr);
    bench_row *row = result_add(res);
    if (!row) {
        fprintf(stderr, "xpose: out of memory for the result rows\n");
        return CLI_EXIT_USAGE;
    }
    fill_row_head(row, v, &d->lay);
    int reps = o->reps ? o->reps : (v->backend == XPOSE_BACKEND_CUDA ? 50 : 5);
    if (implicit && !o->reps)
        reps = v->backend == XPOSE_BACKEND_CPU ? 1 : reps; /* a reference-only baseline: one timed run */
    /* A copy moves the same rows x cols elements densely: the bound for any layout of that size. */
    int copy = v->family == XPOSE_FAMILY_COPY;
    const xpose_layout *vl = copy ? &d->dense : &d->lay;
    const void *want = copy ? (const void *)d->src : (const void *)d->ref;
    size_t cmp = copy ? d->dense_bytes : d->db;
    if (v->backend == XPOSE_BACKEND_CPU) {
        time_cpu(id, vl, d->src, want, cmp, d->out, d->db, reps, !o->warm, row);
        return 0;
    }
    gpu_verify_variant(id, vl, want, cmp, row);
    if (row->status != XPOSE_OK)
        return 0;
    gpu_job *b = &q->job[q->n];
    snprintf(b->id, sizeof b->id, "%s", id);
    b->lay = vl;
    q->row[q->n++] = (size_t)(row - res->rows);
    q->reps = reps; /* the same for every GPU row of a run */
    if (o->by_row)
        time_jobs(q, res);
    return 0;
}

/* Runs the selection on one shape, once per thread count: the first pass runs every variant, later passes only
 * the CPU ones that use the threads (a GPU row, cpu-naive or OpenBLAS's omatcopy would repeat the first pass's run),
 * so with one count the order is the selection's. */
static int run_shape(const bench_opts *o, const selection *sel, shape sh, int gpu, const thread_plan *tp,
                     bench_result *res)
{
    shape_data d;
    int st = shape_begin(o, sh, &d);
    if (st)
        return st;
    const size_t most = (size_t)sel->n + 1; /* the GPU rows of one shape; + 1: never a malloc(0) */
    shape_jobs q = {malloc(sizeof(gpu_job) * most), malloc(sizeof(size_t) * most), 0, 0};
    if (!q.job || !q.row) {
        fprintf(stderr, "xpose: out of memory for the GPU rows\n");
        st = CLI_EXIT_USAGE;
    }
    for (int p = 0; p < (tp->n ? tp->n : 1) && !st; p++) {
        if (tp->n)
            xpose_set_threads(tp->t[p]);
        for (int k = 0; k < sel->n && !st; k++) {
            xpose_variant_info v;
            xpose_variant_get(sel->idx[k], &v);
            if (!(v.elem_sizes & (unsigned)sh.es))
                continue; /* this variant does not take this element size */
            if (v.backend == XPOSE_BACKEND_CUDA && (!gpu || p > 0))
                continue;
            if (p > 0 && !v.threaded)
                continue; /* runs on one thread in every pass: timed once, in the first */
            st = run_variant(o, &v, sel->implicit[k], &d, &q, res);
        }
    }
    if (!st)
        time_jobs(&q, res);
    free(q.job);
    free(q.row);
    if (isatty(2))
        fprintf(stderr, "\r%-60s\r", "");
    shape_end(&d);
    return st;
}

/* The --threads values as the library runs them. A build without OpenMP runs every CPU variant on one thread:
 * it says so, and each count it really runs is timed once rather than as repeated identical rows. */
static void plan_threads(const bench_opts *o, thread_plan *tp)
{
    tp->n = 0;
    for (int i = 0; i < o->nthreads; i++) {
        int want = (int)o->threads[i], got = xpose_set_threads(want), seen = 0;
        if (got != want)
            fprintf(stderr, "xpose: --threads %d: this build runs CPU variants on %d thread%s\n", want, got,
                    got == 1 ? "" : "s");
        for (int k = 0; k < tp->n; k++)
            seen |= tp->t[k] == got;
        if (!seen)
            tp->t[tp->n++] = got;
    }
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

int cmd_bench(int argc, char **argv)
{
    bench_opts o;
    int st = parse_bench_args(argc, argv, &o);
    if (st)
        return st < 0 ? 0 : st;
    thread_plan tp;
    plan_threads(&o, &tp);
    if (tp.n)
        xpose_set_threads(tp.t[0]); /* the reduce bench takes one count; run_shape sets each pass's itself */
    bench_result res;
    memset(&res, 0, sizeof res);
    char why[160] = "";
    int gpu = gpu_ready(why, sizeof why);
    if (o.op == OP_REDUCE)
        return bench_reduce(&o, &res);

    selection sel;
    memset(&sel, 0, sizeof sel);
    if ((st = apply_preset(&o, &sel)) != 0)
        return st;
    /* Checked here rather than with the other options because a preset (seed004) can turn the sweep on. */
    if (o.sweep && (o.nsizes > 1 || o.rect)) {
        fprintf(stderr, "xpose: --sweep picks its own square sizes (256 up to --sweep-max); give it no --size list "
                        "or --rows/--cols\n");
        return CLI_EXIT_USAGE;
    }
    if (o.sweep_max && !o.sweep) {
        fprintf(stderr, "xpose: --sweep-max applies to --sweep (or --preset seed004)\n");
        return CLI_EXIT_USAGE;
    }
    if (o.variants && (st = select_list(&sel, o.variants)) != 0)
        return st;
    if (o.peers && !o.variants) {
        /* "cpu-fast/": the production row alone; `--variants cpu-fast` adds its tile-height lab rows. */
        if ((st = select_list(&sel, gpu && o.backend != BE_CPU ? "fast,cublas-geam,memcpy" : "cpu-fast/,cpu-openblas,cpu-memcpy")) != 0)
            return st;
        sel_drop_unavailable(&sel);
    }
    if (sel.n == 0)
        select_default(&sel, &o, gpu);
    /* The references every row is stated against: cpu-naive (speedup) and memcpy of each backend. */
    int any_gpu = sel_has_backend(&sel, XPOSE_BACKEND_CUDA), any_cpu = sel_has_backend(&sel, XPOSE_BACKEND_CPU);
    /* Say why the GPU is missing when GPU rows were asked for, or could have been (no --backend cpu). */
    if (!gpu && (any_gpu || o.backend != BE_CPU))
        note_add(&res, "GPU variants skipped: %s", why);
    /* Not for a peers view, nor where the run is kept to the GPU (--backend cuda): one-thread naive passes over a
     * large matrix take seconds each (8.6 s at c128 16384^2), far longer than the GPU rows they would sit next to. */
    if (!o.peers && o.backend != BE_CUDA)
        sel_add(&sel, xpose_variant_find("cpu-naive"), 1);
    if (any_cpu)
        sel_add(&sel, xpose_variant_find("cpu-memcpy"), 1);
    if (any_gpu && gpu)
        sel_add(&sel, xpose_variant_find("memcpy"), 1);

    shape shapes[64];
    int ns = plan_shapes(&o, gpu && any_gpu, shapes, 64);
    if (o.variants) { /* a variant named on the command line that a shape cannot run is said, not silently left out */
        size_t es[5];
        int nes = 0;
        for (int i = 0; i < ns; i++) {
            int seen = 0;
            for (int k = 0; k < nes; k++)
                seen |= es[k] == shapes[i].es;
            if (!seen && nes < 5)
                es[nes++] = shapes[i].es;
        }
        if ((st = sel_check_named(&sel, es, nes, &res)) != 0)
            return st;
    }
    /* CPU rows (the references included) are timed from memory, not from cache, unless --warm. */
    int cpu_rows = sel_has_backend(&sel, XPOSE_BACKEND_CPU), cold = cpu_rows && !o.warm;
    for (int i = 0; i < ns; i++)
        if ((st = check_shape(&o, shapes[i], cold ? cpu_flush_size() : 0)) != 0)
            return st;
    if (cold)
        cpu_flush_init();
    for (int i = 0; i < ns; i++)
        if ((st = run_shape(&o, &sel, shapes[i], gpu, &tp, &res)) != 0) {
            cpu_flush_free();
            free(res.rows);
            return st;
        }
    if (cpu_rows)
        cpu_flush_note(&res, cold);
    if (gpu && any_gpu)
        note_add(&res, o.by_row ? "GPU rows timed one after another (--by-row), each launch after an L2 flush; "
                                  "time: the mean of the middle half of the launches"
                                : "GPU rows of a shape timed in turn, rep by rep, in a new shuffled order each round, "
                                  "each launch after an L2 flush; time: the mean of the middle half of the launches");
    cpu_flush_free();
    relate_rows(&res);
    report(stdout, o.format, &res, &o);
    int bad = 0;
    for (size_t i = 0; i < res.count; i++)
        bad |= res.rows[i].status != XPOSE_OK || !res.rows[i].verified;
    if (o.plot && (st = plot_png(o.plot, &res, o.sweep)) != 0)
        bad = st;
    free(res.rows);
    return bad ? (bad == CLI_EXIT_USAGE ? CLI_EXIT_USAGE : 1) : 0;
}
