/* reduce_ref.c: reduction test data, and the reference every reduction result is judged by: long double
 * sums with the documented bound for floats, exact wrapping sums for integers, the NaN/zero rule for min
 * and max. Written element by element from the definitions, sharing nothing with the library. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "reduce_ref.h"
#include "verify.h"

static size_t type_size(xpose_dtype t) { return t == XPOSE_F32 || t == XPOSE_I32 ? 4 : 8; }
static int is_float(xpose_dtype t) { return t == XPOSE_F32 || t == XPOSE_F64; }

/* Element i as a long double or a 64-bit integer (by memcpy: result buffers need not be aligned), and a
 * value stored back as type t. */
static long double fget(xpose_dtype t, const void *src, size_t i)
{
    float f;
    double d;
    if (t == XPOSE_F32)
        return memcpy(&f, (const char *)src + i * sizeof f, sizeof f), (long double)f;
    return memcpy(&d, (const char *)src + i * sizeof d, sizeof d), (long double)d;
}

static int64_t iget(xpose_dtype t, const void *src, size_t i)
{
    int32_t a;
    int64_t b;
    if (t == XPOSE_I32)
        return memcpy(&a, (const char *)src + i * sizeof a, sizeof a), (int64_t)a;
    return memcpy(&b, (const char *)src + i * sizeof b, sizeof b), b;
}

static void fput(xpose_dtype t, long double v, void *dst)
{
    if (t == XPOSE_F32) {
        float f = isnan(v) ? NAN : (float)v;
        memcpy(dst, &f, sizeof f);
    } else {
        double d = isnan(v) ? (double)NAN : (double)v;
        memcpy(dst, &d, sizeof d);
    }
}

static void iput(xpose_dtype t, uint64_t v, void *dst)
{
    if (t == XPOSE_I32) {
        int32_t x = (int32_t)(uint32_t)v;
        memcpy(dst, &x, sizeof x);
    } else {
        int64_t x = (int64_t)v;
        memcpy(dst, &x, sizeof x);
    }
}

void xr_fill(xpose_dtype t, xr_data kind, void *buf, size_t n, uint64_t seed)
{
    uint64_t s = seed * 0x2545F4914F6CDD1Dull + 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = xv_splitmix(&s);
        long double f;
        if (kind == XR_SMALL_INT)
            f = (long double)(int64_t)(r % 2001) - 1000;
        else if (kind == XR_WIDE)
            f = ldexpl(1 + (long double)(r >> 40) / 16777216.0L, (int)((r >> 8) % 41) - 20) * (r & 1 ? -1 : 1);
        else
            f = (long double)(r >> 11) / 4503599627370496.0L - 1; /* 53 random bits over [-1, 1) */
        if (is_float(t))
            fput(t, f, (char *)buf + i * type_size(t));
        else
            iput(t, kind == XR_SMALL_INT ? (uint64_t)(int64_t)f : r, (char *)buf + i * type_size(t));
    }
}

static void int_expected(xpose_reduce_op op, xpose_dtype t, const void *src, size_t n, xr_expect *e)
{
    uint64_t sum = 0;
    int64_t best = op == XPOSE_MIN ? INT64_MAX : INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        int64_t x = iget(t, src, i);
        sum += (uint64_t)x; /* modulo 2^64, whose low 32 bits are the int32 sum modulo 2^32 */
        if (op == XPOSE_MIN ? x < best : x > best)
            best = x;
    }
    iput(t, op == XPOSE_SUM ? sum : (uint64_t)best, e->bits);
}

/* Min and max: any NaN gives NaN; otherwise the extreme value, -0 counting below +0. */
static void float_extreme(xpose_reduce_op op, xpose_dtype t, const void *src, size_t n, xr_expect *e)
{
    long double best = op == XPOSE_MIN ? INFINITY : -INFINITY;
    int nan = 0;
    for (size_t i = 0; i < n; i++) {
        long double x = fget(t, src, i);
        if (isnan(x))
            nan = 1;
        else if (x == best ? (signbit(x) != 0) == (op == XPOSE_MIN) : (x < best) == (op == XPOSE_MIN))
            best = x;
    }
    fput(t, nan ? NAN : best, e->bits);
}

/* Sums: NaN in, or +inf and -inf, give NaN; one infinity gives it; whole numbers below 2^20 sum exactly
 * in double in any order (one rounding to float at most); anything else is held to the bound. */
static void float_sum(xpose_dtype t, const void *src, size_t n, xr_expect *e)
{
    long double s = n ? -0.0L : 0.0L, mag = 0;
    int nan = 0, pinf = 0, ninf = 0, whole = n <= ((size_t)1 << 32);
    for (size_t i = 0; i < n; i++) {
        long double x = fget(t, src, i);
        if (isnan(x))
            nan = 1;
        else if (isinf(x))
            *(x > 0 ? &pinf : &ninf) = 1;
        else {
            s += x;
            mag += fabsl(x);
            whole &= x == floorl(x) && fabsl(x) <= 1048576.0L;
        }
    }
    long double gamma = ((long double)n / 256 + 64) * 0x1p-53L, ref_err = (long double)n * LDBL_EPSILON * mag;
    long double as_t = t == XPOSE_F32 ? (long double)(float)s : (long double)(double)s;
    if (nan || (pinf && ninf))
        fput(t, NAN, e->bits);
    else if (pinf || ninf)
        fput(t, pinf ? INFINITY : -INFINITY, e->bits);
    else if (whole || isinf(as_t))
        fput(t, s, e->bits);
    else {
        e->exact = 0;
        e->sum = s;
        e->tol = t == XPOSE_F32 ? 0x1p-24L * fabsl(s) + (1 + 0x1p-24L) * gamma * mag + FLT_TRUE_MIN : gamma * mag;
        e->tol += ref_err;
    }
}

void xr_expected(xpose_reduce_op op, xpose_dtype t, const void *src, size_t n, xr_expect *e)
{
    memset(e, 0, sizeof *e);
    e->exact = 1;
    if (!is_float(t))
        int_expected(op, t, src, n, e);
    else if (op == XPOSE_SUM)
        float_sum(t, src, n, e);
    else
        float_extreme(op, t, src, n, e);
}

int xr_accepts(xpose_dtype t, const xr_expect *e, const void *got)
{
    if (e->exact)
        return memcmp(got, e->bits, type_size(t)) == 0;
    long double g = fget(t, got, 0);
    return isfinite(g) && fabsl(g - e->sum) <= e->tol;
}

void xr_describe(xpose_dtype t, const xr_expect *e, const void *got, char *buf, size_t len)
{
    if (!is_float(t))
        snprintf(buf, len, "got %lld, want %lld", (long long)iget(t, got, 0), (long long)iget(t, e->bits, 0));
    else if (e->exact)
        snprintf(buf, len, "got %.17Lg, want exactly %.17Lg", fget(t, got, 0), fget(t, e->bits, 0));
    else
        snprintf(buf, len, "got %.17Lg, want %.17Lg within %.3Lg (off by %.3Lg)", fget(t, got, 0), e->sum, e->tol,
                 fabsl(fget(t, got, 0) - e->sum));
}
