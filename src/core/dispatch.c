/* dispatch.c: the public entry points: check arguments, pick a variant, run it. */
#include <stdatomic.h>
#include <string.h>
#include "xp_dispatch.h"

/* Production variants, best first; the first one built is used. The library's own rows never change, so each
 * choice is looked up by name once and kept: a call costs no search over the registry. */
typedef struct production {
    const char *names[3];
    _Atomic(const xp_variant *) row; /* NULL until first looked up; then the row, or `none` */
} production;

static const xp_variant none; /* "looked up, nothing built" */
static production cpu_transpose = {{"cpu-fast", "cpu-blocked"}, NULL};
static production cuda_transpose = {{"fast", "unrolled", "shared-pad"}, NULL};
static production cpu_reduce = {{"cpu-reduce"}, NULL};
static production cuda_reduce = {{"reduce-fast"}, NULL};

static const xp_variant *production_row(production *p)
{
    const xp_variant *v = atomic_load_explicit(&p->row, memory_order_acquire);
    if (!v) {
        v = &none;
        for (size_t i = 0; i < XP_COUNT_OF(p->names) && p->names[i] && v == &none; i++) {
            int st;
            const xp_variant *r = xp_variant_lookup(p->names[i], &st);
            if (r && (r->family == XPOSE_FAMILY_REDUCE ? r->reduce != NULL : r->transpose != NULL))
                v = r;
        }
        atomic_store_explicit(&p->row, v, memory_order_release);
    }
    return v == &none ? NULL : v;
}

static int is_copy_dense(const xp_shape *s)
{
    return s->lds == s->cols && s->ldd == s->rows && s->ss == s->rows * s->cols && s->sd == s->ss;
}

int xp_run_shape(const xp_variant *v, const xp_shape *s, const void *src, void *dst, void *stream, int sync)
{
    int st;
    if ((st = xp_check_buffers(s, src, dst)) != XPOSE_OK)
        return st;
    if (!(v->elem_sizes & (unsigned)s->es))
        return XPOSE_ERR_UNSUPPORTED;
    if (v->family == XPOSE_FAMILY_COPY && !is_copy_dense(s))
        return XPOSE_ERR_UNSUPPORTED;
    if (v->backend == XPOSE_BACKEND_CUDA && (st = xp_cuda_probe()) != XPOSE_OK)
        return st;
    if (!v->transpose)
        return v->backend == XPOSE_BACKEND_CUDA ? XPOSE_ERR_NOT_BUILT : XPOSE_ERR_UNSUPPORTED;
    if (v->backend == XPOSE_BACKEND_CUDA && (st = xp_cuda_check_ptrs(src, dst)) != XPOSE_OK)
        return st;
    xp_call c;
    memset(&c, 0, sizeof c);
    c.s = *s;
    c.src = src;
    c.dst = dst;
    c.p0 = v->p0;
    c.p1 = v->p1;
    c.stream = stream;
    st = v->transpose(&c);
    if (st == XPOSE_OK && sync && v->backend == XPOSE_BACKEND_CUDA)
        st = xp_cuda_sync(stream);
    return st;
}

int xp_run_transpose(const xp_variant *v, const xpose_layout *lay, const void *src, void *dst, void *stream, int sync)
{
    if (v->family == XPOSE_FAMILY_REDUCE || v->family == XPOSE_FAMILY_INPLACE)
        return XPOSE_ERR_UNSUPPORTED;
    xp_shape s;
    int st = xp_layout_check(lay, &s);
    if (st != XPOSE_OK)
        return st;
    if (s.rows == 0 || s.cols == 0)
        return XPOSE_OK;
    return xp_run_shape(v, &s, src, dst, stream, sync);
}

int xp_run_reduce(const xp_variant *v, xpose_reduce_op op, xpose_dtype type, const void *src, size_t n, void *result,
                  void *stream, int sync)
{
    if (v->family != XPOSE_FAMILY_REDUCE)
        return XPOSE_ERR_UNSUPPORTED;
    if (op != XPOSE_SUM && op != XPOSE_MIN && op != XPOSE_MAX)
        return XPOSE_ERR_INVALID;
    size_t es = xp_dtype_size(type), bytes;
    if (es == 0)
        return XPOSE_ERR_INVALID;
    if (!result || (n > 0 && !src))
        return XPOSE_ERR_NULL;
    if (!xp_mul_size(n, es, &bytes) || bytes > (size_t)PTRDIFF_MAX)
        return XPOSE_ERR_OVERFLOW;
    if (n == 0 && op != XPOSE_SUM)
        return XPOSE_ERR_EMPTY;
    int st;
    if (v->backend == XPOSE_BACKEND_CUDA && (st = xp_cuda_probe()) != XPOSE_OK)
        return st;
    if (!v->reduce)
        return v->backend == XPOSE_BACKEND_CUDA ? XPOSE_ERR_NOT_BUILT : XPOSE_ERR_UNSUPPORTED;
    if (v->backend == XPOSE_BACKEND_CUDA && (st = xp_cuda_check_ptrs(n > 0 ? src : NULL, result)) != XPOSE_OK)
        return st;
    xp_reduce_call c = {op, type, n, src, result, v->p0, v->p1, stream};
    st = v->reduce(&c);
    if (st == XPOSE_OK && sync && v->backend == XPOSE_BACKEND_CUDA)
        st = xp_cuda_sync(stream);
    return st;
}

xpose_backend xp_resolve_backend(xpose_backend be, const void *ptr)
{
    if (be != XPOSE_BACKEND_AUTO)
        return be;
    return xp_cuda_probe() == XPOSE_OK && xp_cuda_is_device_ptr(ptr) ? XPOSE_BACKEND_CUDA : XPOSE_BACKEND_CPU;
}

int xpose_transpose(xpose_backend backend, const xpose_layout *lay, const void *src, void *dst)
{
    return xp_transpose_on(backend, lay, src, dst, NULL, 1);
}

int xp_production_transpose(xpose_backend backend, const xp_variant **v)
{
    int st;
    if (backend == XPOSE_BACKEND_CUDA && (st = xp_cuda_probe()) != XPOSE_OK)
        return st;
    *v = production_row(backend == XPOSE_BACKEND_CUDA ? &cuda_transpose : &cpu_transpose);
    if (!*v)
        return backend == XPOSE_BACKEND_CUDA ? XPOSE_ERR_NOT_BUILT : XPOSE_ERR_UNSUPPORTED;
    return XPOSE_OK;
}

int xp_transpose_on(xpose_backend backend, const xpose_layout *lay, const void *src, void *dst, void *stream, int sync)
{
    if (backend != XPOSE_BACKEND_AUTO && backend != XPOSE_BACKEND_CPU && backend != XPOSE_BACKEND_CUDA)
        return XPOSE_ERR_INVALID;
    const xp_variant *v;
    int st = xp_production_transpose(xp_resolve_backend(backend, src), &v);
    return st != XPOSE_OK ? st : xp_run_transpose(v, lay, src, dst, stream, sync);
}

int xpose_transpose_variant(const char *variant, const xpose_layout *lay, const void *src, void *dst)
{
    int st;
    const xp_variant *v = xp_variant_lookup(variant, &st);
    return v ? xp_run_transpose(v, lay, src, dst, NULL, 1) : st;
}

int xp_reduce_on(xpose_backend backend, xpose_reduce_op op, xpose_dtype type, const void *src, size_t n, void *result,
                 void *stream, int sync)
{
    if (backend != XPOSE_BACKEND_AUTO && backend != XPOSE_BACKEND_CPU && backend != XPOSE_BACKEND_CUDA)
        return XPOSE_ERR_INVALID;
    backend = xp_resolve_backend(backend, src ? src : result);
    int st;
    if (backend == XPOSE_BACKEND_CUDA && (st = xp_cuda_probe()) != XPOSE_OK)
        return st;
    const xp_variant *v = production_row(backend == XPOSE_BACKEND_CUDA ? &cuda_reduce : &cpu_reduce);
    if (!v)
        return backend == XPOSE_BACKEND_CUDA ? XPOSE_ERR_NOT_BUILT : XPOSE_ERR_UNSUPPORTED;
    return xp_run_reduce(v, op, type, src, n, result, stream, sync);
}

int xpose_reduce(xpose_backend backend, xpose_reduce_op op, xpose_dtype type, const void *src, size_t n, void *result)
{
    return xp_reduce_on(backend, op, type, src, n, result, NULL, 1);
}

int xpose_reduce_variant(const char *variant, xpose_reduce_op op, xpose_dtype type, const void *src, size_t n,
                         void *result)
{
    int st;
    const xp_variant *v = xp_variant_lookup(variant, &st);
    return v ? xp_run_reduce(v, op, type, src, n, result, NULL, 1) : st;
}
