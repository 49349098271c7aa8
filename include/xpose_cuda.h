/* xpose_cuda.h: stream-ordered CUDA entry points of xpose. Every build of libxpose exports them; one built
 * without CUDA returns XPOSE_ERR_NOT_BUILT. */
#ifndef XPOSE_CUDA_H
#define XPOSE_CUDA_H

#include "xpose.h"

/* The CUDA runtime's stream type where its headers are present; else the same opaque pointer type, so that a
 * program can include this header (and get XPOSE_ERR_NOT_BUILT back) without the CUDA toolkit. */
#if defined(__has_include)
#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#define XPOSE_CUDA_HEADERS_ 1
#endif
#endif
#ifndef XPOSE_CUDA_HEADERS_
typedef struct CUstream_st *cudaStream_t;
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Asynchronous on `stream`: argument checks happen now, the copy when the stream reaches it. src and dst must be
 * memory a kernel on the current device can dereference (device memory, managed memory, mapped pinned memory);
 * plain host memory returns XPOSE_ERR_POINTER and launches nothing. Returns XPOSE_OK or a negative xpose_status. */
XPOSE_API int xpose_transpose_cuda(const xpose_layout *lay, const void *src, void *dst, cudaStream_t stream);
XPOSE_API int xpose_transpose_variant_cuda(const char *variant, const xpose_layout *lay, const void *src, void *dst,
                                           cudaStream_t stream);

/* *result (device memory) := op over src[0..n) (device memory), ordered on `stream`. */
XPOSE_API int xpose_reduce_cuda(xpose_reduce_op op, xpose_dtype type, const void *src, size_t n, void *result,
                                cudaStream_t stream);
XPOSE_API int xpose_reduce_variant_cuda(const char *variant, xpose_reduce_op op, xpose_dtype type, const void *src,
                                        size_t n, void *result, cudaStream_t stream);

/* A permutation plan (xpose.h) run on `stream`; the plan's backend must be CUDA or AUTO. */
XPOSE_API int xpose_permute_execute_cuda(const xpose_permute_plan plan, const void *src, void *dst,
                                         cudaStream_t stream);

/* In-place transposes (xpose.h) ordered on `stream`: argument checks, the workspace size and its allocation
 * (cudaMallocAsync, when workspace is NULL) happen now, before anything is launched; the passes run when the stream
 * reaches them, and an allocated workspace is freed on the stream after them. data and a caller's workspace must be
 * memory the device can dereference (XPOSE_ERR_POINTER otherwise, nothing launched).
 * What a fault leaves: any status returned by the call itself comes before the first launch, with the data unchanged.
 * Once launched, the passes permute the data in place, so a launch failure between passes (XPOSE_ERR_CUDA returned
 * after the first pass was queued) or a fault during them (reported by a later synchronisation) leaves the buffer in
 * an unspecified state: a mix of the original and the transposed layouts, with elements possibly lost. Keep a copy
 * where the data cannot be recomputed. */
XPOSE_API int xpose_transpose_inplace_cuda(size_t rows, size_t cols, size_t elem_size, size_t batch, void *data,
                                           void *workspace, size_t workspace_bytes, cudaStream_t stream);
XPOSE_API int xpose_transpose_inplace_variant_cuda(const char *variant, size_t rows, size_t cols, size_t elem_size,
                                                   size_t batch, void *data, void *workspace, size_t workspace_bytes,
                                                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
