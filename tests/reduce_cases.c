/* reduce_cases.c: the reduction cases both test suites run: sizes, data kinds, offsets and special values,
 * each result checked against reference/reduce_ref.c's reference, for every variant and the production path. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "reduce_cases.h"

const char *const rc_op_names[3] = {"sum", "min", "max"};
const char *const rc_type_names[4] = {"f32", "f64", "i32", "i64"};

static size_t tsize(xpose_dtype t) { return t == XPOSE_F32 || t == XPOSE_I32 ? 4 : 8; }

void rc_collect(rc_set *s, const t_mem *m, xpose_backend be, const char *only)
{
    unsigned mask;
    char id[96];
    s->mem = m;
    s->count = 0;
    for (int i = 0; s->count < 32 && t_variant_id(i, be, XPOSE_FAMILY_REDUCE, id, sizeof id, &mask); i++)
        if (!only || !strncmp(id, only, strlen(only)))
            snprintf(s->ids[s->count++], sizeof s->ids[0], "%s", id);
}

/* Runs on data already in place; the 16-byte result slot is poisoned first, and must come back with
 * exactly one element written. Returns the status; *spill counts poisoned bytes overwritten past it. */
static int run_placed(const t_mem *m, const char *id, xpose_reduce_op op, xpose_dtype t, const void *src, size_t n,
                      unsigned char *res, unsigned char got[16], size_t *spill)
{
    m->poison(res, 16);
    int st = id ? xpose_reduce_variant(id, op, t, src, n, res) : xpose_reduce(XPOSE_BACKEND_AUTO, op, t, src, n, res);
    *spill = 0;
    if (st == XPOSE_OK) {
        m->download(got, res, 16);
        for (size_t i = tsize(t); i < 16; i++)
            *spill += got[i] != XV_POISON;
    }
    return st;
}

int rc_run(const t_mem *m, const char *id, xpose_reduce_op op, xpose_dtype t, const void *host, size_t n, size_t off,
           void *got)
{
    size_t es = tsize(t), spill;
    unsigned char *src = m->alloc((n + off) * es), *res = m->alloc(16), out[16];
    int st = XPOSE_ERR_NO_MEMORY;
    if (src && res) {
        if (n)
            m->upload(src + off * es, host, n * es);
        st = run_placed(m, id, op, t, src + off * es, n, res, out, &spill);
        memcpy(got, out, es);
    }
    if (src)
        m->release(src);
    if (res)
        m->release(res);
    return st;
}

/* Places the data once, then checks every variant and op on it. */
static void check_all(const rc_set *s, xpose_dtype t, const void *host, size_t n, size_t off, const char *what)
{
    const t_mem *m = s->mem;
    size_t es = tsize(t);
    unsigned char *src = m->alloc((n + off) * es), *res = m->alloc(16);
    if (!src || !res) {
        CHECK(0, "cannot allocate %zu elements", n + off);
        goto out;
    }
    if (n)
        m->upload(src + off * es, host, n * es);
    for (int op = XPOSE_SUM; op <= XPOSE_MAX; op++) {
        xr_expect e;
        xr_expected((xpose_reduce_op)op, t, host, n, &e);
        for (int k = 0; k <= s->count; k++) {
            const char *id = k < s->count ? s->ids[k] : NULL;
            unsigned char got[16];
            size_t spill;
            int want = n == 0 && op != XPOSE_SUM ? XPOSE_ERR_EMPTY : XPOSE_OK;
            int st = run_placed(m, id, (xpose_reduce_op)op, t, src + off * es, n, res, got, &spill);
            CHECK_STATUS(st, want, "%s %s %s n=%zu %s", id ? id : "production", rc_op_names[op], rc_type_names[t], n,
                         what);
            if (st != XPOSE_OK)
                continue;
            char msg[200] = "";
            int ok = xr_accepts(t, &e, got);
            if (!ok)
                xr_describe(t, &e, got, msg, sizeof msg);
            CHECK(ok && spill == 0, "%s %s %s n=%zu off %zu %s: %s; %zu bytes written past the result",
                  id ? id : "production", rc_op_names[op], rc_type_names[t], n, off, what, msg, spill);
        }
    }
out:
    if (src)
        m->release(src);
    if (res)
        m->release(res);
}

/* Primes, and 2^k - 1, 2^k, 2^k + 1: no tile, warp, vector or slice size divides most of them. */
static const size_t sizes[] = {
    0,     1,     2,      3,      4,      5,       7,       8,       9,       13,      15,      16,     17,
    31,    32,    33,     61,     63,     64,      65,      127,     251,     255,     256,     257,    509,
    511,   512,   513,    1021,   1023,   1024,    1025,    4093,    4095,    4096,    4097,    65521,  65535,
    65536, 65537, 262139, 262143, 262145, 1000003, 1048575, 1048576, 1048577, 4194301, 4194303, 4194305};

void rc_sweep(const rc_set *s, size_t max_n)
{
    static const char *const kind_names[] = {"uniform", "wide", "whole"};
    for (int t = XPOSE_F32; t <= XPOSE_I64; t++)
        for (int kind = XR_UNIFORM; kind <= XR_SMALL_INT; kind++)
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] && sizes[k] <= max_n; k++) {
                size_t n = sizes[k];
                void *host = malloc(n ? n * tsize((xpose_dtype)t) : 1);
                if (!host) {
                    CHECK(0, "cannot allocate %zu host elements", n);
                    return;
                }
                xr_fill((xpose_dtype)t, (xr_data)kind, host, n, 1000 * k + 10 * (size_t)t + (size_t)kind);
                check_all(s, (xpose_dtype)t, host, n, k % 3, kind_names[kind]);
                free(host);
            }
}

/* Writes v, or a NaN with an odd payload (which must still come out as the one quiet NaN), as type t. */
static void set_f(xpose_dtype t, void *buf, size_t i, double v)
{
    if (t == XPOSE_F32) {
        float f = (float)v;
        memcpy((float *)buf + i, &f, sizeof f);
    } else {
        memcpy((double *)buf + i, &v, sizeof v);
    }
}

static void set_nan(xpose_dtype t, void *buf, size_t i, int kind)
{
    uint32_t f = kind ? 0xFFC00001u : 0x7F812345u; /* negative quiet, signalling */
    uint64_t d = kind ? 0xFFF8000000000123ull : 0x7FF0000000000001ull;
    if (t == XPOSE_F32)
        memcpy((float *)buf + i, &f, sizeof f);
    else
        memcpy((double *)buf + i, &d, sizeof d);
}

static void float_specials(const rc_set *s, xpose_dtype t)
{
    enum { N = 1000 };
    size_t es = tsize(t);
    unsigned char base[N * 8], buf[N * 8];
    xr_fill(t, XR_UNIFORM, base, N, 77);
    static const size_t nan_at[] = {0, 500, N - 1};
    for (int p = 0; p < 3; p++)
        for (int kind = 0; kind < 2; kind++) {
            memcpy(buf, base, N * es);
            set_nan(t, buf, nan_at[p], kind);
            check_all(s, t, buf, N, 1, "one NaN");
        }
    memcpy(buf, base, N * es);
    set_f(t, buf, 17, INFINITY);
    check_all(s, t, buf, N, 0, "+inf");
    set_f(t, buf, 17, -INFINITY);
    check_all(s, t, buf, N, 2, "-inf");
    set_f(t, buf, 900, INFINITY);
    check_all(s, t, buf, N, 0, "+inf and -inf");
    for (size_t i = 0; i < 37; i++)
        set_f(t, buf, i, -0.0);
    check_all(s, t, buf, 37, 1, "all -0");
    for (int first_neg = 0; first_neg < 2; first_neg++) { /* which zero meets the other first matters */
        for (size_t i = 0; i < 64; i++)
            set_f(t, buf, i, (i % 2 == 0) == first_neg ? -0.0 : 0.0);
        check_all(s, t, buf, 64, 0, first_neg ? "-0 and +0" : "+0 and -0");
    }
    set_nan(t, buf, 0, 1);
    check_all(s, t, buf, 1, 0, "a lone NaN");
    if (t == XPOSE_F32) {
        for (size_t i = 0; i < 5; i++)
            set_f(t, buf, i, FLT_MAX);
        check_all(s, t, buf, 5, 0, "a float sum past FLT_MAX");
    }
}

static void int_specials(const rc_set *s, xpose_dtype t)
{
    enum { N = 1001 };
    int64_t hi = t == XPOSE_I32 ? INT32_MAX : INT64_MAX, lo = t == XPOSE_I32 ? INT32_MIN : INT64_MIN;
    unsigned char buf[N * 8];
    int64_t pair[2] = {hi, 1};
    int32_t pair32[2] = {INT32_MAX, 1};
    check_all(s, t, t == XPOSE_I32 ? (void *)pair32 : (void *)pair, 2, 0, "a sum that wraps");
    xr_fill(t, XR_UNIFORM, buf, N, 78);
    if (t == XPOSE_I32) {
        int32_t a = (int32_t)hi, b = (int32_t)lo;
        memcpy(buf, &a, 4), memcpy(buf + (N - 1) * 4, &b, 4);
    } else {
        memcpy(buf, &hi, 8), memcpy(buf + (N - 1) * 8, &lo, 8);
    }
    check_all(s, t, buf, N, 1, "extremes at both ends");
}

void rc_specials(const rc_set *s)
{
    float_specials(s, XPOSE_F32);
    float_specials(s, XPOSE_F64);
    int_specials(s, XPOSE_I32);
    int_specials(s, XPOSE_I64);
}
