/* xpose_cuda.h: stream-ordered CUDA entry points of xpose (optional; needs the CUDA runtime headers). */
#ifndef XPOSE_CUDA_H
#define XPOSE_CUDA_H

#include <cuda_runtime_api.h>
#include "xpose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Asynchronous on `stream`: argument checks happen now, the copy when the stream reaches it.
 * src and dst are device pointers. Returns XPOSE_OK or a negative xpose_status. */
XPOSE_API int xpose_transpose_cuda(const xpose_layout *lay, const void *src, void *dst, cudaStream_t stream);
XPOSE_API int xpose_transpose_variant_cuda(const char *variant, const xpose_layout *lay, const void *src, void *dst,
                                           cudaStream_t stream);

/* *result (device memory) := op over src[0..n) (device memory), ordered on `stream`. */
XPOSE_API int xpose_reduce_cuda(xpose_reduce_op op, xpose_dtype type, const void *src, size_t n, void *result,
                                cudaStream_t stream);
XPOSE_API int xpose_reduce_variant_cuda(const char *variant, xpose_reduce_op op, xpose_dtype type, const void *src,
                                        size_t n, void *result, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
