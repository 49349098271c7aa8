/* permute_ref.h: the plain N-d permutation that the tests and the CLI compare every permutation with. */
#ifndef XPOSE_PERMUTE_REF_H
#define XPOSE_PERMUTE_REF_H

#include <stddef.h>
#include <stdint.h>
#include "xpose.h"

/* A permutation as the public API describes it (xpose_permute_plan_create); NULL strides are dense. */
typedef struct xv_perm_desc {
    size_t es;
    int rank;
    const size_t *ext;
    const int *perm;
    const int64_t *src_strides, *dst_strides;
} xv_perm_desc;

/* The byte span the source is read from, [*src_lo, *src_hi) relative to src (negative strides read before it), and
 * the bytes from dst to one past the last destination byte; all 0 where an extent is 0. The description must be
 * valid (the library accepted it). */
void xv_permute_spans(const xv_perm_desc *d, int64_t *src_lo, int64_t *src_hi, size_t *dst_hi);

/* dst[j] := src[i] with i[perm[k]] = j[k], for every index j of the destination, one element at a time: the
 * definition, written with no canonical form, no tiles and no threads. */
void xv_permute_reference(const xv_perm_desc *d, const void *src, void *dst);

#endif
