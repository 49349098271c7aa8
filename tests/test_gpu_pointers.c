/* test_gpu_pointers.c: the CUDA backend given memory the device cannot reach returns XPOSE_ERR_POINTER and launches
 * nothing, so the caller's CUDA context stays usable: the next valid call succeeds. Pinned and managed memory work. */
#include <string.h>
#include <cuda_runtime_api.h>
#include "gpu_mem.h"
#include "xpose_cuda.h"

enum { ROWS = 300, COLS = 517, N = ROWS * COLS };

/* Transposes a ROWS x COLS float matrix from src to dst (memory of any kind the host can read) and checks it. */
static void check_transpose_in(const char *what, float *src, float *dst, int expect_ok)
{
    xpose_layout l = {ROWS, COLS, 4, 0, 0, 0, 0, 0};
    for (int i = 0; i < N; i++)
        src[i] = (float)(i % 1009) - 3.5f;
    memset(dst, 0xA5, sizeof(float) * N);
    int st = xpose_transpose(XPOSE_BACKEND_CUDA, &l, src, dst);
    printf("%-40s xpose_transpose(CUDA): %d (%s)\n", what, st, xpose_strerror(st));
    CHECK_STATUS(st, expect_ok ? XPOSE_OK : XPOSE_ERR_POINTER, "%s", what);
    if (st != XPOSE_OK)
        return;
    int bad = 0;
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++)
            bad += dst[j * ROWS + i] != src[i * COLS + j];
    CHECK(bad == 0, "%s: %d elements wrong", what, bad);
}

int main(void)
{
    int st = xpose_cuda_status(), dev = 0, pageable = 0;
    if (st != XPOSE_OK) {
        printf("test_gpu_pointers: skipped: %s\n", xpose_strerror(st));
        return 77;
    }
    CHECK(cudaGetDevice(&dev) == cudaSuccess, "cudaGetDevice");
    cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev);
    printf("device %d reads pageable host memory: %s\n", dev, pageable ? "yes (malloc memory is accepted)" : "no");

    /* Plain host memory: refused before any launch (or, where the device reads pageable memory, done right). */
    float *hs = malloc(sizeof(float) * N), *hd = malloc(sizeof(float) * N), *d_src = NULL, *d_res = NULL;
    CHECK(hs && hd && cudaMalloc((void **)&d_src, sizeof(float) * N) == cudaSuccess &&
              cudaMalloc((void **)&d_res, 16) == cudaSuccess,
          "allocations");
    if (!hs || !hd || !d_src || !d_res)
        return t_finish("test_gpu_pointers");
    check_transpose_in("malloc src and dst", hs, hd, pageable);
    xpose_layout l = {ROWS, COLS, 4, 0, 0, 0, 0, 0};
    float *d_dst = NULL;
    CHECK(cudaMalloc((void **)&d_dst, sizeof(float) * N) == cudaSuccess, "cudaMalloc");
    int want = pageable ? XPOSE_OK : XPOSE_ERR_POINTER;
    CHECK_STATUS(xpose_transpose_cuda(&l, d_src, hd, 0), want, "device src, malloc dst, stream-ordered");
    CHECK_STATUS(xpose_transpose_cuda(&l, hs, d_dst, 0), want, "malloc src, device dst, stream-ordered");
    CHECK_STATUS(xpose_transpose_variant("shared-pad/16", &l, hs, d_dst), want, "a lab variant, malloc src");
    CHECK_STATUS(xpose_transpose_variant("memcpy", &l, hs, d_dst), want, "the memcpy row, malloc src");
    CHECK_STATUS(xpose_reduce(XPOSE_BACKEND_CUDA, XPOSE_SUM, XPOSE_F32, hs, N, d_res), want, "reduce, malloc src");
    CHECK_STATUS(xpose_reduce_cuda(XPOSE_MAX, XPOSE_F32, d_src, N, hd, 0), want, "reduce, malloc result");
    double r = 0;
    st = xpose_reduce(XPOSE_BACKEND_CUDA, XPOSE_SUM, XPOSE_F64, d_src, 0, &r);
    CHECK_STATUS(st, want, "reduce of nothing into a malloc result");
    printf("%-40s xpose_reduce(CUDA): %d (%s)\n", "malloc result", st, xpose_strerror(st));

    /* The context is still usable: no error is pending, and valid calls right after succeed and are right. */
    CHECK(cudaGetLastError() == cudaSuccess, "a CUDA error is pending after the refused calls");
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "the device reports an error after the refused calls");
    int ok = t_check_variant(&t_dev_mem, NULL, &l, 11, 0, 0);
    CHECK(ok == 1, "the valid call after the refused ones");
    printf("%-40s %s\n", "device memory right after", ok == 1 ? "transposed and verified" : "FAILED");
    float ones[64];
    for (int i = 0; i < 64; i++)
        ones[i] = 1.0f;
    float sum = 0;
    CHECK(cudaMemcpy(d_src, ones, sizeof ones, cudaMemcpyHostToDevice) == cudaSuccess, "upload");
    CHECK_STATUS(xpose_reduce(XPOSE_BACKEND_CUDA, XPOSE_SUM, XPOSE_F32, d_src, 64, d_res), XPOSE_OK, "valid reduce");
    CHECK(cudaMemcpy(&sum, d_res, sizeof sum, cudaMemcpyDeviceToHost) == cudaSuccess && sum == 64.0f,
          "valid reduce after the refused calls: %g, wanted 64", sum);

    /* Memory the device can reach at the same address: pinned (cudaMallocHost) and managed. */
    float *ps = NULL, *pd = NULL, *ms = NULL, *md = NULL;
    CHECK(cudaMallocHost((void **)&ps, sizeof(float) * N) == cudaSuccess &&
              cudaMallocHost((void **)&pd, sizeof(float) * N) == cudaSuccess,
          "cudaMallocHost");
    if (ps && pd)
        check_transpose_in("pinned src and dst (cudaMallocHost)", ps, pd, 1);
    CHECK(cudaMallocManaged((void **)&ms, sizeof(float) * N, cudaMemAttachGlobal) == cudaSuccess &&
              cudaMallocManaged((void **)&md, sizeof(float) * N, cudaMemAttachGlobal) == cudaSuccess,
          "cudaMallocManaged");
    if (ms && md)
        check_transpose_in("managed src and dst", ms, md, 1);
    CHECK(cudaGetLastError() == cudaSuccess, "a CUDA error is pending at the end");
    cudaFreeHost(ps), cudaFreeHost(pd), cudaFree(ms), cudaFree(md);
    cudaFree(d_src), cudaFree(d_dst), cudaFree(d_res);
    free(hs), free(hd);
    return t_finish("test_gpu_pointers");
}
