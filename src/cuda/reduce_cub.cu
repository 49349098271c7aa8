/* reduce_cub.cu: reduce-cub, CUB's DeviceReduce::Reduce given the library's own operators, accumulators
 * and NaN rule, so it computes the same function under the same bound: the reference for reduce-fast. */
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/transform_output_iterator.h>
#include "reduce_ops.cuh"

/* CUB takes its accumulator type from what the operator returns: Op::acc_t (double for float sums). */
template <class Op> struct xr_cub_combine {
    template <class X, class Y>
    __host__ __device__ __forceinline__ typename Op::acc_t operator()(const X &a, const Y &b) const
    {
        return Op::combine(static_cast<typename Op::acc_t>(a), static_cast<typename Op::acc_t>(b));
    }
};

template <class Op> struct xr_cub_finish {
    __host__ __device__ __forceinline__ typename Op::value_t operator()(const typename Op::acc_t &a) const
    {
        return Op::finish(a);
    }
};

/* Temporary storage comes from the per-device stream-ordered pool, per call: no host sync, and calls on
 * different streams or threads never share it. */
template <class Op> static int run_cub(const xp_reduce_call *c)
{
    typedef typename Op::value_t T;
    cudaStream_t s = xr_stream(c);
    const T *in = static_cast<const T *>(c->src);
    auto out = thrust::make_transform_output_iterator(static_cast<T *>(c->result), xr_cub_finish<Op>());
    size_t bytes = 0;
    if (cub::DeviceReduce::Reduce(nullptr, bytes, in, out, c->n, xr_cub_combine<Op>(), Op::identity(), s) !=
        cudaSuccess) {
        cudaGetLastError();
        return XPOSE_ERR_LIBRARY;
    }
    xr_scratch sc;
    int st = xr_scratch_get(bytes ? bytes : 16, s, &sc);
    if (st != XPOSE_OK)
        return st;
    cudaError_t e = cub::DeviceReduce::Reduce(sc.p, bytes, in, out, c->n, xr_cub_combine<Op>(), Op::identity(), s);
    if (e != cudaSuccess)
        cudaGetLastError();
    return xr_scratch_put(&sc, s, e == cudaSuccess ? XPOSE_OK : XPOSE_ERR_LIBRARY);
}

extern "C" int xp_cuda_reduce_cub(const xp_reduce_call *c)
{
    int st;
    if (xr_prologue(c, &st))
        return st;
    return xr_dispatch(c, [&](auto op) { return run_cub<decltype(op)>(c); });
}
