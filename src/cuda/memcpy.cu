/* memcpy.cu: the `memcpy` row: cudaMemcpy device to device, the bound every GPU row is compared to. */
#include "xp_cuda_util.cuh"

extern "C" int xp_cuda_memcpy(const xp_call *c)
{
    size_t bytes = c->s.batch * c->s.rows * c->s.cols * c->s.es;
    return xp_cuda_status_of(cudaMemcpyAsync(c->dst, c->src, bytes, cudaMemcpyDeviceToDevice, xp_stream(c)));
}
