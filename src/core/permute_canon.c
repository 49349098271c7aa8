/* permute_canon.c: checks an N-d permutation and brings it to canonical form (xp_perm_canon), and recognises the
 * canonical forms that are a copy or a (batched) 2-D transpose (xp_perm_as_shape). */
#include <string.h>
#include "xp_permute.h"

/* Signed 64-bit arithmetic that reports overflow instead of wrapping: every size and offset of a permutation goes
 * through these, since a caller's strides may be anything up to INT64_MIN. */
static int mul_i64(int64_t a, int64_t b, int64_t *out) { return !__builtin_mul_overflow(a, b, out); }
static int add_i64(int64_t a, int64_t b, int64_t *out) { return !__builtin_add_overflow(a, b, out); }

/* One destination dimension while canonicalising: extent, source and destination strides in elements. */
typedef struct pdim {
    size_t ext;
    int64_t ss, ds;
} pdim;

static int elem_size_ok(size_t es) { return es == 1 || es == 2 || es == 4 || es == 8 || es == 16; }

/* perm names every axis of 0..rank-1 exactly once. */
static int perm_ok(int rank, const int *perm)
{
    uint32_t seen = 0; /* rank <= XPOSE_MAX_RANK == 32 */
    for (int k = 0; k < rank; k++) {
        if (perm[k] < 0 || perm[k] >= rank || (seen >> perm[k] & 1u))
            return 0;
        seen |= 1u << perm[k];
    }
    return 1;
}

/* Dense row-major strides of extents e[0..rank) into st; 0 where one overflows int64 (the product of the extents,
 * which the caller checked, bounds every stride, so this only guards the arithmetic). */
static int dense_strides(int rank, const size_t *e, int64_t *st)
{
    int64_t s = 1;
    for (int k = rank - 1; k >= 0; k--) {
        st[k] = s;
        if (k > 0 && !mul_i64(s, (int64_t)e[k], &s))
            return 0;
    }
    return 1;
}

/* Drops extent-1 dimensions (their strides never matter), sorts by destination stride, largest first (insertion
 * sort: rank <= 32, and the input is usually sorted already), and merges neighbours that are adjacent in both tensors:
 * d[k] and d[k+1] merge where stepping k is the same as stepping k+1 ext[k+1] times, in the source and in the
 * destination. A stride of 0 (broadcast) merges with another broadcast dimension, and negative strides merge too. */
static int canon_dims(pdim *d, int n)
{
    int m = 0;
    for (int k = 0; k < n; k++)
        if (d[k].ext != 1)
            d[m++] = d[k];
    for (int k = 1; k < m; k++) {
        pdim x = d[k];
        int j = k;
        for (; j > 0 && d[j - 1].ds < x.ds; j--)
            d[j] = d[j - 1];
        d[j] = x;
    }
    int r = 0;
    for (int k = 0; k < m; k++) {
        if (r > 0) {
            pdim *o = &d[r - 1];
            int64_t e = (int64_t)d[k].ext, ss, ds;
            if (mul_i64(d[k].ss, e, &ss) && mul_i64(d[k].ds, e, &ds) && ss == o->ss && ds == o->ds) {
                o->ext *= d[k].ext; /* cannot overflow: the product of all extents was checked */
                o->ss = d[k].ss;
                o->ds = d[k].ds;
                continue;
            }
        }
        d[r++] = d[k];
    }
    return r;
}

/* Destination injectivity: after sorting by destination stride, each stride must pass everything the faster
 * dimensions span, ds[k] > sum over m > k of (ext[m]-1) * ds[m]. That is sufficient (every element then has its own
 * address: the digits can be read back greedily) but not necessary: some interleavings, e.g. extents (2,3) with
 * strides (3,2), are injective too, and are refused, since a check that accepts every injective layout is a
 * subset-sum problem and no tensor library's views produce them. A stride <= 0 is refused here too: a dimension
 * of extent > 1 with stride 0 writes one place twice, and negative destination strides are not supported. On
 * success *span is that sum over all dimensions: the offset, in elements, of the last element written. */
static int dst_injective(const pdim *d, int r, int64_t *span)
{
    int64_t below = 0; /* sum over the faster dimensions */
    for (int k = r - 1; k >= 0; k--) {
        if (d[k].ds <= 0)
            return XPOSE_ERR_STRIDE;
        if (d[k].ds <= below)
            return XPOSE_ERR_STRIDE;
        int64_t t;
        if (!mul_i64((int64_t)d[k].ext - 1, d[k].ds, &t) || !add_i64(below, t, &below))
            return XPOSE_ERR_OVERFLOW;
    }
    *span = below;
    return XPOSE_OK;
}

/* The byte bounds of the source read (offsets from src, which points at element 0: negative strides read before it)
 * and of the destination written; each span must fit ptrdiff_t, as pointer arithmetic over it must. */
static int byte_bounds(const pdim *d, int r, size_t es, int64_t dst_span, xp_perm *out)
{
    int64_t lo = 0, hi = 0, t, span;
    for (int k = 0; k < r; k++) {
        if (!mul_i64((int64_t)d[k].ext - 1, d[k].ss, &t))
            return XPOSE_ERR_OVERFLOW;
        if (!(t < 0 ? add_i64(lo, t, &lo) : add_i64(hi, t, &hi)))
            return XPOSE_ERR_OVERFLOW;
    }
    const int64_t e = (int64_t)es;
    if (!mul_i64(lo, e, &out->src_lo) || !add_i64(hi, 1, &hi) || !mul_i64(hi, e, &out->src_hi) ||
        __builtin_sub_overflow(out->src_hi, out->src_lo, &span) || !add_i64(dst_span, 1, &t) || !mul_i64(t, e, &t))
        return XPOSE_ERR_OVERFLOW;
    out->dst_hi = (size_t)t;
    return XPOSE_OK;
}

/* The destination dimensions of a request: extents ext[perm[k]], the source strides of those axes, the destination
 * strides; NULL strides are dense. Checks that every extent and the element count fit (a size_t "extent" past
 * INT64_MAX is a negative number passed by mistake); *count gets the count, 0 where some extent is 0. */
static int dst_dims(size_t es, int rank, const size_t *ext, const int *perm, const int64_t *src_strides,
                    const int64_t *dst_strides, pdim *d, size_t *count)
{
    size_t n = 1, bytes;
    int zero = 0;
    for (int k = 0; k < rank; k++) {
        if (ext[k] > (size_t)INT64_MAX)
            return XPOSE_ERR_OVERFLOW;
        zero |= ext[k] == 0;
        if (!zero && !xp_mul_size(n, ext[k], &n))
            return XPOSE_ERR_OVERFLOW;
    }
    if (zero) {
        *count = 0;
        return XPOSE_OK;
    }
    if (!xp_mul_size(n, es, &bytes) || bytes > (size_t)INT64_MAX)
        return XPOSE_ERR_OVERFLOW;
    *count = n;
    int64_t sd[XPOSE_MAX_RANK], dd[XPOSE_MAX_RANK];
    size_t de[XPOSE_MAX_RANK];
    for (int k = 0; k < rank; k++)
        de[k] = ext[perm[k]];
    if ((!src_strides && !dense_strides(rank, ext, sd)) || (!dst_strides && !dense_strides(rank, de, dd)))
        return XPOSE_ERR_OVERFLOW;
    for (int k = 0; k < rank; k++) {
        d[k].ext = de[k];
        d[k].ss = src_strides ? src_strides[perm[k]] : sd[perm[k]];
        d[k].ds = dst_strides ? dst_strides[k] : dd[k];
    }
    return XPOSE_OK;
}

int xp_perm_canon(size_t es, int rank, const size_t *ext, const int *perm, const int64_t *src_strides,
                  const int64_t *dst_strides, xp_perm *out)
{
    if (!elem_size_ok(es))
        return XPOSE_ERR_ELEM_SIZE;
    if (rank < 1 || rank > XPOSE_MAX_RANK)
        return XPOSE_ERR_RANK;
    if (!ext || !perm)
        return XPOSE_ERR_NULL;
    if (!perm_ok(rank, perm))
        return XPOSE_ERR_PERM;
    pdim d[XPOSE_MAX_RANK];
    size_t count;
    int st = dst_dims(es, rank, ext, perm, src_strides, dst_strides, d, &count);
    if (st != XPOSE_OK)
        return st;
    xp_perm p;
    memset(&p, 0, sizeof p);
    p.es = es;
    if (count == 0) { /* nothing to move: no stride is looked at */
        *out = p;
        return XPOSE_OK;
    }
    int r = canon_dims(d, rank);
    if (r == 0) /* a single element: one dimension of extent 1 */
        d[r++] = (pdim){1, 1, 1};
    int64_t span;
    if ((st = dst_injective(d, r, &span)) != XPOSE_OK || (st = byte_bounds(d, r, es, span, &p)) != XPOSE_OK)
        return st;
    p.rank = r;
    p.count = count;
    for (int k = 0; k < r; k++) {
        p.ext[k] = d[k].ext;
        p.ss[k] = d[k].ss;
        p.ds[k] = d[k].ds;
    }
    *out = p;
    return XPOSE_OK;
}

/* A layout for xp_layout_check from element strides that must be positive (0 means "dense" there). */
static int positive(int64_t v) { return v > 0; }

int xp_perm_as_shape(const xp_perm *p, xp_shape *out)
{
    const int r = p->rank;
    if (r < 1 || r > 3 || p->ds[r - 1] != 1)
        return 0;
    /* Destination (batch, j, i) with i fastest; source (batch, i, j) with j fastest: dst(b, j, i) = src(b, i, j). */
    xpose_layout lay = {0, 0, p->es, 0, 0, 1, 0, 0};
    if (r == 1) {
        /* One dimension: a copy (both strides 1), a gather into a row (rows x 1 with pitch ss), or a scatter from a
         * row (1 x cols with pitch ds: but ds is 1 here). */
        if (!positive(p->ss[0]))
            return 0;
        lay.rows = p->ext[0];
        lay.cols = 1;
        lay.ld_src = (size_t)p->ss[0];
        if (p->ss[0] == 1) { /* a copy, as xp_shape_is_copy sees one: one row into a column of pitch 1 */
            lay.rows = 1;
            lay.cols = p->ext[0];
            lay.ld_src = 0;
            lay.ld_dst = 1;
        }
    } else {
        const int b = r == 3, j = r - 2, i = r - 1;
        if (p->ss[i] == 1 && r == 2) { /* batched copy of rows: batch j, each row of ext[i] elements */
            lay = (xpose_layout){1, p->ext[i], p->es, 0, 1, p->ext[j], 0, 0};
            if (!positive(p->ss[j]))
                return 0;
            lay.stride_src = (size_t)p->ss[j];
            lay.stride_dst = (size_t)p->ds[j];
        } else {
            if (p->ss[j] != 1 || !positive(p->ss[i]) || (b && !positive(p->ss[0])))
                return 0;
            lay.rows = p->ext[i];
            lay.cols = p->ext[j];
            lay.ld_src = (size_t)p->ss[i];
            lay.ld_dst = (size_t)p->ds[j];
            if (b) {
                lay.batch = p->ext[0];
                lay.stride_src = (size_t)p->ss[0];
                lay.stride_dst = (size_t)p->ds[0];
            }
        }
    }
    /* The transposes' own checks decide what their kernels take (leading dimensions at least the row, destination
     * members apart): a layout they refuse goes to the general kernels instead. */
    return xp_layout_check(&lay, out) == XPOSE_OK;
}
