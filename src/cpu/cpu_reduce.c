/* cpu_reduce.c: cpu-reduce, the CPU reduction: fixed slices over OpenMP threads, eight lanes per slice. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "../core/xp_internal.h"

/* The split into slices and lanes never depends on the thread count, and partials are combined in a fixed
 * pairwise order, so the result is the same bits for any number of threads. The depth of the float sum
 * tree is n / (SLICES * LANES) + 13, well inside the documented n / 256 + 64 (docs/variants.md, "Reductions"). */
#define SLICES 1024
#define LANES 8
#define SERIAL_BELOW ((size_t)1 << 16) /* below this, starting threads costs more than the sum */

/* Min and max keep `a` when it must win: NaN always wins, and -0 counts as below +0, so the result is
 * one exact value whatever the order of the elements (and the GPU gives the same bits). */
#define F_MIN(a, b) (((a) != (a) || (a) < (b) || ((a) == (b) && signbit(a))) ? (a) : (b))
#define F_MAX(a, b) (((a) != (a) || (a) > (b) || ((a) == (b) && !signbit(a))) ? (a) : (b))
#define I_MIN(a, b) ((a) <= (b) ? (a) : (b))
#define I_MAX(a, b) ((a) >= (b) ? (a) : (b))
#define ADD(a, b) ((a) + (b))

/* Every NaN result is the one quiet NaN, so CPU and GPU agree bit for bit. */
#define F_DONE(T, a) (isnan((T)(a)) ? (T)NAN : (T)(a))
#define I_DONE(T, a) ((T)(a))

/* NAME reduces T with accumulator A (double for float sums, unsigned for integer sums: wrapping is
 * defined there), starting each lane from ID, the operator's identity (-0.0 keeps the sum of -0s -0). */
#define XP_REDUCER_(NAME, T, A, ID, OP, DONE)                                                                          \
    static void NAME##_fold(A *v, int count)                                                                           \
    {                                                                                                                  \
        for (int w = count / 2; w > 0; w /= 2)                                                                         \
            for (int k = 0; k < w; k++)                                                                                \
                v[k] = OP(v[k], v[k + w]);                                                                             \
    }                                                                                                                  \
    static A NAME##_slice(const T *x, size_t n)                                                                        \
    {                                                                                                                  \
        A lane[LANES];                                                                                                 \
        for (int l = 0; l < LANES; l++)                                                                                \
            lane[l] = ID;                                                                                              \
        size_t i = 0;                                                                                                  \
        for (; i + LANES <= n; i += LANES)                                                                             \
            for (int l = 0; l < LANES; l++)                                                                            \
                lane[l] = OP(lane[l], (A)x[i + l]);                                                                    \
        for (int l = 0; i < n; i++, l++)                                                                               \
            lane[l] = OP(lane[l], (A)x[i]);                                                                            \
        NAME##_fold(lane, LANES);                                                                                      \
        return lane[0];                                                                                                \
    }                                                                                                                  \
    static void NAME(const void *src, size_t n, void *result)                                                          \
    {                                                                                                                  \
        const T *x = src;                                                                                              \
        A part[SLICES];                                                                                                \
        size_t q = n / SLICES, r = n % SLICES;                                                                         \
        _Pragma(                                                                                                       \
            "omp parallel for schedule(static) num_threads(xpose_get_threads()) if (n >= SERIAL_BELOW)") for (int k =  \
                                                                                                                  0;   \
                                                                                                              k <      \
                                                                                                              SLICES;  \
                                                                                                              k++)     \
        {                                                                                                              \
            size_t uk = (size_t)k, begin = uk * q + (uk < r ? uk : r);                                                 \
            part[k] = NAME##_slice(x + begin, q + (uk < r));                                                           \
        }                                                                                                              \
        NAME##_fold(part, SLICES);                                                                                     \
        T out = DONE(T, part[0]);                                                                                      \
        memcpy(result, &out, sizeof out);                                                                              \
    }

XP_REDUCER_(sum_f32, float, double, -0.0, ADD, F_DONE)
XP_REDUCER_(min_f32, float, float, INFINITY, F_MIN, F_DONE)
XP_REDUCER_(max_f32, float, float, -INFINITY, F_MAX, F_DONE)
XP_REDUCER_(sum_f64, double, double, -0.0, ADD, F_DONE)
XP_REDUCER_(min_f64, double, double, (double)INFINITY, F_MIN, F_DONE)
XP_REDUCER_(max_f64, double, double, -(double)INFINITY, F_MAX, F_DONE)
XP_REDUCER_(sum_i32, int32_t, uint32_t, 0u, ADD, I_DONE)
XP_REDUCER_(min_i32, int32_t, int32_t, INT32_MAX, I_MIN, I_DONE)
XP_REDUCER_(max_i32, int32_t, int32_t, INT32_MIN, I_MAX, I_DONE)
XP_REDUCER_(sum_i64, int64_t, uint64_t, 0u, ADD, I_DONE)
XP_REDUCER_(min_i64, int64_t, int64_t, INT64_MAX, I_MIN, I_DONE)
XP_REDUCER_(max_i64, int64_t, int64_t, INT64_MIN, I_MAX, I_DONE)

typedef void (*xp_reducer)(const void *src, size_t n, void *result);

int xp_cpu_reduce(const xp_reduce_call *c)
{
    /* Indexed [type][op], in the order of the xpose_dtype and xpose_reduce_op enums. */
    static const xp_reducer reducers[4][3] = {
        {sum_f32, min_f32, max_f32},
        {sum_f64, min_f64, max_f64},
        {sum_i32, min_i32, max_i32},
        {sum_i64, min_i64, max_i64},
    };
    size_t es = xp_dtype_size(c->type);
    if (es == 0 || (unsigned)c->op > XPOSE_MAX)
        return XPOSE_ERR_INVALID;
    if ((uintptr_t)c->src % es || (uintptr_t)c->result % es)
        return XPOSE_ERR_ALIGNMENT;
    if (c->n == 0) {
        memset(c->result, 0, es); /* the empty sum; dispatch refuses an empty min or max */
        return XPOSE_OK;
    }
    reducers[c->type][c->op](c->src, c->n, c->result);
    return XPOSE_OK;
}
