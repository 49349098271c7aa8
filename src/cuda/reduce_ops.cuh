/* reduce_ops.cuh: what every GPU reduction shares: the operators, the type/op dispatch, block combining,
 * the final store and stream-ordered scratch memory. */
#ifndef XP_REDUCE_OPS_CUH
#define XP_REDUCE_OPS_CUH

#include <limits>
#include <type_traits>
#include "reduce.h"
#include "xp_cuda_util.cuh"

/* Float sums accumulate in double, so the error stays far below one float ulp of the sum; integer sums
 * in unsigned arithmetic, which wraps modulo 2^32 / 2^64 by definition (signed overflow would not). */
template <class T> struct xr_sum_acc {
    typedef T type;
};
template <> struct xr_sum_acc<float> {
    typedef double type;
};
template <> struct xr_sum_acc<int32_t> {
    typedef uint32_t type;
};
template <> struct xr_sum_acc<int64_t> {
    typedef uint64_t type;
};

template <class T, class A> struct xr_op_base {
    typedef T value_t;
    typedef A acc_t;
    /* Every NaN result leaves as the one quiet NaN, so the CPU and the GPU agree bit for bit. */
    static __host__ __device__ __forceinline__ T finish(A a)
    {
        T r = static_cast<T>(a);
        if constexpr (std::is_floating_point<T>::value)
            if (r != r)
                r = std::numeric_limits<T>::quiet_NaN();
        return r;
    }
};

template <class T> struct xr_sum : xr_op_base<T, typename xr_sum_acc<T>::type> {
    typedef typename xr_sum_acc<T>::type A;
    /* -0.0, not +0.0: padding with it keeps the sum of -0s at -0. */
    static __host__ __device__ __forceinline__ A identity()
    {
        return std::is_floating_point<A>::value ? A(-0.0) : A(0);
    }
    static __device__ __forceinline__ A combine(A a, A b) { return a + b; }
};

/* Min and max keep `a` where it must win: NaN always wins and -0 counts below +0, so the result is one
 * exact value whatever the order in which the elements meet. */
template <class T> struct xr_min : xr_op_base<T, T> {
    static __host__ __device__ __forceinline__ T identity()
    {
        return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::max();
    }
    static __device__ __forceinline__ T combine(T a, T b)
    {
        if constexpr (std::is_floating_point<T>::value)
            return (a != a || a < b || (a == b && signbit(a))) ? a : b;
        else
            return a <= b ? a : b;
    }
};

template <class T> struct xr_max : xr_op_base<T, T> {
    static __host__ __device__ __forceinline__ T identity()
    {
        return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::lowest();
    }
    static __device__ __forceinline__ T combine(T a, T b)
    {
        if constexpr (std::is_floating_point<T>::value)
            return (a != a || a > b || (a == b && !signbit(a))) ? a : b;
        else
            return a >= b ? a : b;
    }
};

/* Folds x[0..N) pairwise into x[0]: N a power of two; a fixed, shallow order. */
template <class Op, int N> __device__ __forceinline__ typename Op::acc_t xr_fold_pairs(typename Op::acc_t *x)
{
#pragma unroll
    for (int w = N / 2; w > 0; w /= 2)
#pragma unroll
        for (int k = 0; k < w; k++)
            x[k] = Op::combine(x[k], x[k + w]);
    return x[0];
}

/* Calls f(Op()) with the operator struct of the call's type and op. */
template <class T, class F> int xr_with_op(xpose_reduce_op op, F &&f)
{
    switch (op) {
    case XPOSE_SUM: return f(xr_sum<T>());
    case XPOSE_MIN: return f(xr_min<T>());
    case XPOSE_MAX: return f(xr_max<T>());
    }
    return XPOSE_ERR_INVALID;
}

template <class F> int xr_dispatch(const xp_reduce_call *c, F &&f)
{
    switch (c->type) {
    case XPOSE_F32: return xr_with_op<float>(c->op, f);
    case XPOSE_F64: return xr_with_op<double>(c->op, f);
    case XPOSE_I32: return xr_with_op<int32_t>(c->op, f);
    case XPOSE_I64: return xr_with_op<int64_t>(c->op, f);
    }
    return XPOSE_ERR_INVALID;
}

static inline cudaStream_t xr_stream(const xp_reduce_call *c) { return (cudaStream_t)c->stream; }

/* What dispatch leaves to the variant: alignment (the kernels load whole elements) and the empty sum.
 * Returns 1 when the call is answered, with its status in *st. */
static inline int xr_prologue(const xp_reduce_call *c, int *st)
{
    size_t es = xp_dtype_size(c->type);
    if (es == 0) {
        *st = XPOSE_ERR_INVALID;
        return 1;
    }
    if ((uintptr_t)c->src % es || (uintptr_t)c->result % es) {
        *st = XPOSE_ERR_ALIGNMENT;
        return 1;
    }
    if (c->n == 0) {
        *st = xp_cuda_status_of(cudaMemsetAsync(c->result, 0, es, xr_stream(c)));
        return 1;
    }
    return 0;
}

/* A fixed shuffle tree: the same order every run, so float sums are bitwise reproducible. */
template <class Op> __device__ __forceinline__ typename Op::acc_t xr_warp_combine(typename Op::acc_t v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = Op::combine(v, __shfl_down_sync(0xffffffffu, v, o));
    return v;
}

/* The whole block's value, valid in thread 0. B is the block size, a multiple of 32 up to 1024. */
template <class Op, int B> __device__ __forceinline__ typename Op::acc_t xr_block_combine(typename Op::acc_t v)
{
    __shared__ typename Op::acc_t warp_part[B / 32];
    v = xr_warp_combine<Op>(v);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        warp_part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < B / 32 ? warp_part[lane] : Op::identity();
        v = xr_warp_combine<Op>(v);
    }
    return v;
}

/* A block's value goes to partials[blockIdx.x], or, from the last pass's only block, to the result. */
template <class Op> __device__ __forceinline__ void xr_store(void *out, typename Op::acc_t v, int final)
{
    if (final)
        *static_cast<typename Op::value_t *>(out) = Op::finish(v);
    else
        static_cast<typename Op::acc_t *>(out)[blockIdx.x] = v;
}

/* Scratch for partials, stream-ordered: from a per-device pool where the device has pools (no host sync,
 * safe across streams and threads), else cudaMalloc and a synchronising free. */
struct xr_scratch {
    void *p;
    int pooled;
};
int xr_scratch_get(size_t bytes, cudaStream_t s, xr_scratch *sc);
/* Frees after the work queued so far on s; returns `st`, or the free's error when st was XPOSE_OK. */
int xr_scratch_put(xr_scratch *sc, cudaStream_t s, int st);

#endif
