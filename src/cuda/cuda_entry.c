/* cuda_entry.c: the stream-ordered public entry points of xpose_cuda.h. */
#include "xpose_cuda.h"
#include "../core/xp_dispatch.h"

int xpose_transpose_cuda(const xpose_layout *lay, const void *src, void *dst, cudaStream_t stream)
{
    return xp_transpose_on(XPOSE_BACKEND_CUDA, lay, src, dst, (void *)stream, 0);
}

/* The named variant, if it is a CUDA one; else NULL with *st saying why. */
static const xp_variant *cuda_variant(const char *variant, int *st)
{
    const xp_variant *v = xp_variant_lookup(variant, st);
    if (v && v->backend != XPOSE_BACKEND_CUDA) {
        *st = XPOSE_ERR_INVALID;
        return NULL;
    }
    return v;
}

int xpose_transpose_variant_cuda(const char *variant, const xpose_layout *lay, const void *src, void *dst,
                                 cudaStream_t stream)
{
    int st;
    const xp_variant *v = cuda_variant(variant, &st);
    return v ? xp_run_transpose(v, lay, src, dst, (void *)stream, 0) : st;
}

int xpose_reduce_cuda(xpose_reduce_op op, xpose_dtype type, const void *src, size_t n, void *result,
                      cudaStream_t stream)
{
    return xp_reduce_on(XPOSE_BACKEND_CUDA, op, type, src, n, result, (void *)stream, 0);
}

int xpose_reduce_variant_cuda(const char *variant, xpose_reduce_op op, xpose_dtype type, const void *src, size_t n,
                              void *result, cudaStream_t stream)
{
    int st;
    const xp_variant *v = cuda_variant(variant, &st);
    return v ? xp_run_reduce(v, op, type, src, n, result, (void *)stream, 0) : st;
}

int xpose_transpose_inplace_cuda(size_t rows, size_t cols, size_t elem_size, size_t batch, void *data, void *workspace,
                                 size_t workspace_bytes, cudaStream_t stream)
{
    return xp_inplace_on(XPOSE_BACKEND_CUDA, rows, cols, elem_size, batch, data, workspace, workspace_bytes,
                         (void *)stream, 0);
}

int xpose_transpose_inplace_variant_cuda(const char *variant, size_t rows, size_t cols, size_t elem_size, size_t batch,
                                         void *data, void *workspace, size_t workspace_bytes, cudaStream_t stream)
{
    int st;
    const xp_variant *v = cuda_variant(variant, &st);
    return v ? xp_run_inplace(v, rows, cols, elem_size, batch, data, workspace, workspace_bytes, (void *)stream, 0)
             : st;
}

int xpose_permute_execute_cuda(const xpose_permute_plan plan, const void *src, void *dst, cudaStream_t stream)
{
    return xp_permute_on(plan, XPOSE_BACKEND_CUDA, src, dst, (void *)stream, 0);
}
