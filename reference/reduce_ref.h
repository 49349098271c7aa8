/* reduce_ref.h: data, an independent reference and the documented error bound for reductions, shared by
 * `xpose bench --op reduce` and the reduction tests. */
#ifndef XPOSE_REDUCE_REF_H
#define XPOSE_REDUCE_REF_H

#include <stddef.h>
#include <stdint.h>
#include "xpose.h"

typedef enum {
    XR_UNIFORM,  /* floats in [-1, 1); integers over their whole range (so sums wrap) */
    XR_WIDE,     /* floats of random sign with exponents in [-20, 20]: cancellation, mixed magnitudes */
    XR_SMALL_INT /* whole numbers in [-1000, 1000]: float sums are exact in double, so exactly checkable */
} xr_data;

void xr_fill(xpose_dtype t, xr_data kind, void *buf, size_t n, uint64_t seed);

/* What a correct result is: `bits` exactly (integers, min/max, NaN/inf, sums known exact), or a float
 * sum within `tol` of the long double sum `sum` (docs/reductions.md states the bound). */
typedef struct xr_expect {
    int exact;
    unsigned char bits[8];
    long double sum, tol;
} xr_expect;

void xr_expected(xpose_reduce_op op, xpose_dtype t, const void *src, size_t n, xr_expect *e);

/* 1 when `got` (one element of type t) meets e. */
int xr_accepts(xpose_dtype t, const xr_expect *e, const void *got);

/* got and what was wanted, in words, for a failure message. */
void xr_describe(xpose_dtype t, const xr_expect *e, const void *got, char *buf, size_t len);

#endif
