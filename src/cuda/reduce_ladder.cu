/* reduce_ladder.cu: the seed 003 ladder (reduce-naive ... reduce-multiple): each step is one block-level
 * tree, run pass after pass over the block partials until a single block writes the result. */
#include <limits.h>
#include "reduce_ops.cuh"

#define XR_LADDER_BLOCK 256
#define XR_MULTIPLE_ITEMS 16 /* elements per thread in reduce-multiple */

template <class Op, class In> __device__ __forceinline__ typename Op::acc_t xr_load(const In *in, size_t i, size_t m)
{
    return i < m ? static_cast<typename Op::acc_t>(in[i]) : Op::identity();
}

/* What each thread brings to the tree. Steps 1-3: one element. Steps 4-5: two, a block apart, combined
 * while loading, so half the blocks do the same work. Step 6: XR_MULTIPLE_ITEMS, such pairs grid-strided. */
template <class Op, class In, int B, int Step>
__device__ __forceinline__ typename Op::acc_t xr_step_load(const In *in, size_t m)
{
    const unsigned t = threadIdx.x;
    if constexpr (Step <= XR_STEP_SEQUENTIAL)
        return xr_load<Op>(in, (size_t)blockIdx.x * B + t, m);
    size_t i = (size_t)blockIdx.x * (2 * B) + t;
    typename Op::acc_t x = Op::combine(xr_load<Op>(in, i, m), xr_load<Op>(in, i + B, m));
    if constexpr (Step == XR_STEP_MULTIPLE)
        for (i += (size_t)gridDim.x * (2 * B); i < m; i += (size_t)gridDim.x * (2 * B))
            x = Op::combine(x, Op::combine(xr_load<Op>(in, i, m), xr_load<Op>(in, i + B, m)));
    return x;
}

/* The last 64 -> 1 within one warp, without __syncthreads. Since Volta a warp's threads need not run in
 * step, so each read and each write is fenced by __syncwarp (the seed's bare `volatile` is a race now). */
template <class Op, int B> __device__ __forceinline__ void xr_last_warp(typename Op::acc_t *sm, unsigned t)
{
    volatile typename Op::acc_t *v = sm;
    typename Op::acc_t x = v[t];
#pragma unroll
    for (unsigned s = B >= 64 ? 32 : B / 2; s > 0; s >>= 1) {
        x = Op::combine(x, v[t + s]);
        __syncwarp();
        v[t] = x;
        __syncwarp();
    }
}

/* The block's tree over sm[0..B), ending in sm[0]. */
template <class Op, int B, int Step> __device__ __forceinline__ void xr_step_tree(typename Op::acc_t *sm, unsigned t)
{
    if constexpr (Step == XR_STEP_NAIVE) {
        /* Thread t works at every 2s-th slot: `t % (2s)` leaves most of each warp idle and diverged. */
        for (unsigned s = 1; s < B; s *= 2) {
            if (t % (2 * s) == 0)
                sm[t] = Op::combine(sm[t], sm[t + s]);
            __syncthreads();
        }
    } else if constexpr (Step == XR_STEP_STRIDE) {
        /* Working threads are contiguous (no divergence), but slot 2st strides the banks: conflicts. */
        for (unsigned s = 1; s < B; s *= 2) {
            unsigned k = 2 * s * t;
            if (k < B)
                sm[k] = Op::combine(sm[k], sm[k + s]);
            __syncthreads();
        }
    } else {
        /* Sequential addressing: the lower half folds in the upper half. From step 5 on, the last warp
         * goes without __syncthreads; B is a template constant, so every level is unrolled. */
        constexpr unsigned stop = Step >= XR_STEP_UNROLL ? 32 : 0;
        for (unsigned s = B / 2; s > stop; s >>= 1) {
            if (t < s)
                sm[t] = Op::combine(sm[t], sm[t + s]);
            __syncthreads();
        }
        if (stop && t < 32)
            xr_last_warp<Op, B>(sm, t);
    }
}

/* One step of the ladder: load into shared memory, the step's tree, thread 0 stores the block's value. */
template <class Op, class In, int B, int Step> __global__ void __launch_bounds__(B)
    k_step(const In *in, size_t m, void *out, int final)
{
    __shared__ typename Op::acc_t sm[B];
    sm[threadIdx.x] = xr_step_load<Op, In, B, Step>(in, m);
    __syncthreads();
    xr_step_tree<Op, B, Step>(sm, threadIdx.x);
    if (threadIdx.x == 0)
        xr_store<Op>(out, sm[0], final);
}

template <class Op, class In> using xr_step_fn = void (*)(const In *, size_t, void *, int);

template <class Op, class In, int B> static xr_step_fn<Op, In> step_kernel(int step)
{
    switch (step) {
    case XR_STEP_NAIVE: return k_step<Op, In, B, XR_STEP_NAIVE>;
    case XR_STEP_STRIDE: return k_step<Op, In, B, XR_STEP_STRIDE>;
    case XR_STEP_SEQUENTIAL: return k_step<Op, In, B, XR_STEP_SEQUENTIAL>;
    case XR_STEP_FIRST_ADD: return k_step<Op, In, B, XR_STEP_FIRST_ADD>;
    case XR_STEP_UNROLL: return k_step<Op, In, B, XR_STEP_UNROLL>;
    default: return k_step<Op, In, B, XR_STEP_MULTIPLE>;
    }
}

/* Elements one block of a step takes in. */
static size_t step_span(int step, size_t block)
{
    if (step <= XR_STEP_SEQUENTIAL)
        return block;
    return step == XR_STEP_MULTIPLE ? block * XR_MULTIPLE_ITEMS : 2 * block;
}

/* Pass 1 reads the input (type T); later passes read the partials (type A), ping-ponging between two
 * buffers (pass k + 2 needs no more room than pass k); the pass with one block writes the result. */
template <class Op, int B> static int run_ladder(const xp_reduce_call *c, int step)
{
    typedef typename Op::value_t T;
    typedef typename Op::acc_t A;
    cudaStream_t s = xr_stream(c);
    const size_t span = step_span(step, B), b1 = (c->n + span - 1) / span, b2 = (b1 + span - 1) / span;
    if (b1 > INT_MAX)
        return XPOSE_ERR_UNSUPPORTED;
    if (b1 == 1) {
        step_kernel<Op, T, B>(step)<<<1, B, 0, s>>>(static_cast<const T *>(c->src), c->n, c->result, 1);
        return xp_cuda_launch_status();
    }
    xr_scratch sc;
    int st = xr_scratch_get((b1 + b2) * sizeof(A), s, &sc);
    if (st != XPOSE_OK)
        return st;
    A *buf[2] = {static_cast<A *>(sc.p), static_cast<A *>(sc.p) + b1};
    step_kernel<Op, T, B>(step)<<<(unsigned)b1, B, 0, s>>>(static_cast<const T *>(c->src), c->n, buf[0], 0);
    st = xp_cuda_launch_status();
    for (size_t m = b1, cur = 0; st == XPOSE_OK; cur ^= 1) {
        size_t blocks = (m + span - 1) / span;
        int final = blocks == 1;
        step_kernel<Op, A, B>(step)<<<(unsigned)blocks, B, 0, s>>>(buf[cur], m, final ? c->result : buf[cur ^ 1],
                                                                   final);
        st = xp_cuda_launch_status();
        if (final)
            break;
        m = blocks;
    }
    return xr_scratch_put(&sc, s, st);
}

extern "C" int xp_cuda_reduce_ladder(const xp_reduce_call *c)
{
    int st;
    if (xr_prologue(c, &st))
        return st;
    if (c->p0 < XR_STEP_NAIVE || c->p0 > XR_STEP_MULTIPLE)
        return XPOSE_ERR_INVALID;
    return xr_dispatch(c, [&](auto op) { return run_ladder<decltype(op), XR_LADDER_BLOCK>(c, c->p0); });
}
