/* permute_ref.c: the plain N-d permutation: an odometer over the destination's indices, one element at a time. */
#include <string.h>
#include "permute_ref.h"

/* The strides of one tensor in destination order (dimension k of the destination): given, or dense row-major. */
static void strides_of(const xv_perm_desc *d, int64_t *ss, int64_t *ds)
{
    int64_t s = 1, t = 1;
    int64_t dense_src[XPOSE_MAX_RANK];
    for (int k = d->rank - 1; k >= 0; k--) {
        dense_src[k] = s;
        s *= (int64_t)d->ext[k];
        ds[k] = d->dst_strides ? d->dst_strides[k] : t;
        t *= (int64_t)d->ext[d->perm[k]];
    }
    for (int k = 0; k < d->rank; k++)
        ss[k] = d->src_strides ? d->src_strides[d->perm[k]] : dense_src[d->perm[k]];
}

void xv_permute_spans(const xv_perm_desc *d, int64_t *src_lo, int64_t *src_hi, size_t *dst_hi)
{
    int64_t ss[XPOSE_MAX_RANK], ds[XPOSE_MAX_RANK], lo = 0, hi = 0, top = 0;
    *src_lo = *src_hi = 0;
    *dst_hi = 0;
    for (int k = 0; k < d->rank; k++)
        if (d->ext[k] == 0)
            return;
    strides_of(d, ss, ds);
    for (int k = 0; k < d->rank; k++) {
        int64_t e = (int64_t)d->ext[d->perm[k]] - 1;
        if (ss[k] < 0)
            lo += e * ss[k];
        else
            hi += e * ss[k];
        top += e * ds[k];
    }
    *src_lo = lo * (int64_t)d->es;
    *src_hi = (hi + 1) * (int64_t)d->es;
    *dst_hi = (size_t)(top + 1) * d->es;
}

void xv_permute_reference(const xv_perm_desc *d, const void *src, void *dst)
{
    int64_t ss[XPOSE_MAX_RANK], ds[XPOSE_MAX_RANK];
    size_t j[XPOSE_MAX_RANK] = {0};
    for (int k = 0; k < d->rank; k++)
        if (d->ext[k] == 0)
            return;
    strides_of(d, ss, ds);
    const unsigned char *s = src;
    unsigned char *t = dst;
    const int64_t es = (int64_t)d->es;
    int64_t os = 0, od = 0; /* element offsets of index j */
    for (;;) {
        memcpy(t + od * es, s + os * es, d->es);
        int k = d->rank - 1;
        for (; k >= 0; k--) { /* the odometer: the last index turns fastest */
            if (++j[k] < d->ext[d->perm[k]]) {
                os += ss[k];
                od += ds[k];
                break;
            }
            os -= (int64_t)(j[k] - 1) * ss[k];
            od -= (int64_t)(j[k] - 1) * ds[k];
            j[k] = 0;
        }
        if (k < 0)
            return;
    }
}
