/* layout.c: argument checks and overflow-safe size math for every transpose entry point. */
#include <stdint.h>
#include "xp_internal.h"

int xp_mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

int xp_add_size(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a)
        return 0;
    *out = a + b;
    return 1;
}

size_t xp_dtype_size(xpose_dtype t)
{
    switch (t) {
    case XPOSE_F32:
    case XPOSE_I32: return 4;
    case XPOSE_F64:
    case XPOSE_I64: return 8;
    }
    return 0;
}

static int elem_size_ok(size_t es) { return es == 1 || es == 2 || es == 4 || es == 8 || es == 16; }

/* Elements spanned by `batch` members of `rows` rows of `cols` elements, `ld` and `stride` apart. */
static int span_elems(size_t batch, size_t stride, size_t rows, size_t ld, size_t cols, size_t *out)
{
    size_t a, b;
    if (!xp_mul_size(rows - 1, ld, &a) || !xp_add_size(a, cols, &a))
        return 0;
    if (!xp_mul_size(batch - 1, stride, &b) || !xp_add_size(a, b, out))
        return 0;
    return 1;
}

int xp_layout_check(const xpose_layout *lay, xp_shape *s)
{
    if (!lay)
        return XPOSE_ERR_NULL;
    if (!elem_size_ok(lay->elem_size))
        return XPOSE_ERR_ELEM_SIZE;
    s->rows = lay->rows;
    s->cols = lay->cols;
    s->es = lay->elem_size;
    s->batch = lay->batch ? lay->batch : 1;
    s->lds = lay->ld_src ? lay->ld_src : lay->cols;
    s->ldd = lay->ld_dst ? lay->ld_dst : lay->rows;
    s->src_bytes = s->dst_bytes = 0;
    s->ss = s->sd = 0;
    if (s->rows == 0 || s->cols == 0)
        return XPOSE_OK; /* empty: nothing to move, nothing else to check */
    if (s->lds < s->cols || s->ldd < s->rows)
        return XPOSE_ERR_LEADING_DIM;
    if (!xp_mul_size(s->rows, s->lds, &s->ss) || !xp_mul_size(s->cols, s->ldd, &s->sd))
        return XPOSE_ERR_OVERFLOW;
    if (lay->stride_src)
        s->ss = lay->stride_src;
    if (lay->stride_dst)
        s->sd = lay->stride_dst;
    size_t src_el, dst_el, one_dst;
    if (!span_elems(s->batch, s->ss, s->rows, s->lds, s->cols, &src_el) ||
        !span_elems(s->batch, s->sd, s->cols, s->ldd, s->rows, &dst_el) ||
        !span_elems(1, 0, s->cols, s->ldd, s->rows, &one_dst))
        return XPOSE_ERR_OVERFLOW;
    /* Source members may overlap (they are only read); destination members may not. */
    if (s->batch > 1 && s->sd < one_dst)
        return XPOSE_ERR_BATCH_STRIDE;
    if (!xp_mul_size(src_el, s->es, &s->src_bytes) || !xp_mul_size(dst_el, s->es, &s->dst_bytes))
        return XPOSE_ERR_OVERFLOW;
    /* Pointer arithmetic over the span must stay within ptrdiff_t. */
    if (s->src_bytes > (size_t)PTRDIFF_MAX || s->dst_bytes > (size_t)PTRDIFF_MAX)
        return XPOSE_ERR_OVERFLOW;
    return XPOSE_OK;
}

int xp_check_buffers(const xp_shape *s, const void *src, const void *dst)
{
    if (!src || !dst)
        return XPOSE_ERR_NULL;
    uintptr_t a = (uintptr_t)src, b = (uintptr_t)dst;
    if (a % s->es || b % s->es)
        return XPOSE_ERR_ALIGNMENT;
    /* Distances, not sums, so that ranges near the top of the address space cannot wrap. */
    if (a <= b ? b - a < s->src_bytes : a - b < s->dst_bytes)
        return XPOSE_ERR_OVERLAP;
    return XPOSE_OK;
}
