/* cublas_geam.cu: the `cublas-geam` peer row: cuBLAS ?geam with op(A) = A^T, the GPU library reference. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <mutex>
#include "peers.h"

/* One handle per device, made once: creating a handle costs far more than a transpose. The mutex guards
 * the cache (the only shared state), and the handle is bound to the caller's stream per call under it. */
static std::mutex handle_lock;
static cublasHandle_t handles[64];

static cublasHandle_t handle_for_current_device(void)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64)
        return NULL;
    if (!handles[dev] && cublasCreate(&handles[dev]) != CUBLAS_STATUS_SUCCESS)
        handles[dev] = NULL;
    return handles[dev];
}

/* Row-major rows x cols with ld lds is column-major cols x rows; geam with op(A) = A^T writes the
 * column-major rows x cols result, which is our row-major cols x rows destination. As alpha * A with alpha = 1 (1 + 0i
 * for 16 bytes) it moves floating-point values, not bits, as cpu-openblas does (cpu_openblas.c says how). */
static cublasStatus_t geam_one(cublasHandle_t h, const xp_call *c, const char *src, char *dst)
{
    int m = (int)c->s.rows, n = (int)c->s.cols, lda = (int)c->s.lds, ldc = (int)c->s.ldd;
    switch (c->s.es) {
    case 4: {
        const float one = 1.0f, zero = 0.0f;
        return cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, (const float *)src, lda, &zero, (const float *)dst,
                           ldc, (float *)dst, ldc);
    }
    case 8: {
        const double one = 1.0, zero = 0.0;
        return cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, (const double *)src, lda, &zero,
                           (const double *)dst, ldc, (double *)dst, ldc);
    }
    default: {
        const cuDoubleComplex one = {1.0, 0.0}, zero = {0.0, 0.0};
        return cublasZgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, (const cuDoubleComplex *)src, lda, &zero,
                           (const cuDoubleComplex *)dst, ldc, (cuDoubleComplex *)dst, ldc);
    }
    }
}

extern "C" int xp_cuda_cublas_geam(const xp_call *c)
{
    /* cuBLAS takes int dimensions. */
    if (c->s.rows > INT32_MAX || c->s.cols > INT32_MAX || c->s.lds > INT32_MAX || c->s.ldd > INT32_MAX)
        return XPOSE_ERR_UNSUPPORTED;
    std::lock_guard<std::mutex> guard(handle_lock);
    cublasHandle_t h = handle_for_current_device();
    if (!h || cublasSetStream(h, (cudaStream_t)c->stream) != CUBLAS_STATUS_SUCCESS)
        return XPOSE_ERR_LIBRARY;
    for (size_t b = 0; b < c->s.batch; b++) {
        const char *src = (const char *)c->src + b * c->s.ss * c->s.es;
        char *dst = (char *)c->dst + b * c->s.sd * c->s.es;
        if (geam_one(h, c, src, dst) != CUBLAS_STATUS_SUCCESS)
            return XPOSE_ERR_LIBRARY;
    }
    return XPOSE_OK;
}
