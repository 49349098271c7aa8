/* gpu_mem.c: device memory for the GPU suites; every CUDA call is checked as a test assertion. */
#include <cuda_runtime_api.h>
#include "gpu_mem.h"

static void *d_alloc(size_t n)
{
    void *p = NULL;
    return cudaMalloc(&p, n ? n : 1) == cudaSuccess ? p : NULL;
}
static void d_free(void *p) { cudaFree(p); }
static void d_up(void *d, const void *h, size_t n)
{
    CHECK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice) == cudaSuccess, "upload");
}
static void d_down(void *h, const void *d, size_t n)
{
    CHECK(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost) == cudaSuccess, "download");
}
static void d_poison(void *d, size_t n) { CHECK(cudaMemset(d, XV_POISON, n) == cudaSuccess, "poison"); }

const t_mem t_dev_mem = {d_alloc, d_free, d_up, d_down, d_poison};
