/* gpu_overhead.c: the GPU rows of `xpose overhead`: host time per call of the stream-ordered entry point, of a bare
 * cudaMemcpyAsync of the same bytes, of a synchronous xpose_transpose (launch to result), and of xpose's argument and
 * pointer checks alone. */
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "cli.h"
#include "xpose_cuda.h"

/* Async calls enqueued per timed round: far below the launch queue's depth, so the host never waits for room. */
#define ASYNC_PER_ROUND 256

/* One call of kind `which` (0: xpose_transpose_cuda, 1: cudaMemcpyAsync, 2: xpose_transpose, 3: xpose's checks
 * alone: xpose_transpose_cuda with a host destination, refused after every check and before any launch). */
static int one_call(int which, const xpose_layout *l, const void *src, void *dst, size_t bytes, cudaStream_t s)
{
    static char host_dst[64];
    if (which == 3) {
        int st = xpose_transpose_cuda(l, src, host_dst, s);
        return st == XPOSE_ERR_POINTER ? XPOSE_OK : st == XPOSE_OK ? XPOSE_ERR_CUDA : st;
    }
    if (which == 0)
        return xpose_transpose_cuda(l, src, dst, s);
    if (which == 1)
        return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s) == cudaSuccess ? XPOSE_OK : XPOSE_ERR_CUDA;
    return xpose_transpose(XPOSE_BACKEND_CUDA, l, src, dst);
}

int gpu_overhead(const xpose_layout *l, int calls, int rounds, double us[4])
{
    size_t bytes = l->rows * l->cols * l->elem_size;
    void *src = NULL, *dst = NULL;
    cudaStream_t s = NULL;
    double *t = malloc(sizeof(double) * (size_t)rounds);
    int st = t && cudaMalloc(&src, bytes) == cudaSuccess && cudaMalloc(&dst, bytes) == cudaSuccess &&
                     cudaStreamCreate(&s) == cudaSuccess && cudaMemset(src, 3, bytes) == cudaSuccess
                 ? XPOSE_OK
                 : XPOSE_ERR_NO_MEMORY;
    for (int which = 0; which < 4 && st == XPOSE_OK; which++) {
        int per = which >= 2 || calls < ASYNC_PER_ROUND ? calls : ASYNC_PER_ROUND;
        for (int w = 0; w < 10 && st == XPOSE_OK; w++) /* warm-up: module load, first-call caches */
            st = one_call(which, l, src, dst, bytes, s);
        for (int r = 0; r < rounds && st == XPOSE_OK; r++) {
            if (cudaStreamSynchronize(s) != cudaSuccess) {
                st = XPOSE_ERR_CUDA;
                break;
            }
            double t0 = now_ms();
            for (int k = 0; k < per && st == XPOSE_OK; k++)
                st = one_call(which, l, src, dst, bytes, s);
            t[r] = (now_ms() - t0) * 1e3 / per;
        }
        if (st == XPOSE_OK && cudaStreamSynchronize(s) != cudaSuccess)
            st = XPOSE_ERR_CUDA;
        if (st == XPOSE_OK) {
            double spread;
            time_stats(t, rounds, &us[which], &spread);
        }
    }
    cudaGetLastError();
    if (s)
        cudaStreamDestroy(s);
    cudaFree(src);
    cudaFree(dst);
    free(t);
    return st;
}
