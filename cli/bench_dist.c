/* bench_dist.c: `mpirun -np P xpose bench --op dist`: the distributed transpose (libxpose_dist) by each method,
 * verified block by block on every rank, timed beside NCCL's all-to-all of the same bytes in the same run. */
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "cli.h"
#include "dist_env.h"
#include "verify.h"
#include "xpose_dist.h"

/* Element (i, j) of the global A, es bytes into e: every rank can make any part of A, and check any part of A^T,
 * alone. */
static inline void a_elem(size_t i, size_t j, size_t cols, size_t es, unsigned char *e)
{
    for (size_t h = 0; h < es; h += 8) {
        uint64_t s = (uint64_t)(i * cols + j) * 2 + (h >= 8), w = xv_splitmix(&s);
        for (size_t b = h; b < es && b < h + 8; b++)
            e[b] = (unsigned char)(w >> (8 * (b - h)));
    }
}

/* The all-to-all's byte b of the block rank `from` sends rank `to`. */
static inline unsigned char a2a_byte(int from, int to, size_t b)
{
    uint64_t s = ((uint64_t)from << 48) ^ ((uint64_t)to << 40) ^ b;
    return (unsigned char)xv_splitmix(&s);
}

typedef struct dist_case {
    dist_env *de;
    size_t rows, cols, es, m, n, r0, c0; /* this rank: m rows of A from r0, n rows of A^T from c0 */
    size_t a2a_bytes;                    /* the all-to-all: bytes to each rank */
    unsigned char *src, *dst, *sbuf, *rbuf, *host;
    xpose_dist_plan plan[2]; /* PEER, NCCL; NULL where it could not be made */
    cudaStream_t stream;
    cudaEvent_t t0, t1;
    double *flag; /* device: the barrier's and the times' all-reduces */
} dist_case;

static int check_cuda(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    fprintf(stderr, "xpose: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

static int setup(dist_case *c)
{
    int P = c->de->size, r = c->de->rank;
    c->m = c->rows / P + ((size_t)r < c->rows % P), c->n = c->cols / P + ((size_t)r < c->cols % P);
    c->r0 = c->rows / P * r + ((size_t)r < c->rows % P ? (size_t)r : c->rows % P);
    c->c0 = c->cols / P * r + ((size_t)r < c->cols % P ? (size_t)r : c->cols % P);
    c->a2a_bytes = c->rows * c->cols * c->es / ((size_t)P * P);
    size_t sb = c->m * c->cols * c->es, db = c->n * c->rows * c->es, ab = c->a2a_bytes * P;
    size_t hb = sb > db ? sb : db;
    hb = hb > ab ? hb : ab;
    if (check_cuda(cudaMalloc((void **)&c->src, sb ? sb : 1), "cudaMalloc src") ||
        check_cuda(cudaMalloc((void **)&c->dst, db ? db : 1), "cudaMalloc dst") ||
        check_cuda(cudaMalloc((void **)&c->sbuf, ab ? ab : 1), "cudaMalloc all-to-all") ||
        check_cuda(cudaMalloc((void **)&c->rbuf, ab ? ab : 1), "cudaMalloc all-to-all") ||
        check_cuda(cudaMalloc((void **)&c->flag, 64 * sizeof(double)), "cudaMalloc") ||
        check_cuda(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate") ||
        check_cuda(cudaEventCreate(&c->t0), "cudaEventCreate") ||
        check_cuda(cudaEventCreate(&c->t1), "cudaEventCreate"))
        return 1;
    if (!(c->host = malloc(hb ? hb : 1))) {
        fprintf(stderr, "xpose: out of host memory (%zu bytes)\n", hb);
        return 1;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < c->m; i++)
        for (size_t j = 0; j < c->cols; j++)
            a_elem(c->r0 + i, j, c->cols, c->es, c->host + (i * c->cols + j) * c->es);
    if (check_cuda(cudaMemcpy(c->src, c->host, sb, cudaMemcpyHostToDevice), "copy of A's block"))
        return 1;
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < ab; k++)
        c->host[k] = a2a_byte(r, (int)(k / (c->a2a_bytes ? c->a2a_bytes : 1)), k % (c->a2a_bytes ? c->a2a_bytes : 1));
    return check_cuda(cudaMemcpy(c->sbuf, c->host, ab, cudaMemcpyHostToDevice), "copy of the all-to-all's data");
}

static void teardown(dist_case *c)
{
    for (int k = 0; k < 2; k++)
        xpose_dist_plan_destroy(c->plan[k]);
    cudaDeviceSynchronize();
    cudaFree(c->src), cudaFree(c->dst), cudaFree(c->sbuf), cudaFree(c->rbuf), cudaFree(c->flag);
    if (c->stream)
        cudaStreamDestroy(c->stream);
    if (c->t0)
        cudaEventDestroy(c->t0), cudaEventDestroy(c->t1);
    free(c->host);
    (void)cudaGetLastError();
}

/* The rows: 0 dist peer, 1 dist nccl, 2 ncclAlltoAll, 3 grouped send/recv all-to-all. */
enum { ROW_PEER, ROW_NCCL, ROW_A2A, ROW_SENDRECV, NROWS };
static const char *const row_names[NROWS] = {"dist-peer", "dist-nccl", "nccl-alltoall", "nccl-sendrecv"};

static int run_row(dist_case *c, int k)
{
    int P = c->de->size;
    size_t n = c->a2a_bytes;
    switch (k) {
    case ROW_PEER:
    case ROW_NCCL: return xpose_dist_execute(c->plan[k], c->src, 0, c->dst, 0, c->stream);
    case ROW_A2A:
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
        return ncclAlltoAll(c->sbuf, c->rbuf, n, ncclInt8, c->de->comm, c->stream) == ncclSuccess ? 0 : XPOSE_ERR_COMM;
#else
        return XPOSE_ERR_NOT_BUILT;
#endif
    default:
        if (ncclGroupStart() != ncclSuccess)
            return XPOSE_ERR_COMM;
        for (int s = 0; s < P; s++)
            if (ncclSend(c->sbuf + n * s, n, ncclInt8, s, c->de->comm, c->stream) != ncclSuccess ||
                ncclRecv(c->rbuf + n * s, n, ncclInt8, s, c->de->comm, c->stream) != ncclSuccess)
                break;
        return ncclGroupEnd() == ncclSuccess ? 0 : XPOSE_ERR_COMM;
    }
}

/* One row run on poisoned output and checked in full: dist rows against A, the all-to-alls against the senders'
 * bytes. The verdict is every rank's (an all-reduce), so that rank 0 reports a wrong block anywhere. */
static int verify_row(dist_case *c, int k, int *status)
{
    int P = c->de->size, r = c->de->rank;
    int dist = k == ROW_PEER || k == ROW_NCCL;
    size_t bytes = dist ? c->n * c->rows * c->es : c->a2a_bytes * P, bad = 0;
    unsigned char *out = dist ? c->dst : c->rbuf;
    if (check_cuda(cudaMemset(out, 0xA5, bytes ? bytes : 1), "poison"))
        return 1;
    *status = run_row(c, k);
    if (!*status && check_cuda(cudaStreamSynchronize(c->stream), "the row's run"))
        *status = XPOSE_ERR_CUDA;
    if (!*status && check_cuda(cudaMemcpy(c->host, out, bytes, cudaMemcpyDeviceToHost), "copy back"))
        *status = XPOSE_ERR_CUDA;
    if (!*status && dist) {
#pragma omp parallel for schedule(static) reduction(+ : bad)
        for (size_t jj = 0; jj < c->n; jj++)
            for (size_t i = 0; i < c->rows; i++) {
                unsigned char want[16];
                a_elem(i, c->c0 + jj, c->cols, c->es, want);
                bad += memcmp(c->host + (jj * c->rows + i) * c->es, want, c->es) != 0;
            }
    } else if (!*status) {
#pragma omp parallel for schedule(static) reduction(+ : bad)
        for (size_t q = 0; q < bytes; q++)
            bad += c->host[q] != a2a_byte((int)(q / c->a2a_bytes), r, q % c->a2a_bytes);
    }
    double v[2] = {(double)bad, *status ? 1.0 : 0.0};
    if (check_cuda(cudaMemcpy(c->flag, v, sizeof v, cudaMemcpyHostToDevice), "copy") ||
        ncclAllReduce(c->flag, c->flag, 2, ncclFloat64, ncclMax, c->de->comm, c->stream) != ncclSuccess ||
        check_cuda(cudaMemcpy(v, c->flag, sizeof v, cudaMemcpyDeviceToHost), "copy"))
        return 1;
    if (!*status && v[1] > 0)
        *status = XPOSE_ERR_COMM;       /* another rank failed */
    return *status || v[0] > 0 ? 0 : 2; /* 2: right everywhere */
}

/* Every rank's stream drained, then the ranks in step. */
static int barrier(dist_case *c)
{
    return ncclAllReduce(c->flag, c->flag, 1, ncclFloat64, ncclMax, c->de->comm, c->stream) != ncclSuccess ||
           check_cuda(cudaStreamSynchronize(c->stream), "barrier");
}

/* reps rounds; in each, every row that ran once runs once more, timed by events on each rank; a run's time is the
 * slowest rank's (an all-reduce of the round's times). samples[k * reps + i]. */
static int time_rows(dist_case *c, const int *ok, int reps, double *samples)
{
    for (int i = -2; i < reps; i++) { /* two rounds of warm-up */
        double t[NROWS] = {0};
        for (int k = 0; k < NROWS; k++) {
            float ms = 0;
            if (!ok[k])
                continue;
            if (barrier(c) || check_cuda(cudaEventRecord(c->t0, c->stream), "event") || run_row(c, k) ||
                check_cuda(cudaEventRecord(c->t1, c->stream), "event") ||
                check_cuda(cudaEventSynchronize(c->t1), "the timed run") ||
                check_cuda(cudaEventElapsedTime(&ms, c->t0, c->t1), "event time"))
                return 1;
            t[k] = ms;
        }
        if (check_cuda(cudaMemcpy(c->flag, t, sizeof t, cudaMemcpyHostToDevice), "copy") ||
            ncclAllReduce(c->flag, c->flag, NROWS, ncclFloat64, ncclMax, c->de->comm, c->stream) != ncclSuccess ||
            check_cuda(cudaMemcpy(t, c->flag, sizeof t, cudaMemcpyDeviceToHost), "copy"))
            return 1;
        for (int k = 0; i >= 0 && k < NROWS; k++)
            samples[k * reps + i] = t[k];
    }
    return 0;
}

static int run_case(const bench_opts *o, dist_case *c, bench_result *res, int reps)
{
    int ok[NROWS] = {0}, status[NROWS] = {0}, right[NROWS] = {0};
    if (setup(c))
        return 1;
    status[ROW_PEER] =
        xpose_dist_plan_create(&c->plan[0], c->de->comm, c->rows, c->cols, c->es, NULL, NULL, XPOSE_DIST_PEER);
    status[ROW_NCCL] =
        xpose_dist_plan_create(&c->plan[1], c->de->comm, c->rows, c->cols, c->es, NULL, NULL, XPOSE_DIST_NCCL);
    for (int k = 0; k < NROWS; k++) {
        if (k > ROW_NCCL || !status[k]) {
            int v = verify_row(c, k, &status[k]);
            if (v == 1)
                return 1;
            right[k] = v == 2;
        }
        ok[k] = !status[k];
    }
    double *samples = calloc((size_t)NROWS * reps, sizeof *samples);
    if (!samples || time_rows(c, ok, reps, samples)) {
        free(samples);
        return 1;
    }
    for (int k = 0; c->de->rank == 0 && k < NROWS; k++) {
        char gpus[16];
        snprintf(gpus, sizeof gpus, "%dgpu", c->de->size); /* the process count, so that a CSV row says it */
        xpose_variant_info v = {.name = row_names[k],
                                .params = gpus,
                                .backend = XPOSE_BACKEND_CUDA,
                                .family = k <= ROW_NCCL ? XPOSE_FAMILY_TRANSPOSE : XPOSE_FAMILY_COPY};
        bench_row row;
        row_start(&row, &v, o, c->es);
        row.rows = c->rows, row.cols = c->cols;
        /* One GPU's share: its block of A, which each row reads once and moves once. */
        row.bytes = (double)c->rows * c->cols * c->es / c->de->size;
        row.status = status[k];
        row.verified = right[k];
        if (k <= ROW_NCCL && c->plan[k])
            xpose_dist_plan_describe(c->plan[k], row.plan, sizeof row.plan);
        snprintf(row.shape, sizeof row.shape, "%zux%zu on %d GPUs", c->rows, c->cols, c->de->size);
        if (ok[k])
            row_times(&row, samples + (size_t)k * reps, reps, 0);
        if (result_push(res, &row)) {
            free(samples);
            return 1;
        }
    }
    free(samples);
    return 0;
}

int bench_dist(const bench_opts *o, const bench_env *env, bench_result *res)
{
    (void)env;
    dist_env de;
    char why[256];
    if (dist_env_init(&de, why, sizeof why)) {
        fprintf(stderr, "xpose: --op dist: %s\n", why);
        return CLI_EXIT_USAGE;
    }
    int st = 0, reps = o->reps > 0 ? o->reps : 20;
    if (de.rank == 0) {
        result_hold(res); /* the all-to-all rows come after the dist rows, and they relate */
        st = result_start(res, o, 28);
        note_add(res,
                 "%d processes, one GPU each; times: the slowest rank's, median of %d; GB/s: one GPU's block of A "
                 "over the time; %% of memcpy: of the faster NCCL all-to-all of the same bytes",
                 de.size, reps);
    }
    size_t shapes = o->nsizes ? (size_t)o->nsizes : 1;
    for (size_t s = 0; !st && s < shapes; s++) {
        dist_case c;
        memset(&c, 0, sizeof c);
        c.de = &de;
        c.es = o->elem_size;
        c.rows = o->nsizes ? o->sizes[s] : o->rect ? o->rows : 16384;
        c.cols = o->nsizes ? o->sizes[s] : o->rect ? o->cols : 16384;
        st = run_case(o, &c, res, reps);
        teardown(&c);
        if (de.rank == 0) {
            result_release(res);
            result_hold(res);
        }
        res->setup++;
    }
    if (de.rank == 0)
        result_release(res);
    else
        res->out = NULL;
    dist_env_free(&de);
    return st;
}
