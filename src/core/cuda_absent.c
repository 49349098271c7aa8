/* cuda_absent.c: what the core sees of CUDA when the CUDA backend is not built, and the stream-ordered entry
 * points of xpose_cuda.h, so that every build exports the same symbols (these return XPOSE_ERR_NOT_BUILT). */
#include "xp_permute.h"

int xp_cuda_probe(void) { return XPOSE_ERR_NOT_BUILT; }
int xp_cuda_is_device_ptr(const void *p)
{
    (void)p;
    return 0;
}
int xp_cuda_check_ptrs(const void *a, const void *b)
{
    (void)a, (void)b;
    return XPOSE_ERR_NOT_BUILT;
}
int xp_cuda_sync(void *stream)
{
    (void)stream;
    return XPOSE_OK;
}
int xp_cuda_alloc(size_t bytes, void *stream, void **p)
{
    (void)bytes, (void)stream;
    *p = NULL;
    return XPOSE_ERR_NOT_BUILT;
}
void xp_cuda_free(void *p, void *stream) { (void)p, (void)stream; }

int xp_cuda_permute(const xp_perm *p, const void *src, void *dst, void *stream)
{
    (void)p, (void)src, (void)dst, (void)stream;
    return XPOSE_ERR_NOT_BUILT;
}
int xp_cuda_permute_describe(const xp_perm *p, char *buf, size_t size)
{
    (void)p, (void)buf, (void)size;
    return XPOSE_ERR_NOT_BUILT;
}

/* Declared here with `void *` for cudaStream_t (a pointer to an opaque struct: the same ABI), since a CPU-only
 * build need not have the CUDA headers. */
XPOSE_API int xpose_transpose_cuda(const xpose_layout *lay, const void *src, void *dst, void *stream);
XPOSE_API int xpose_transpose_variant_cuda(const char *variant, const xpose_layout *lay, const void *src, void *dst,
                                           void *stream);
XPOSE_API int xpose_reduce_cuda(xpose_reduce_op op, xpose_dtype type, const void *src, size_t n, void *result,
                                void *stream);
XPOSE_API int xpose_reduce_variant_cuda(const char *variant, xpose_reduce_op op, xpose_dtype type, const void *src,
                                        size_t n, void *result, void *stream);
XPOSE_API int xpose_transpose_inplace_cuda(size_t rows, size_t cols, size_t elem_size, size_t batch, void *data,
                                           void *workspace, size_t workspace_bytes, void *stream);
XPOSE_API int xpose_transpose_inplace_variant_cuda(const char *variant, size_t rows, size_t cols, size_t elem_size,
                                                   size_t batch, void *data, void *workspace, size_t workspace_bytes,
                                                   void *stream);
XPOSE_API int xpose_permute_execute_cuda(const xpose_permute_plan plan, const void *src, void *dst, void *stream);

int xpose_transpose_cuda(const xpose_layout *lay, const void *src, void *dst, void *stream)
{
    (void)lay, (void)src, (void)dst, (void)stream;
    return XPOSE_ERR_NOT_BUILT;
}

int xpose_transpose_variant_cuda(const char *variant, const xpose_layout *lay, const void *src, void *dst, void *stream)
{
    (void)variant, (void)lay, (void)src, (void)dst, (void)stream;
    return XPOSE_ERR_NOT_BUILT;
}

int xpose_reduce_cuda(xpose_reduce_op op, xpose_dtype type, const void *src, size_t n, void *result, void *stream)
{
    (void)op, (void)type, (void)src, (void)n, (void)result, (void)stream;
    return XPOSE_ERR_NOT_BUILT;
}

int xpose_reduce_variant_cuda(const char *variant, xpose_reduce_op op, xpose_dtype type, const void *src, size_t n,
                              void *result, void *stream)
{
    (void)variant, (void)op, (void)type, (void)src, (void)n, (void)result, (void)stream;
    return XPOSE_ERR_NOT_BUILT;
}

int xpose_transpose_inplace_cuda(size_t rows, size_t cols, size_t elem_size, size_t batch, void *data, void *workspace,
                                 size_t workspace_bytes, void *stream)
{
    (void)rows, (void)cols, (void)elem_size, (void)batch, (void)data, (void)workspace, (void)workspace_bytes,
        (void)stream;
    return XPOSE_ERR_NOT_BUILT;
}

int xpose_transpose_inplace_variant_cuda(const char *variant, size_t rows, size_t cols, size_t elem_size, size_t batch,
                                         void *data, void *workspace, size_t workspace_bytes, void *stream)
{
    (void)variant, (void)rows, (void)cols, (void)elem_size, (void)batch, (void)data, (void)workspace,
        (void)workspace_bytes, (void)stream;
    return XPOSE_ERR_NOT_BUILT;
}

int xpose_permute_execute_cuda(const xpose_permute_plan plan, const void *src, void *dst, void *stream)
{
    (void)plan, (void)src, (void)dst, (void)stream;
    return XPOSE_ERR_NOT_BUILT;
}
