/* xp_dispatch.h: the checked runners behind the public entry points, shared with the CUDA entry points. */
#ifndef XP_DISPATCH_H
#define XP_DISPATCH_H

#include "xp_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks everything, then runs variant v; with sync, waits for CUDA work and reports its errors. */
int xp_run_transpose(const xp_variant *v, const xpose_layout *lay, const void *src, void *dst, void *stream, int sync);
int xp_run_reduce(const xp_variant *v, xpose_reduce_op op, xpose_dtype type, const void *src, size_t n, void *result,
                  void *stream, int sync);
/* Runs variant v on a checked, non-empty shape: buffers, element size, device, then the kernel. xp_run_transpose and
 * the permutations that are a 2-D transpose (xp_perm_as_shape) both end here, so they are one call. */
int xp_run_shape(const xp_variant *v, const xp_shape *s, const void *src, void *dst, void *stream, int sync);
/* CPU for AUTO unless CUDA is built, a device is present and ptr is device (or managed) memory. */
xpose_backend xp_resolve_backend(xpose_backend be, const void *ptr);
/* *v := the production transpose of backend CPU or CUDA (the first built of a fixed list), else the status saying
 * why there is none (CUDA: not built, no device). */
int xp_production_transpose(xpose_backend backend, const xp_variant **v);
/* The production variant of a backend (AUTO resolves by where src lives). */
int xp_transpose_on(xpose_backend backend, const xpose_layout *lay, const void *src, void *dst, void *stream, int sync);
int xp_reduce_on(xpose_backend backend, xpose_reduce_op op, xpose_dtype type, const void *src, size_t n, void *result,
                 void *stream, int sync);
/* The in-place transposes (src/core/inplace.c): one variant, and the backend's production one for the shape. */
int xp_run_inplace(const xp_variant *v, size_t rows, size_t cols, size_t es, size_t batch, void *data, void *ws,
                   size_t ws_bytes, void *stream, int sync);
int xp_inplace_on(xpose_backend backend, size_t rows, size_t cols, size_t es, size_t batch, void *data, void *ws,
                  size_t ws_bytes, void *stream, int sync);

/* Runs a permutation plan (src/core/permute.c): want AUTO runs it where the plan says (AUTO: by where src lives), want
 * CUDA insists on the GPU (XPOSE_ERR_INVALID for a CPU plan); with sync, waits for CUDA work. */
int xp_permute_on(const struct xpose_permute_plan_s *plan, xpose_backend want, const void *src, void *dst, void *stream,
                  int sync);

#ifdef __cplusplus
}
#endif
#endif
