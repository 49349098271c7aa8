/* test_gpu_reduce.c (label gpu): every GPU reduction variant and the production path, every type and op,
 * at the CPU suite's sizes and larger; NaN, infinities, signed zeros; the same bits run after run and on
 * concurrent streams; and more than 2^31 int32 elements for reduce-fast and reduce-cub. Exits 77
 * (skipped) where no CUDA device is present. */
#include <string.h>
#include <cuda_runtime_api.h>
#include "reduce_cases.h"
#include "gpu_mem.h"
#include "xpose_cuda.h"

/* A fixed grid, a fixed fold order and no float atomics: three runs give the same bits. */
static void determinism(const rc_set *s)
{
    const size_t n = ((size_t)1 << 22) + 13;
    double *host = malloc(n * sizeof *host);
    if (!host) {
        CHECK(0, "cannot allocate");
        return;
    }
    for (int t = XPOSE_F32; t <= XPOSE_F64; t++) {
        xr_fill((xpose_dtype)t, XR_WIDE, host, n, 7 + (uint64_t)t);
        for (int k = 0; k <= s->count; k++) {
            const char *id = k < s->count ? s->ids[k] : NULL;
            uint64_t got[3] = {0, 0, 0};
            for (int r = 0; r < 3; r++)
                CHECK_STATUS(rc_run(&t_dev_mem, id, XPOSE_SUM, (xpose_dtype)t, host, n, 1, &got[r]), XPOSE_OK,
                             "%s run %d", id ? id : "production", r);
            CHECK(got[0] == got[1] && got[1] == got[2], "%s %s sum not reproducible: %016llx %016llx %016llx",
                  id ? id : "production", rc_type_names[t], (unsigned long long)got[0], (unsigned long long)got[1],
                  (unsigned long long)got[2]);
        }
    }
    free(host);
}

/* Two streams reducing different arrays at once, many calls deep: scratch memory must never be shared
 * between calls in flight, so every result equals the synchronous one. */
static void concurrent_streams(const rc_set *s)
{
    enum { CALLS = 16 };
    const size_t n = ((size_t)1 << 22) + 1;
    float *host = malloc(n * sizeof *host);
    void *src[2] = {t_dev_mem.alloc(n * 4), t_dev_mem.alloc(n * 4)},
         *res[2] = {t_dev_mem.alloc(CALLS * 4), t_dev_mem.alloc(CALLS * 4)};
    cudaStream_t st[2] = {NULL, NULL};
    if (!host || !src[0] || !src[1] || !res[0] || !res[1] || cudaStreamCreateWithFlags(&st[0], cudaStreamNonBlocking) ||
        cudaStreamCreateWithFlags(&st[1], cudaStreamNonBlocking)) {
        CHECK(0, "cannot set up two streams");
        goto out;
    }
    for (int a = 0; a < 2; a++) {
        xr_fill(XPOSE_F32, XR_UNIFORM, host, n, 40 + (uint64_t)a);
        t_dev_mem.upload(src[a], host, n * 4);
    }
    for (int k = 0; k < s->count; k++) {
        float want[2], got[2][CALLS];
        for (int a = 0; a < 2; a++)
            CHECK_STATUS(xpose_reduce_variant(s->ids[k], XPOSE_SUM, XPOSE_F32, src[a], n, (float *)res[a]), XPOSE_OK,
                         "%s", s->ids[k]);
        t_dev_mem.download(&want[0], res[0], 4), t_dev_mem.download(&want[1], res[1], 4);
        for (int c = 0; c < CALLS; c++)
            for (int a = 0; a < 2; a++)
                CHECK_STATUS(
                    xpose_reduce_variant_cuda(s->ids[k], XPOSE_SUM, XPOSE_F32, src[a], n, (float *)res[a] + c, st[a]),
                    XPOSE_OK, "%s on stream %d", s->ids[k], a);
        CHECK(cudaStreamSynchronize(st[0]) == cudaSuccess && cudaStreamSynchronize(st[1]) == cudaSuccess, "sync");
        t_dev_mem.download(got[0], res[0], sizeof got[0]), t_dev_mem.download(got[1], res[1], sizeof got[1]);
        int bad = 0;
        for (int c = 0; c < CALLS; c++)
            bad += memcmp(&got[0][c], &want[0], 4) != 0 || memcmp(&got[1][c], &want[1], 4) != 0;
        CHECK(bad == 0, "%s: %d of %d results on two concurrent streams differ from the synchronous ones", s->ids[k],
              bad, 2 * CALLS);
    }
out:
    for (int a = 0; a < 2; a++) {
        if (st[a])
            cudaStreamDestroy(st[a]);
        t_dev_mem.release(src[a]), t_dev_mem.release(res[a]);
    }
    free(host);
}

/* Element i of the > 2^31 array: values in [-2^19, 2^19), with the minimum planted last and the maximum
 * just past index 2^31, so only indexing that reaches them finds them. */
static int32_t huge_value(size_t i, size_t n)
{
    if (i == n - 1)
        return INT32_MIN;
    if (i == ((size_t)1 << 31) + 5)
        return INT32_MAX;
    return (int32_t)(((uint32_t)(i * 2654435761u) >> 12) & 0xFFFFFu) - 0x80000;
}

static void huge(const char *only)
{
    const size_t n = ((size_t)1 << 31) + 77, chunk = (size_t)1 << 24;
    int32_t *d = t_dev_mem.alloc(n * 4), *h = malloc(chunk * 4), *res = t_dev_mem.alloc(4);
    uint32_t sum = 0;
    if (!d || !h || !res) {
        printf("test_gpu_reduce: skipping the > 2^31 case: cannot allocate %zu bytes\n", n * 4);
        goto out;
    }
    for (size_t base = 0; base < n; base += chunk) {
        size_t m = n - base < chunk ? n - base : chunk;
        for (size_t i = 0; i < m; i++) {
            h[i] = huge_value(base + i, n);
            sum += (uint32_t)h[i];
        }
        t_dev_mem.upload(d + base, h, m * 4);
    }
    const int32_t want[3] = {(int32_t)sum, INT32_MIN, INT32_MAX};
    static const char *const ids[] = {"reduce-fast", "reduce-cub", NULL};
    int before = t_failures;
    for (int k = 0; k < 3; k++) {
        if (only && (!ids[k] || strncmp(ids[k], only, strlen(only))))
            continue;
        for (int op = XPOSE_SUM; op <= XPOSE_MAX; op++) {
            int32_t got = 0;
            int st = ids[k] ? xpose_reduce_variant(ids[k], (xpose_reduce_op)op, XPOSE_I32, d, n, res)
                            : xpose_reduce(XPOSE_BACKEND_AUTO, (xpose_reduce_op)op, XPOSE_I32, d, n, res);
            CHECK_STATUS(st, XPOSE_OK, "%s %s over 2^31 + 77", ids[k] ? ids[k] : "production", rc_op_names[op]);
            t_dev_mem.download(&got, res, 4);
            CHECK(st != XPOSE_OK || got == want[op], "%s %s over 2^31 + 77 int32: got %d, want %d",
                  ids[k] ? ids[k] : "production", rc_op_names[op], got, want[op]);
        }
    }
    printf("n = 2^31 + 77 int32 (reduce-fast, reduce-cub, production): %s\n", t_failures == before ? "ok" : "FAILED");
out:
    free(h);
    t_dev_mem.release(d), t_dev_mem.release(res);
}

int main(int argc, char **argv)
{
    int st = xpose_cuda_status();
    if (st != XPOSE_OK) {
        printf("test_gpu_reduce: skipped: %s\n", xpose_strerror(st));
        return 77;
    }
    const char *only = argc > 1 ? argv[1] : NULL; /* optional: only variants whose id starts with this */
    rc_set s;
    rc_collect(&s, &t_dev_mem, XPOSE_BACKEND_CUDA, only);
    CHECK(s.count > 0, "no GPU reduce variant matches '%s'", only ? only : "");
    /* --short (for the sanitizers): small sizes and the special values only; --no-huge: all but 2^31. */
    int short_run = argc > 2 && !strcmp(argv[2], "--short"), with_huge = !(argc > 2 && !strcmp(argv[2], "--no-huge"));
    rc_sweep(&s, short_run ? 4097 : ((size_t)1 << 22) + 5);
    rc_specials(&s);
    if (!short_run) {
        determinism(&s);
        concurrent_streams(&s);
    }
    if (!short_run && with_huge)
        huge(only);
    for (int k = 0; k < s.count; k++)
        printf("%s\n", s.ids[k]);
    return t_finish("test_gpu_reduce");
}
