/* bench_reduce.c: `xpose bench --op reduce`: times every selected reduction on one random array, checks
 * each result against the reference within the documented bound, and relates it to memcpy of the same
 * bytes (GPU: the `memcpy` row; CPU: `cpu-memcpy`) and to cpu-reduce, all measured in this run. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
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

static void id_of(const xpose_variant_info *v, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s", v->name, v->params[0] ? "/" : "", v->params);
}

/* Whether the token p[0..len) names this row, as "name" (every parameter set) or "name/params". */
static int token_names(const char *p, size_t len, const xpose_variant_info *v)
{
    char id[96];
    id_of(v, id, sizeof id);
    return (len == strlen(v->name) && !strncmp(p, v->name, len)) || (len == strlen(id) && !strncmp(p, id, len));
}

/* Whether some token of the comma-separated list names this row. */
static int list_names(const char *list, const xpose_variant_info *v)
{
    for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
        if (token_names(p, strcspn(p, ","), v))
            return 1;
    return 0;
}

/* Every token must name a reduction: a typo or a transpose row is a usage error, not a silent skip. */
static int list_known(const char *list)
{
    xpose_variant_info v;
    for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
        int found = 0;
        for (int i = 0; i < xpose_variant_count() && !found; i++)
            found = xpose_variant_get(i, &v) == XPOSE_OK && v.family == XPOSE_FAMILY_REDUCE &&
                    token_names(p, strcspn(p, ","), &v);
        if (!found) {
            fprintf(stderr, "xpose: '%.*s' is no reduction (xpose list shows them, family reduce)\n",
                    (int)strcspn(p, ","), p);
            return CLI_EXIT_USAGE;
        }
    }
    return 0;
}

typedef struct pick {
    int idx[256], n;
} pick;

/* Reduce rows of the --variants list, or by default every reduce row of the chosen backends. */
static int pick_rows(const bench_opts *o, int gpu, pick *p)
{
    xpose_variant_info v;
    p->n = 0;
    if (o->variants && list_known(o->variants))
        return CLI_EXIT_USAGE;
    for (int i = 0; i < xpose_variant_count() && p->n < 256; i++) {
        if (xpose_variant_get(i, &v) != XPOSE_OK || v.family != XPOSE_FAMILY_REDUCE)
            continue;
        int cuda = v.backend == XPOSE_BACKEND_CUDA, take;
        if (o->variants)
            take = list_names(o->variants, &v);
        else if (o->backend == BE_ALL)
            take = 1;
        else if (o->backend == BE_AUTO)
            take = cuda == gpu;
        else
            take = cuda == (o->backend == BE_CUDA);
        if (take)
            p->idx[p->n++] = i;
    }
    if (p->n == 0)
        fprintf(stderr, "xpose: --variants names no reduction (xpose list shows them, family reduce)\n");
    return p->n ? 0 : CLI_EXIT_USAGE;
}

/* One array and what every row is judged and related by. */
typedef struct job {
    xpose_reduce_op op;
    xpose_dtype type;
    size_t n, es;
    const void *host;
    xr_expect want;
    int reps;
    int flush; /* CPU rows: read the cache-flush buffer before each timed run (not --warm) */
} job;

static void row_head(bench_row *row, const xpose_variant_info *v, const job *j)
{
    row_name(row, v);
    row->elem_size = j->es;
    row->batch = 1;
    /* A reduction shows n; a copy reference shows 1 x n. A reduction reads its bytes, a copy also writes. */
    row->rows = v->family == XPOSE_FAMILY_REDUCE ? j->n : 1;
    row->cols = v->family == XPOSE_FAMILY_REDUCE ? 1 : j->n;
    row->bytes = (v->family == XPOSE_FAMILY_REDUCE ? 1.0 : 2.0) * (double)j->n * (double)j->es;
}

/* One CPU call of a reduce-bench row: the reduction, or the copy of the same bytes (the memcpy reference). */
typedef struct cpu_call {
    const char *id;
    const job *j;
    int copy;
    xpose_layout lay; /* the copy's: 1 x n */
    void *copy_dst;
    uint64_t got;     /* the reduction's result */
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
    cpu_call c = {id, j, row->family == XPOSE_FAMILY_COPY, {1, j->n, j->es, 0, 0, 0, 0, 0}, copy_dst,
                  0xA7A7A7A7A7A7A7A7ull};
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
    if (st == XPOSE_OK) {
        row->reps = k;
        time_stats(t, k, &row->ms, &row->spread_pct);
    }
    free(t);
}
#endif

/* GB/s of every row; % of the same backend's memcpy row; speedup over cpu-reduce. */
static void relate(bench_result *r)
{
    const bench_row *base = NULL, *copy[3] = {NULL, NULL, NULL};
    for (size_t i = 0; i < r->count; i++) {
        bench_row *a = &r->rows[i];
        a->gbps = a->status == XPOSE_OK && a->ms > 0 ? a->bytes / (a->ms * 1e6) : 0;
        if (a->status == XPOSE_OK && a->family == XPOSE_FAMILY_COPY)
            copy[a->backend] = a;
        if (a->status == XPOSE_OK && !strcmp(a->variant, "cpu-reduce"))
            base = a;
    }
    for (size_t i = 0; i < r->count; i++) {
        bench_row *a = &r->rows[i];
        if (a->family != XPOSE_FAMILY_REDUCE || a->status != XPOSE_OK)
            continue;
        if (copy[a->backend] && copy[a->backend]->gbps > 0)
            a->pct_memcpy = 100.0 * a->gbps / copy[a->backend]->gbps;
        if (base)
            a->speedup = base->ms / a->ms;
    }
}

/* Times the picked rows plus the references (cpu-reduce, and memcpy of each backend timed). */
static void run_rows(const bench_opts *o, const pick *p, int gpu, job *j, bench_result *res)
{
    int rows[260], nrows = 0, any_cpu = 0, any_gpu = 0, base = xpose_variant_find("cpu-reduce");
    for (int k = 0; k < p->n; k++) {
        xpose_variant_info v;
        xpose_variant_get(p->idx[k], &v);
        if (v.backend == XPOSE_BACKEND_CUDA && !gpu)
            continue;
        any_cpu |= v.backend == XPOSE_BACKEND_CPU;
        any_gpu |= v.backend == XPOSE_BACKEND_CUDA;
        rows[nrows++] = p->idx[k];
    }
    if (any_gpu)
        rows[nrows++] = xpose_variant_find("memcpy");
    if (any_cpu)
        rows[nrows++] = xpose_variant_find("cpu-memcpy");
    int has_base = 0;
    for (int k = 0; k < nrows; k++)
        has_base |= rows[k] == base;
    if (!has_base && base >= 0)
        rows[nrows++] = base;
    void *host_dst = any_cpu ? malloc(j->n * j->es) : NULL;
    j->flush = any_cpu && !o->warm && cpu_flush_init() > 0;
#ifdef XPOSE_HAVE_CUDA
    gpu_side g;
    memset(&g, 0, sizeof g);
    if (any_gpu && gpu_setup(&g, j) != XPOSE_OK) {
        fprintf(stderr, "xpose: cannot place %zu elements (and a copy) on the GPU; GPU rows skipped\n", j->n);
        note_add(res, "GPU rows skipped: not enough device memory");
        any_gpu = 0;
    }
#endif
    for (int k = 0; k < nrows; k++) {
        xpose_variant_info v;
        char id[96];
        if (rows[k] < 0 || xpose_variant_get(rows[k], &v) != XPOSE_OK)
            continue;
        if ((v.backend == XPOSE_BACKEND_CUDA && !any_gpu) || (v.family == XPOSE_FAMILY_COPY && v.backend ==
                                                              XPOSE_BACKEND_CPU && !host_dst))
            continue;
        id_of(&v, id, sizeof id);
        if (isatty(2))
            fprintf(stderr, "\r%-60s", id), fflush(stderr);
        bench_row *row = result_add(res);
        if (!row)
            break;
        row_head(row, &v, j);
        j->reps = o->reps ? o->reps : v.backend == XPOSE_BACKEND_CUDA ? 50 : rows[k] == base && !any_cpu ? 3 : 5;
        if (v.backend == XPOSE_BACKEND_CPU)
            time_cpu(id, j, host_dst, row);
#ifdef XPOSE_HAVE_CUDA
        else
            time_gpu(id, j, &g, row);
#endif
    }
    if (isatty(2))
        fprintf(stderr, "\r%-60s\r", "");
#ifdef XPOSE_HAVE_CUDA
    if (any_gpu)
        gpu_free(&g);
#endif
    if (any_cpu)
        cpu_flush_note(res, !o->warm);
    cpu_flush_free();
    free(host_dst);
}

int bench_reduce(const bench_opts *o, bench_result *res)
{
    job j;
    memset(&j, 0, sizeof j);
    j.op = (xpose_reduce_op)o->reduce_op;
    j.type = XPOSE_F32;
    if (o->type_name && parse_dtype(o->type_name, &j.type))
        return CLI_EXIT_USAGE;
    j.n = o->n ? o->n : (size_t)1 << 26;
    j.es = j.type == XPOSE_F32 || j.type == XPOSE_I32 ? 4 : 8;
    char why[160] = "";
    int gpu = gpu_ready(why, sizeof why);
    pick p;
    if (pick_rows(o, gpu, &p))
        return CLI_EXIT_USAGE;
    if (j.n > ((size_t)1 << 40) / j.es) {
        fprintf(stderr, "xpose: --n %zu is more than this bench can hold (1 TiB)\n", j.n);
        return CLI_EXIT_USAGE;
    }
    void *host = malloc(j.n * j.es);
    if (!host) {
        fprintf(stderr, "xpose: cannot allocate %.1f GiB for --n %zu\n", (double)(j.n * j.es) / 1073741824.0, j.n);
        return CLI_EXIT_USAGE;
    }
    xr_fill(j.type, XR_UNIFORM, host, j.n, o->seed);
    xr_expected(j.op, j.type, host, j.n, &j.want);
    j.host = host;
    /* What the columns mean first; run_rows adds skipped GPU rows and how the CPU rows were timed. */
    note_add(res, "%s of %.8s, n=%zu: GB/s = bytes read / time; %%memcpy: of memcpy's GB/s (read + write) on the same "
             "bytes, this run; speedup: over cpu-reduce", op_names[j.op], o->type_name ? o->type_name : "float", j.n);
    if (!gpu && o->backend != BE_CPU)
        note_add(res, "GPU rows skipped: %s", why);
    run_rows(o, &p, gpu, &j, res);
    relate(res);
    report(stdout, o->format, res, o);
    int bad = 0;
    for (size_t i = 0; i < res->count; i++)
        bad |= res->rows[i].status != XPOSE_OK || !res->rows[i].verified;
    free(host);
    free(res->rows);
    return bad ? 1 : 0;
}
