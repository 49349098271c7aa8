/* test_gpu_permute_api.c: the permutation API on the GPU (the kernels themselves: test_gpu_permute.c): CUDA and AUTO
 * plans on device memory, synchronous and on a stream, one case per route (copy, fast's 2-D transpose, narrow shapes,
 * runs, tiles, strided views) against the plain reference with the destination and its guards poisoned; (1,0) is
 * xpose_transpose's call; plain host memory is refused before any launch. */
#include <string.h>
#include <cuda_runtime_api.h>
#include "gpu_mem.h"
#include "permute_ref.h"
#include "xpose_cuda.h"

#define GUARD 64 /* poisoned bytes either side of every destination */

typedef struct gcase {
    size_t es;
    int rank;
    size_t ext[6];
    int perm[6];
    int64_t ss[6]; /* source strides; ss[0] == 0 with dense set: NULL (dense) */
    int dense;
} gcase;

/* Runs the case three ways (a CUDA plan synchronously, the same plan on a stream, an AUTO plan picking the GPU by
 * the pointers) and compares every byte of the destination and its guards with the reference. */
static void run_case(const gcase *c, cudaStream_t stream)
{
    xv_perm_desc d = {c->es, c->rank, c->ext, c->perm, c->dense ? NULL : c->ss, NULL};
    int64_t lo, hi;
    size_t dh;
    xv_permute_spans(&d, &lo, &hi, &dh);
    const size_t sb = (size_t)(hi - lo), db = dh + 2 * GUARD;
    unsigned char *hsrc = malloc(sb), *want = malloc(db), *got = malloc(db), *dsrc = t_dev_mem.alloc(sb),
                  *ddst = t_dev_mem.alloc(db);
    CHECK(hsrc && want && got && dsrc && ddst, "allocations");
    if (!hsrc || !want || !got || !dsrc || !ddst)
        goto out;
    xv_fill_random(hsrc, sb, 17 * c->es + (unsigned)c->rank);
    xv_poison(want, db);
    xv_permute_reference(&d, hsrc - lo, want + GUARD);
    t_dev_mem.upload(dsrc, hsrc, sb);
    const unsigned char *src = dsrc - lo; /* element 0 */
    char how[256] = "";
    for (int way = 0; way < 3; way++) {
        xpose_permute_plan plan = NULL;
        int st = xpose_permute_plan_create(&plan, way == 2 ? XPOSE_BACKEND_AUTO : XPOSE_BACKEND_CUDA, c->es, c->rank,
                                           c->ext, c->perm, d.src_strides, NULL);
        CHECK_STATUS(st, XPOSE_OK, "plan, way %d", way);
        if (st != XPOSE_OK)
            continue;
        CHECK(xpose_permute_plan_describe(plan, XPOSE_BACKEND_CUDA, how, sizeof how) > 0, "describe");
        t_dev_mem.poison(ddst, db);
        if (way == 1) {
            st = xpose_permute_execute_cuda(plan, src, ddst + GUARD, stream);
            CHECK(cudaStreamSynchronize(stream) == cudaSuccess, "stream");
        } else
            st = xpose_permute_execute(plan, src, ddst + GUARD);
        CHECK_STATUS(st, XPOSE_OK, "execute, way %d: %s", way, how);
        t_dev_mem.download(got, ddst, db);
        size_t first = 0, bad = xv_compare(got, want, db, &first);
        CHECK(bad == 0, "way %d: %zu bytes differ, first at %zu of %zu: %s", way, bad, first, db, how);
        xpose_permute_plan_destroy(plan);
    }
    printf("ok: %s\n", how);
out:
    free(hsrc), free(want), free(got);
    if (dsrc)
        t_dev_mem.release(dsrc);
    if (ddst)
        t_dev_mem.release(ddst);
}

/* (1,0) of a device matrix: the bytes of xpose_transpose on the same layout. */
static void transpose_equivalence(void)
{
    const size_t rows = 1000, cols = 777, es = 2, n = rows * cols * es;
    const size_t ext[2] = {rows, cols};
    const int perm[2] = {1, 0};
    unsigned char *h = malloc(n), *a = malloc(n), *b = malloc(n), *ds = t_dev_mem.alloc(n), *dd = t_dev_mem.alloc(n);
    CHECK(h && a && b && ds && dd, "allocations");
    if (h && a && b && ds && dd) {
        xv_fill_random(h, n, 5);
        t_dev_mem.upload(ds, h, n);
        xpose_layout lay = {rows, cols, es, 0, 0, 0, 0, 0};
        t_dev_mem.poison(dd, n);
        CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CUDA, &lay, ds, dd), XPOSE_OK, "transpose");
        t_dev_mem.download(a, dd, n);
        t_dev_mem.poison(dd, n);
        CHECK_STATUS(xpose_permute(XPOSE_BACKEND_CUDA, es, 2, ext, perm, ds, NULL, dd, NULL), XPOSE_OK, "permute");
        t_dev_mem.download(b, dd, n);
        CHECK(memcmp(a, b, n) == 0, "(1,0) differs from xpose_transpose on the GPU");
    }
    free(h), free(a), free(b);
    if (ds)
        t_dev_mem.release(ds);
    if (dd)
        t_dev_mem.release(dd);
}

/* A CUDA plan given plain host memory: XPOSE_ERR_POINTER before any launch (where the device cannot read pageable
 * memory), and the context still works; an AUTO plan runs host memory on the CPU. */
static void host_memory(void)
{
    int dev = 0, pageable = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev);
    const size_t ext[3] = {40, 30, 20};
    const int perm[3] = {2, 0, 1};
    float *src = malloc(sizeof(float) * 24000), *dst = malloc(sizeof(float) * 24000),
          *want = malloc(sizeof(float) * 24000);
    xv_fill_random(src, sizeof(float) * 24000, 9);
    xv_perm_desc d = {4, 3, ext, perm, NULL, NULL};
    xv_permute_reference(&d, src, want);
    xpose_permute_plan cuda = NULL, autop = NULL;
    CHECK_STATUS(xpose_permute_plan_create(&cuda, XPOSE_BACKEND_CUDA, 4, 3, ext, perm, NULL, NULL), XPOSE_OK, "cuda");
    CHECK_STATUS(xpose_permute_plan_create(&autop, XPOSE_BACKEND_AUTO, 4, 3, ext, perm, NULL, NULL), XPOSE_OK, "auto");
    if (!pageable) {
        xv_poison(dst, sizeof(float) * 24000);
        CHECK_STATUS(xpose_permute_execute(cuda, src, dst), XPOSE_ERR_POINTER, "host memory on a CUDA plan");
        CHECK_STATUS(xpose_permute_execute_cuda(cuda, src, dst, NULL), XPOSE_ERR_POINTER, "host memory on a stream");
        CHECK_STATUS(xpose_permute_execute_cuda(autop, src, dst, NULL), XPOSE_ERR_POINTER, "host memory, AUTO plan");
    }
    xv_poison(dst, sizeof(float) * 24000);
    CHECK_STATUS(xpose_permute_execute(autop, src, dst), XPOSE_OK, "AUTO plan on host memory");
    CHECK(memcmp(dst, want, sizeof(float) * 24000) == 0, "AUTO plan on host memory: wrong result");
    xpose_permute_plan_destroy(cuda);
    xpose_permute_plan_destroy(autop);
    free(src), free(dst), free(want);
}

int main(void)
{
    int st = xpose_cuda_status();
    if (st != XPOSE_OK) {
        printf("test_gpu_permute_api: skipped: %s\n", xpose_strerror(st));
        return 77;
    }
    static const gcase cases[] = {
        {16, 2, {17, 19}, {0, 1}, {0}, 1},                              /* identity: a copy */
        {4, 4, {16, 40, 14, 14}, {0, 2, 3, 1}, {0}, 1},                 /* NCHW -> NHWC: fast, batched */
        {1, 3, {300, 200, 3}, {2, 0, 1}, {0}, 1},                       /* HWC -> CHW: narrow, not fast */
        {4, 2, {3, 50000}, {1, 0}, {0}, 1},                             /* CHW -> HWC */
        {2, 5, {4, 64, 3, 8, 32}, {2, 0, 3, 1, 4}, {0}, 1},             /* packed QKV: runs */
        {4, 4, {24, 24, 24, 24}, {3, 2, 1, 0}, {0}, 1},                 /* tiles */
        {8, 6, {2, 3, 4, 5, 6, 7}, {5, 1, 3, 0, 4, 2}, {0}, 1},         /* rank 6 */
        {4, 3, {30, 40, 5}, {1, 0, 2}, {-200, 5, 1}, 0},                /* a reversed view */
        {2, 3, {20, 33, 17}, {2, 1, 0}, {1200, 36, 1}, 0},              /* a padded sub-tensor */
        {4, 3, {9, 50, 60}, {2, 1, 0}, {0, 60, 1}, 0},                  /* a broadcast */
        {4, 1, {100000, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}, {3, 0}, 0}, /* a strided gather */
    };
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream) == cudaSuccess, "stream");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], stream);
    cudaStreamDestroy(stream);
    transpose_equivalence();
    host_memory();
    return t_finish("test_gpu_permute_api");
}
