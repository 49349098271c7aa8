/* bench_reduce.c: `xpose bench --op reduce`: times every selected reduction on one random array, checks
 * each result against the reference within the documented bound, and relates it to memcpy of the same
 * bytes (GPU: the `memcpy` row; CPU: the faster of `cpu-memcpy` and `cpu-stream`) and to cpu-reduce, all measured
 * in this run. */
#include <stdlib.h>
#include <string.h>
#include "bench_select.h"
#include "reduce_ref.h"
#ifdef XPOSE_HAVE_CUDA
#include "xpose_cuda.h"
#endif

static const char *const op_names[] = {"sum", "min", "max"};

static int parse_dtype(const char *name, xpose_dtype *t)
{
    static const struct {
        const char *name;
        xpose_dtype t;
    } names[] = {{"float", XPOSE_F32}, {"f32", XPOSE_F32}, {"double", XPOSE_F64},
                 {"f64", XPOSE_F64},   {"i32", XPOSE_I32}, {"i64", XPOSE_I64}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i].name)) {
            *t = names[i].t;
            return 0;
        }
    fprintf(stderr, "xpose: --op reduce takes --type float, double, i32 or i64, not '%s'\n", name);
    return CLI_EXIT_USAGE;
}

/* The reductions of --variants (only reductions), or by default every one of the backends --backend chooses, less
 * what cannot run here; then the references, first: cpu-reduce (the speedup's) and the memcpy of each backend
 * timed. *any_cpu: a CPU reduction is among them. */
static int select_rows(const bench_opts *o, const bench_env *env, selection *sel, int *any_cpu, bench_result *res)
{
    int st;
    memset(sel, 0, sizeof *sel);
    if (o->variants && ((st = select_list(sel, o->variants)) || (st = sel_check_family(sel, 1))))
        return st;
    if (!o->variants)
        select_default(sel, o, env->gpu, 1);
    if ((st = sel_runnable(sel, o, env, res)))
        return st;
    *any_cpu = sel_has_backend(sel, XPOSE_BACKEND_CPU);
    if (sel_has_backend(sel, XPOSE_BACKEND_CUDA))
        sel_put_first(sel, xpose_variant_find("memcpy"), 1);
    if (*any_cpu) { /* both: the faster is the bound (result.c's relate) */
        sel_put_first(sel, xpose_variant_find("cpu-stream"), 1);
        sel_put_first(sel, xpose_variant_find("cpu-memcpy"), 1);
    }
    sel_put_first(sel, xpose_variant_find("cpu-reduce"), 1);
    return 0;
}

/* One array and what every row is judged and related by. */
typedef struct job {
    xpose_reduce_op op;
    xpose_dtype type;
    size_t n, es;
    const void *host;
    xr_expect want;
    int reps;
    int flush;   /* CPU rows: read the cache-flush buffer before each timed run (not --warm) */
    int any_cpu; /* CPU reductions were selected: cpu-reduce is not there only as the speedup's reference */
} job;

static void row_head(bench_row *row, const xpose_variant_info *v, const bench_opts *o, const job *j)
{
    row_start(row, v, o, j->es);
    row->batch = 1;
    /* A reduction shows n; a copy reference shows 1 x n. A reduction reads its bytes, a copy also writes. */
    int reduce = v->family == XPOSE_FAMILY_REDUCE;
    row->rows = reduce ? j->n : 1;
    row->cols = reduce ? 1 : j->n;
    row->ld_src = reduce ? 0 : j->n;
    row->ld_dst = reduce ? 0 : 1;
    row->bytes = (reduce ? 1.0 : 2.0) * (double)j->n * (double)j->es;
}

/* One CPU call of a reduce-bench row: the reduction, or the copy of the same bytes (the memcpy reference). */
typedef struct cpu_call {
    const char *id;
    const job *j;
    int copy;
    xpose_layout lay; /* the copy's: 1 x n */
    void *copy_dst;
    uint64_t got; /* the reduction's result */
} cpu_call;

static int run_cpu_call(void *ctx)
{
    cpu_call *c = ctx;
    return c->copy ? xpose_transpose_variant(c->id, &c->lay, c->j->host, c->copy_dst)
                   : xpose_reduce_variant(c->id, c->j->op, c->j->type, c->j->host, c->j->n, &c->got);
}

/* CPU rows: one checked run, then timed ones (time_cpu_runs). */
static void time_cpu(const char *id, const job *j, void *copy_dst, bench_row *row)
{
    cpu_call c = {
        id, j, row->family == XPOSE_FAMILY_COPY, {1, j->n, j->es, 0, 0, 0, 0, 0}, copy_dst, 0xA7A7A7A7A7A7A7A7ull};
    row->status = run_cpu_call(&c);
    if (row->status != XPOSE_OK)
        return;
    row->verified = c.copy ? !memcmp(copy_dst, j->host, j->n * j->es) : xr_accepts(j->type, &j->want, &c.got);
    time_cpu_runs(run_cpu_call, &c, j->reps, j->flush, row);
}

#ifdef XPOSE_HAVE_CUDA
/* The device copy of the array, a result slot, a copy destination for the memcpy row and a buffer twice
 * the L2 that is read (not written) before every timed run: no run finds its input in cache, and none
 * pays for writing back dirty lines that the flush left, which would charge a read-only kernel ~60 MB
 * of writes. */
typedef struct gpu_side {
    void *src, *dst, *result, *flush;
    size_t flush_bytes;
    cudaStream_t stream;
    cudaEvent_t start, stop;
} gpu_side;

static void gpu_free(gpu_side *g)
{
    cudaFree(g->src), cudaFree(g->dst), cudaFree(g->result), cudaFree(g->flush);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    if (g->start)
        cudaEventDestroy(g->start);
    if (g->stop)
        cudaEventDestroy(g->stop);
    memset(g, 0, sizeof *g);
    cudaGetLastError();
}

static int gpu_setup(gpu_side *g, const job *j)
{
    int dev = 0, l2 = 0;
    size_t bytes = j->n * j->es;
    memset(g, 0, sizeof *g);
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    g->flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
    if (cudaStreamCreate(&g->stream) != cudaSuccess || cudaEventCreate(&g->start) != cudaSuccess ||
        cudaEventCreate(&g->stop) != cudaSuccess || cudaMalloc(&g->src, bytes) != cudaSuccess ||
        cudaMalloc(&g->dst, bytes) != cudaSuccess || cudaMalloc(&g->result, 8) != cudaSuccess ||
        cudaMalloc(&g->flush, g->flush_bytes) != cudaSuccess || cudaMemset(g->flush, 1, g->flush_bytes) ||
        cudaMemcpy(g->src, j->host, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        gpu_free(g);
        return XPOSE_ERR_NO_MEMORY;
    }
    return XPOSE_OK;
}

static int gpu_run(const char *id, const job *j, const gpu_side *g, int copy)
{
    xpose_layout lay = {1, j->n, j->es, 0, 0, 0, 0, 0};
    return copy ? xpose_transpose_variant_cuda(id, &lay, g->src, g->dst, g->stream)
                : xpose_reduce_variant_cuda(id, j->op, j->type, g->src, j->n, g->result, g->stream);
}

/* Whether the row's output is right: the result against the reference, or the copy against the array. */
static int gpu_output_ok(const job *j, const gpu_side *g, int copy)
{
    if (!copy) {
        uint64_t got;
        return cudaMemcpy(&got, g->result, 8, cudaMemcpyDeviceToHost) == cudaSuccess &&
               xr_accepts(j->type, &j->want, &got);
    }
    void *back = malloc(j->n * j->es);
    int ok = back && cudaMemcpy(back, g->dst, j->n * j->es, cudaMemcpyDeviceToHost) == cudaSuccess &&
             !memcmp(back, j->host, j->n * j->es);
    free(back);
    return ok;
}

/* One checked run into a poisoned output, two warm-ups, then CUDA events around each timed run. */
static void time_gpu(const char *id, const job *j, const gpu_side *g, bench_row *row)
{
    int copy = row->family == XPOSE_FAMILY_COPY;
    cudaMemsetAsync(copy ? g->dst : g->result, 0xA7, copy ? j->n * j->es : 8, g->stream);
    if ((row->status = gpu_run(id, j, g, copy)) == XPOSE_OK && cudaStreamSynchronize(g->stream) != cudaSuccess)
        row->status = XPOSE_ERR_CUDA;
    if (row->status != XPOSE_OK)
        return;
    row->verified = gpu_output_ok(j, g, copy);
    double *t = malloc(sizeof(double) * (size_t)j->reps);
    if (!t) {
        row->status = XPOSE_ERR_NO_MEMORY;
        return;
    }
    int k = 0, st = gpu_run(id, j, g, copy);
    if (st == XPOSE_OK)
        st = gpu_run(id, j, g, copy);
    for (; k < j->reps && st == XPOSE_OK; k++) {
        float ms = 0;
        if ((st = xpose_reduce_cuda(XPOSE_SUM, XPOSE_I32, g->flush, g->flush_bytes / 4, g->result, g->stream)))
            break;
        cudaEventRecord(g->start, g->stream);
        st = gpu_run(id, j, g, copy);
        cudaEventRecord(g->stop, g->stream);
        if (st == XPOSE_OK && (cudaEventSynchronize(g->stop) != cudaSuccess ||
                               cudaEventElapsedTime(&ms, g->start, g->stop) != cudaSuccess))
            st = XPOSE_ERR_CUDA;
        t[k] = ms;
    }
    row->status = st;
    if (st == XPOSE_OK)
        row_times(row, t, k, 0);
    free(t);
}
#else
/* Without CUDA no GPU row is selected (sel_runnable): these only keep run_rows free of #ifdefs. */
typedef struct gpu_side {
    int none;
} gpu_side;

static int gpu_setup(gpu_side *g, const job *j)
{
    (void)g, (void)j;
    return XPOSE_ERR_NOT_BUILT;
}

static void gpu_free(gpu_side *g) { (void)g; }

static void time_gpu(const char *id, const job *j, const gpu_side *g, bench_row *row)
{
    (void)id, (void)j, (void)g;
    row->status = XPOSE_ERR_NOT_BUILT;
}
#endif

/* Times row k of the selection and pushes it: CPU rows on the host array (a copy into host_dst), GPU rows on g. */
static int run_row(const bench_opts *o, const selection *sel, int k, job *j, void *host_dst, const gpu_side *g,
                   bench_result *res)
{
    xpose_variant_info v;
    char id[96];
    if (xpose_variant_get(sel->idx[k], &v) != XPOSE_OK)
        return 0;
    int cpu = v.backend == XPOSE_BACKEND_CPU;
    if (cpu && v.family == XPOSE_FAMILY_COPY && !host_dst)
        return 0; /* no memory for the copy's destination: the row is left out */
    variant_id(&v, id, sizeof id);
    progress(id);
    bench_row row;
    row_head(&row, &v, o, j);
    /* cpu-reduce there only as the GPU rows' speedup reference: a shorter run. */
    j->reps = o->reps ? o->reps : !cpu ? 50 : sel->implicit[k] && !j->any_cpu ? 3 : 5;
    if (cpu)
        time_cpu(id, j, host_dst, &row);
    else if (g)
        time_gpu(id, j, g, &row);
    else
        return 0; /* the GPU could not hold the array: said in the notes */
    return result_push(res, &row);
}

/* Times the selected rows in order (the references first), each pushed as it finishes. */
static int run_rows(const bench_opts *o, const selection *sel, job *j, bench_result *res)
{
    void *host_dst = j->any_cpu ? malloc(j->n * j->es) : NULL;
    j->flush = j->any_cpu && !o->warm && cpu_flush_init() > 0;
    gpu_side g;
    const gpu_side *on_gpu = NULL;
    memset(&g, 0, sizeof g);
    if (sel_has_backend(sel, XPOSE_BACKEND_CUDA)) {
        if (gpu_setup(&g, j) == XPOSE_OK)
            on_gpu = &g;
        else {
            fprintf(stderr, "xpose: cannot place %zu elements (and a copy) on the GPU; GPU rows skipped\n", j->n);
            note_add(res, "GPU rows skipped: not enough device memory");
        }
    }
    int st = 0;
    result_hold(res); /* the references, which come first */
    for (int k = 0; k < sel->n && !st; k++) {
        if (k == sel->nref)
            result_release(res);
        st = run_row(o, sel, k, j, host_dst, on_gpu, res);
    }
    result_release(res);
    progress(NULL);
    if (on_gpu)
        gpu_free(&g);
    if (j->any_cpu)
        cpu_flush_note(res, !o->warm);
    cpu_flush_free();
    free(host_dst);
    return st;
}

/* The job of the options: operation, type, element count; CLI_EXIT_USAGE for a type or count it cannot take. */
static int make_job(const bench_opts *o, job *j)
{
    memset(j, 0, sizeof *j);
    j->op = (xpose_reduce_op)o->reduce_op;
    j->type = XPOSE_F32;
    if (o->type_name && parse_dtype(o->type_name, &j->type))
        return CLI_EXIT_USAGE;
    j->n = o->n ? o->n : (size_t)1 << 26;
    j->es = j->type == XPOSE_F32 || j->type == XPOSE_I32 ? 4 : 8;
    if (j->n > ((size_t)1 << 40) / j->es) {
        fprintf(stderr, "xpose: --n %zu is more than this bench can hold (1 TiB)\n", j->n);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

int bench_reduce(const bench_opts *o, const bench_env *env, bench_result *res)
{
    job j;
    selection sel;
    int st = make_job(o, &j);
    if (st || (st = select_rows(o, env, &sel, &j.any_cpu, res)))
        return st;
    void *host = malloc(j.n * j.es);
    if (!host) {
        fprintf(stderr, "xpose: cannot allocate %.1f GiB for --n %zu\n", (double)(j.n * j.es) / 1073741824.0, j.n);
        return CLI_EXIT_USAGE;
    }
    xr_fill(j.type, XR_UNIFORM, host, j.n, o->seed);
    xr_expected(j.op, j.type, host, j.n, &j.want);
    j.host = host;
    note_add(res,
             "%s of %.8s, n=%zu: GB/s = bytes read / time; %%memcpy: of memcpy's GB/s (read + write) on the same "
             "bytes, this run; speedup: over cpu-reduce",
             op_names[j.op], o->type_name ? o->type_name : "float", j.n);
    char shape[48]; /* the widest shape cell: the copy rows' 1xN */
    res->setup++;
    if (!(st = result_start(res, o, snprintf(shape, sizeof shape, "1x%zu", j.n))))
        st = run_rows(o, &sel, &j, res);
    free(host);
    return st;
}
