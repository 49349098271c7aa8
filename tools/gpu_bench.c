/* gpu_bench.c: the GPU side of `xpose bench`: device buffers, poison, verification and CUDA-event timing. */
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "cli.h"
#include "verify.h"
#include "xpose_cuda.h"

/* One shape at a time lives on the device; the CLI is single-threaded. */
static struct {
    void *src, *dst, *flush, *flush_sum, *host_out;
    size_t src_bytes, dst_bytes, flush_bytes;
    cudaStream_t stream;
} g;

int gpu_ready(char *why, size_t why_len)
{
    int st = xpose_cuda_status();
    if (st != XPOSE_OK) {
        snprintf(why, why_len, "%s", st == XPOSE_ERR_NO_DEVICE ? "no CUDA device visible (cudaGetDeviceCount found none)"
                                                               : xpose_strerror(st));
        return 0;
    }
    return 1;
}

void gpu_describe(char *buf, size_t len)
{
    struct cudaDeviceProp p;
    int drv = 0, rt = 0, dev = 0;
    if (xpose_cuda_status() != XPOSE_OK || cudaGetDevice(&dev) != cudaSuccess ||
        cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
        snprintf(buf, len, "none (no CUDA device visible)");
        return;
    }
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    snprintf(buf, len, "%s, sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB, driver CUDA %d.%d, runtime %d.%d", p.name,
             p.major, p.minor, p.multiProcessorCount, (double)p.totalGlobalMem / 1073741824.0,
             p.l2CacheSize >> 20, drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
}

void gpu_end_shape(void)
{
    cudaFree(g.src);
    cudaFree(g.dst);
    cudaFree(g.flush);
    cudaFree(g.flush_sum);
    free(g.host_out);
    if (g.stream)
        cudaStreamDestroy(g.stream);
    memset(&g, 0, sizeof g);
}

int gpu_begin_shape(const xpose_layout *lay, const void *host_src, size_t src_bytes, size_t dst_bytes)
{
    (void)lay;
    int dev = 0, l2 = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    g.src_bytes = src_bytes;
    g.dst_bytes = dst_bytes;
    g.flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
    g.host_out = malloc(dst_bytes);
    if (!g.host_out || cudaStreamCreate(&g.stream) != cudaSuccess || cudaMalloc(&g.src, src_bytes) != cudaSuccess ||
        cudaMalloc(&g.dst, dst_bytes) != cudaSuccess || cudaMalloc(&g.flush, g.flush_bytes) != cudaSuccess ||
        cudaMalloc(&g.flush_sum, 8) != cudaSuccess || cudaMemset(g.flush, 1, g.flush_bytes) != cudaSuccess ||
        cudaMemcpy(g.src, host_src, src_bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        cudaGetLastError();
        gpu_end_shape();
        return XPOSE_ERR_NO_MEMORY;
    }
    return XPOSE_OK;
}

/* One untimed run into a poisoned output, compared in full with the reference. */
static void verify_once(const char *id, const xpose_layout *lay, const void *want, size_t cmp_bytes, bench_row *row)
{
    size_t first;
    if (cudaMemsetAsync(g.dst, (int)XV_POISON, g.dst_bytes, g.stream) != cudaSuccess) {
        row->status = XPOSE_ERR_CUDA;
        return;
    }
    row->status = xpose_transpose_variant_cuda(id, lay, g.src, g.dst, g.stream);
    if (row->status == XPOSE_OK && cudaStreamSynchronize(g.stream) != cudaSuccess)
        row->status = XPOSE_ERR_CUDA;
    if (row->status == XPOSE_OK && cudaMemcpy(g.host_out, g.dst, g.dst_bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
        row->status = XPOSE_ERR_CUDA;
    if (row->status != XPOSE_OK) {
        cudaGetLastError();
        return;
    }
    row->verified = xv_compare(g.host_out, want, cmp_bytes, &first) == 0;
}

/* Times `reps` launches with events around each, after two warm-ups. Between launches, outside the timed
 * span, a buffer twice the L2 is summed: no run reads what the previous one left in cache, and (since the
 * flush only reads) none pays for writing back lines the flush dirtied. */
void gpu_time_variant(const char *id, const xpose_layout *lay, const void *want, size_t cmp_bytes, int reps,
                      bench_row *row)
{
    verify_once(id, lay, want, cmp_bytes, row);
    if (row->status != XPOSE_OK)
        return;
    cudaEvent_t *ev = malloc(sizeof(cudaEvent_t) * 2 * (size_t)reps);
    double *t = malloc(sizeof(double) * (size_t)reps);
    int made = 0, st = XPOSE_OK;
    if (!ev || !t) {
        row->status = XPOSE_ERR_NO_MEMORY;
        goto out;
    }
    for (; made < 2 * reps; made++)
        if (cudaEventCreate(&ev[made]) != cudaSuccess) {
            row->status = XPOSE_ERR_CUDA;
            goto out;
        }
    for (int w = 0; w < 2 && st == XPOSE_OK; w++)
        st = xpose_transpose_variant_cuda(id, lay, g.src, g.dst, g.stream);
    for (int k = 0; k < reps && st == XPOSE_OK; k++) {
        if ((st = xpose_reduce_cuda(XPOSE_SUM, XPOSE_I32, g.flush, g.flush_bytes / 4, g.flush_sum, g.stream)))
            break;
        cudaEventRecord(ev[2 * k], g.stream);
        st = xpose_transpose_variant_cuda(id, lay, g.src, g.dst, g.stream);
        cudaEventRecord(ev[2 * k + 1], g.stream);
    }
    if (st == XPOSE_OK && cudaStreamSynchronize(g.stream) != cudaSuccess)
        st = XPOSE_ERR_CUDA;
    if (st != XPOSE_OK) {
        row->status = st;
        goto out;
    }
    for (int k = 0; k < reps; k++) {
        float ms = 0;
        cudaEventElapsedTime(&ms, ev[2 * k], ev[2 * k + 1]);
        t[k] = ms;
    }
    row->reps = reps;
    time_stats(t, reps, &row->ms, &row->spread_pct);
out:
    for (int k = 0; k < made; k++)
        cudaEventDestroy(ev[k]);
    free(ev);
    free(t);
    cudaGetLastError();
}
