/* reduce_fast.cu: reduce-fast, the production GPU reduction: one resident wave of blocks, several 16-byte
 * loads in flight per thread, shuffles, and a tiny dependent launch that folds the block partials. */
#include <atomic>
#include <string.h>
#include "reduce_ops.cuh"

#define XR_FINISH_BLOCK 256

/* Where the 16-byte loads can go: `head` elements before the first 16-byte boundary, `nvec` whole vectors,
 * then `ntail` elements from `tail_at`; head and tail go one element to a thread. */
struct xr_span {
    size_t head, nvec, tail_at, ntail;
};

/* Hopper's programmatic dependent launch: the finishing grid may start while this one drains, and waits
 * (griddepcontrol.wait) until this grid is complete and its writes are visible (docs/tuning.md, "reduce-fast:
 * dependent finish"). No-ops before sm_90. */
__device__ __forceinline__ void xr_let_dependents_start(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void xr_wait_for_prerequisites(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* The elements of one 16-byte vector, folded pairwise (independent adds, a shallow float-sum tree). */
template <class Op> __device__ __forceinline__ typename Op::acc_t xr_fold16(uint4 v)
{
    typedef typename Op::value_t T;
    constexpr int E = 16 / sizeof(T);
    T e[E];
    memcpy(e, &v, sizeof e);
    typename Op::acc_t x[E];
#pragma unroll
    for (int k = 0; k < E; k++)
        x[k] = static_cast<typename Op::acc_t>(e[k]);
    return xr_fold_pairs<Op, E>(x);
}

/* Grid-stride over vectors, U loads issued before the first is used ("reduce-fast: loads in flight"); U accumulators
 * keep the dependent chains short. The assignment of elements to threads depends only on n and the grid, so every run
 * on a device folds in the same order. */
template <class Op, int U, int B> __global__ void __launch_bounds__(B)
    k_fast(const typename Op::value_t *src, xr_span sp, void *out, int final)
{
    typedef typename Op::acc_t A;
    const uint4 *vec = reinterpret_cast<const uint4 *>(src + sp.head);
    const size_t stride = (size_t)gridDim.x * B, me = (size_t)blockIdx.x * B + threadIdx.x;
    A acc[U];
#pragma unroll
    for (int u = 0; u < U; u++)
        acc[u] = Op::identity();
    size_t i = me;
    for (; i + (U - 1) * stride < sp.nvec; i += U * stride) {
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = __ldg(vec + i + u * stride);
#pragma unroll
        for (int u = 0; u < U; u++)
            acc[u] = Op::combine(acc[u], xr_fold16<Op>(v[u]));
    }
    /* The last, partial group: its loads too all go out before the first is used. */
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++)
        if (i + u * stride < sp.nvec)
            v[u] = __ldg(vec + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; u++)
        if (i + u * stride < sp.nvec)
            acc[u] = Op::combine(acc[u], xr_fold16<Op>(v[u]));
    if (me < sp.head)
        acc[0] = Op::combine(acc[0], static_cast<A>(src[me]));
    if (me < sp.ntail)
        acc[U - 1] = Op::combine(acc[U - 1], static_cast<A>(src[sp.tail_at + me]));
    xr_let_dependents_start();
    A r = xr_block_combine<Op, B>(xr_fold_pairs<Op, U>(acc));
    if (threadIdx.x == 0)
        xr_store<Op>(out, r, final);
}

/* One block folds the partials in a fixed order and writes the result. */
template <class Op, int B> __global__ void __launch_bounds__(B)
    k_fast_finish(const typename Op::acc_t *part, unsigned count, typename Op::value_t *result)
{
    xr_wait_for_prerequisites();
    typename Op::acc_t x = Op::identity();
    for (unsigned i = threadIdx.x; i < count; i += B)
        x = Op::combine(x, part[i]);
    x = xr_block_combine<Op, B>(x);
    if (threadIdx.x == 0)
        *result = Op::finish(x);
}

#define XR_MAX_DEVICES 64

/* Blocks of k_fast<Op, U, B> resident per multiprocessor, asked once per device and kernel. */
template <class Op, int U, int B> static int resident_blocks(void)
{
    static std::atomic<int> cache[XR_MAX_DEVICES];
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= XR_MAX_DEVICES)
        return 0;
    if ((n = cache[dev].load(std::memory_order_relaxed)) > 0)
        return n;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k_fast<Op, U, B>, B, 0) != cudaSuccess || n <= 0)
        return 0;
    cache[dev].store(n, std::memory_order_relaxed);
    return n;
}

/* The finishing launch, allowed to overlap the partials grid's drain where the device can (sm_90+). */
template <class Op>
static int launch_finish(const typename Op::acc_t *part, unsigned count, void *result, cudaStream_t s, int major)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(XR_FINISH_BLOCK);
    cfg.stream = s;
    cfg.attrs = attr;
    cfg.numAttrs = major >= 9 ? 1 : 0;
    return xp_cuda_status_of(cudaLaunchKernelEx(&cfg, k_fast_finish<Op, XR_FINISH_BLOCK>, part, count,
                                                static_cast<typename Op::value_t *>(result)));
}

template <class Op, int U, int B> static int run_fast(const xp_reduce_call *c)
{
    typedef typename Op::value_t T;
    typedef typename Op::acc_t A;
    cudaStream_t s = xr_stream(c);
    const T *src = static_cast<const T *>(c->src);
    int major = 0, sms = xr_device_sms(&major), per_sm = resident_blocks<Op, U, B>();
    if (sms <= 0 || per_sm <= 0)
        return XPOSE_ERR_CUDA;
    xr_span sp;
    sp.head = ((16 - ((uintptr_t)src & 15)) & 15) / sizeof(T);
    sp.head = sp.head < c->n ? sp.head : c->n;
    sp.nvec = (c->n - sp.head) / (16 / sizeof(T));
    sp.tail_at = sp.head + sp.nvec * (16 / sizeof(T));
    sp.ntail = c->n - sp.tail_at;
    /* One wave: as many blocks as stay resident, fewer when there are not B vectors for each ("reduce-fast: one
     * wave"). */
    size_t want = (sp.nvec + B - 1) / B, wave = (size_t)sms * (size_t)per_sm;
    unsigned grid = (unsigned)(want < 1 ? 1 : want < wave ? want : wave);
    if (grid == 1) {
        k_fast<Op, U, B><<<1, B, 0, s>>>(src, sp, c->result, 1);
        return xp_cuda_launch_status();
    }
    xr_scratch sc;
    int st = xr_scratch_get(grid * sizeof(A), s, &sc);
    if (st != XPOSE_OK)
        return st;
    k_fast<Op, U, B><<<grid, B, 0, s>>>(src, sp, sc.p, 0);
    st = xp_cuda_launch_status();
    if (st == XPOSE_OK)
        st = launch_finish<Op>(static_cast<const A *>(sc.p), grid, c->result, s, major);
    return xr_scratch_put(&sc, s, st);
}

/* The registry's parameter sets (loads in flight x threads per block); the first row is production ("reduce-fast:
 * loads in flight"). */
template <class Op> static int fast_with_params(const xp_reduce_call *c)
{
    if (c->p0 == 4 && c->p1 == 512)
        return run_fast<Op, 4, 512>(c);
    if (c->p0 == 4 && c->p1 == 256)
        return run_fast<Op, 4, 256>(c);
    if (c->p0 == 8 && c->p1 == 256)
        return run_fast<Op, 8, 256>(c);
    if (c->p0 == 2 && c->p1 == 512)
        return run_fast<Op, 2, 512>(c);
    return XPOSE_ERR_UNSUPPORTED;
}

extern "C" int xp_cuda_reduce_fast(const xp_reduce_call *c)
{
    int st;
    if (xr_prologue(c, &st))
        return st;
    return xr_dispatch(c, [&](auto op) { return fast_with_params<decltype(op)>(c); });
}
