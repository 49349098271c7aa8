/* test_dist.c: libxpose_dist under `mpirun -np P` (test_multigpu.sh): every method, even and uneven splits, shapes no
 * split divides, 1 x N and N x 1, every element size, padded leading dimensions, plan reuse, and arguments that
 * differ between ranks, which must give every rank the same error and leave dst untouched. */
#include <cuda_runtime_api.h>
#include <string.h>
#include "dist_env.h"
#include "testing.h"
#include "xpose_dist.h"

static dist_env de;

/* Byte b of the global A's element (i, j). */
static unsigned char a_byte(size_t i, size_t j, size_t b)
{
    uint64_t s = ((uint64_t)i << 32) ^ ((uint64_t)j << 5) ^ b;
    return (unsigned char)xv_splitmix(&s);
}

/* This rank's part of a split of total (counts NULL: even, as the library's). */
static void part(const size_t *counts, size_t total, size_t *off, size_t *n)
{
    size_t o = 0;
    for (int k = 0; k < de.rank; k++)
        o += counts ? counts[k] : total / de.size + ((size_t)k < total % de.size);
    *off = o;
    *n = counts ? counts[de.rank] : total / de.size + ((size_t)de.rank < total % de.size);
}

/* Every rank's verdict: 1 where all ranks' flag is 1. */
static int all_agree(int ok)
{
    int *d = NULL, v = ok ? 0 : 1;
    if (cudaMalloc((void **)&d, sizeof v) != cudaSuccess)
        return 0;
    cudaMemcpy(d, &v, sizeof v, cudaMemcpyHostToDevice);
    ncclAllReduce(d, d, 1, ncclInt32, ncclMax, de.comm, 0);
    cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost);
    cudaFree(d);
    return v == 0;
}

typedef struct dcase {
    size_t rows, cols, es;
    const size_t *src_rows, *dst_rows;
    size_t src_pad, dst_pad; /* extra elements per row beyond the matrix: padding that must stay poisoned */
    xpose_dist_method method;
    int oneshot, runs;
    int pool; /* dst from cudaMallocAsync (a memory pool: no IPC handle) */
} dcase;

/* Runs the case on fresh data into a poisoned dst (runs times, into a new dst each second run), and checks this
 * rank's block and its padding. */
static void run(const dcase *c)
{
    size_t r0, m, c0, n, es = c->es;
    part(c->src_rows, c->rows, &r0, &m);
    part(c->dst_rows, c->cols, &c0, &n);
    size_t sld = c->cols + c->src_pad, dld = c->rows + c->dst_pad;
    size_t sb = m * sld * es, db = n * dld * es;
    unsigned char *hs = malloc(sb + 1), *hd = malloc(db + 1), *src = NULL, *dst[2] = {NULL, NULL};
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < sld; j++)
            for (size_t b = 0; b < es; b++)
                hs[(i * sld + j) * es + b] = j < c->cols ? a_byte(r0 + i, j, b) : 0x5A;
    cudaMalloc((void **)&src, sb + 1);
    for (int k = 0; k < 2; k++)
        if (c->pool)
            cudaMallocAsync((void **)&dst[k], db + 1, 0);
        else
            cudaMalloc((void **)&dst[k], db + 1);
    cudaDeviceSynchronize();
    cudaMemcpy(src, hs, sb, cudaMemcpyHostToDevice);
    xpose_dist_plan plan = NULL;
    int st = XPOSE_OK;
    char what[160];
    snprintf(what, sizeof what, "%zux%zu e%zu pads %zu/%zu method %d%s%s%s", c->rows, c->cols, es, c->src_pad,
             c->dst_pad, (int)c->method, c->src_rows ? " uneven" : "", c->oneshot ? " one-shot" : "",
             c->pool ? " pool dst" : "");
    if (!c->oneshot)
        st = xpose_dist_plan_create(&plan, de.comm, c->rows, c->cols, es, c->src_rows, c->dst_rows, c->method);
    CHECK_STATUS(st, XPOSE_OK, "plan: %s", what);
    for (int k = 0; !st && k < (c->runs ? c->runs : 1); k++) {
        unsigned char *d = dst[k % 2];
        cudaMemset(d, 0xA5, db + 1);
        st = c->oneshot
                 ? xpose_dist_transpose(de.comm, c->rows, c->cols, es, c->src_rows, src, sld, c->dst_rows, d, dld, 0)
                 : xpose_dist_execute(plan, src, sld, d, dld, 0);
        CHECK_STATUS(st, XPOSE_OK, "run %d: %s", k, what);
        CHECK(cudaDeviceSynchronize() == cudaSuccess, "sync: %s", what);
        cudaMemcpy(hd, d, db + 1, cudaMemcpyDeviceToHost);
        size_t bad = 0, first = (size_t)-1;
        for (size_t jj = 0; jj < n; jj++)
            for (size_t i = 0; i < dld; i++)
                for (size_t b = 0; b < es; b++) {
                    unsigned char want = i < c->rows ? a_byte(i, c0 + jj, b) : 0xA5;
                    if (hd[(jj * dld + i) * es + b] != want && !bad++)
                        first = (jj * dld + i) * es + b;
                }
        bad += hd[db] != 0xA5;
        CHECK(bad == 0, "rank %d run %d: %s: %zu wrong bytes, the first at %zu", de.rank, k, what, bad, first);
    }
    xpose_dist_plan_destroy(plan);
    cudaDeviceSynchronize();
    cudaFree(src);
    for (int k = 0; k < 2; k++)
        if (c->pool)
            cudaFreeAsync(dst[k], 0);
        else
            cudaFree(dst[k]);
    cudaDeviceSynchronize();
    free(hs), free(hd);
}

/* Arguments that differ between ranks, or are bad on one: every rank returns `want`, and nothing is written. */
static void mismatch(const char *what, int want, size_t cols_here, size_t es_here, int null_dst_here,
                     const size_t *src_rows_here)
{
    size_t rows = 64, cols = 48, es = 4, r0, m, c0, n;
    part(NULL, rows, &r0, &m);
    part(NULL, cols, &c0, &n);
    unsigned char *src = NULL, *dst = NULL, probe[16];
    cudaMalloc((void **)&src, m * cols * es + 64);
    cudaMalloc((void **)&dst, n * rows * es + 64);
    cudaMemset(dst, 0xA5, n * rows * es + 64);
    int one = de.rank == de.size - 1; /* the rank that differs */
    size_t c = one ? cols_here : cols, e = one ? es_here : es;
    const size_t *sr = one ? src_rows_here : NULL;
    int st = xpose_dist_transpose(de.comm, rows, c, e, sr, src, 0, NULL, one && null_dst_here ? NULL : dst, 0, 0);
    CHECK_STATUS(st, want, "one-shot with %s on rank %d", what, de.size - 1);
    xpose_dist_plan plan = NULL;
    if (!null_dst_here) {
        st = xpose_dist_plan_create(&plan, de.comm, rows, c, e, sr, NULL, XPOSE_DIST_AUTO);
        CHECK_STATUS(st, want, "plan with %s on rank %d", what, de.size - 1);
        CHECK(plan == NULL, "a failed plan_create left a plan");
    }
    cudaDeviceSynchronize();
    cudaMemcpy(probe, dst, sizeof probe, cudaMemcpyDeviceToHost);
    int untouched = 1;
    for (size_t k = 0; k < sizeof probe; k++)
        untouched &= probe[k] == 0xA5;
    CHECK(untouched, "dst written although the ranks disagreed (%s)", what);
    CHECK(all_agree(1), "the ranks went on together after %s", what);
    cudaFree(src), cudaFree(dst);
}

int main(void)
{
    char why[256];
    if (dist_env_init(&de, why, sizeof why)) {
        fprintf(stderr, "test_dist: skipped: %s\n", why);
        return 77;
    }
    if (de.size < 2)
        fprintf(stderr, "test_dist: one process: the cases run, but nothing crosses GPUs (use mpirun -np 2)\n");
    size_t P = (size_t)de.size;
    size_t *uneven = calloc(P, sizeof *uneven), *uneven_t = calloc(P, sizeof *uneven_t), *lopsided = calloc(P, 8);
    /* 1000 rows: rank 0 gets 700, the rest share 300; 999 columns: rank 0 gets one; lopsided: all on the last. */
    for (size_t k = 0; k < P; k++) {
        uneven[k] = P == 1 ? 1000 : k == 0 ? 700 : 300 / (P - 1) + (k == 1 ? 300 % (P - 1) : 0);
        uneven_t[k] = P == 1 ? 999 : k == 0 ? 1 : 998 / (P - 1) + (k == 1 ? 998 % (P - 1) : 0);
        lopsided[k] = k == P - 1 ? 257 : 0;
    }
    const xpose_dist_method methods[3] = {XPOSE_DIST_NCCL, XPOSE_DIST_PEER, XPOSE_DIST_AUTO};
    const size_t sizes[5] = {1, 2, 4, 8, 16};
    for (int mi = 0; mi < 3; mi++) {
        xpose_dist_method me = methods[mi];
        for (int e = 0; e < 5; e++) {
            run(&(dcase){1024, 1024, sizes[e], NULL, NULL, 0, 0, me, 0, 2, 0});
            run(&(dcase){1001, 997, sizes[e], NULL, NULL, 0, 0, me, 0, 1, 0}); /* no split divides */
        }
        run(&(dcase){1000, 999, 4, uneven, uneven_t, 0, 0, me, 0, 3, 0});
        run(&(dcase){257, 300, 2, lopsided, NULL, 0, 0, me, 0, 1, 0}); /* ranks holding no rows of A */
        run(&(dcase){1, 4099, 4, NULL, NULL, 0, 0, me, 0, 1, 0});      /* 1 x N */
        run(&(dcase){4099, 1, 8, NULL, NULL, 0, 0, me, 0, 1, 0});      /* N x 1 */
        run(&(dcase){513, 771, 1, NULL, NULL, 3, 5, me, 0, 2, 0});     /* padded rows both sides */
        run(&(dcase){5, 3, 16, NULL, NULL, 1, 2, me, 0, 1, 0});        /* fewer rows than some ranks */
        run(&(dcase){4096, 3000, 4, NULL, NULL, 0, 0, me, 0, 2, 0});   /* several pipeline chunks */
        run(&(dcase){700, 900, 8, NULL, NULL, 0, 1, me, 0, 2, 1});     /* dst from a memory pool */
    }
    run(&(dcase){777, 555, 4, NULL, NULL, 0, 7, XPOSE_DIST_AUTO, 1, 2, 0});
    run(&(dcase){1000, 999, 2, uneven, uneven_t, 2, 0, XPOSE_DIST_AUTO, 1, 1, 0});
    if (de.size > 1) {
        mismatch("other columns", XPOSE_ERR_MISMATCH, 49, 4, 0, NULL);
        mismatch("another element size", XPOSE_ERR_MISMATCH, 48, 8, 0, NULL);
        mismatch("a bad element size", XPOSE_ERR_MISMATCH, 48, 3, 0, NULL);
        mismatch("a NULL dst", XPOSE_ERR_NULL, 48, 4, 1, NULL);
        size_t *bad = calloc(P, sizeof *bad);
        bad[0] = 64; /* every row on rank 0, where the others split evenly */
        mismatch("another split", XPOSE_ERR_MISMATCH, 48, 4, 0, bad);
        free(bad);
    }
    /* Bad input on every rank alike: the same status everywhere, from the agreement. */
    size_t short_split[1] = {3};
    xpose_dist_plan p = NULL;
    CHECK_STATUS(xpose_dist_plan_create(&p, de.comm, 64, 64, 4, P == 1 ? short_split : uneven, NULL, XPOSE_DIST_AUTO),
                 XPOSE_ERR_INVALID, "row counts that do not sum to rows");
    CHECK_STATUS(xpose_dist_plan_create(&p, de.comm, 64, 64, 5, NULL, NULL, XPOSE_DIST_AUTO), XPOSE_ERR_ELEM_SIZE,
                 "element size 5");
    CHECK_STATUS(xpose_dist_plan_create(&p, NULL, 64, 64, 4, NULL, NULL, XPOSE_DIST_AUTO), XPOSE_ERR_NULL, "no comm");
    CHECK_STATUS(xpose_dist_execute(NULL, NULL, 0, NULL, 0, 0), XPOSE_ERR_NULL, "no plan");
    free(uneven), free(uneven_t), free(lopsided);
    int failed = t_failures;
    CHECK(all_agree(!failed), "another rank's checks failed");
    dist_env_free(&de);
    char suite[32];
    snprintf(suite, sizeof suite, "test_dist rank %d", de.rank);
    return t_finish(suite);
}
