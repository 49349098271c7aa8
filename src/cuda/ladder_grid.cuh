/* ladder_grid.cuh: what every ladder kernel shares: the batched matrix pair, the walk over tiles and batch
 * members (grid-stride, so no grid dimension is ever over its limit), and the launch. */
#ifndef XP_LADDER_GRID_CUH
#define XP_LADDER_GRID_CUH

#include "ladder.h"
#include "xp_cuda_util.cuh"

/* dst (cols x rows) := src (rows x cols) transposed, for `batch` members; lengths in elements of T. Kernels
 * index with size_t throughout: a matrix, or the span of a batch, may pass 2^32 elements. */
template <typename T> struct xp_mat {
    const T *src;
    T *dst;
    size_t rows, cols; /* of the source */
    size_t lds, ldd;   /* leading dimensions */
    size_t ss, sd;     /* batch strides */
    size_t batch;
    size_t tiles_x, tiles_y; /* how many tiles the kernel's x and y axes cover */
};

static inline size_t xp_ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }
static inline unsigned xp_cap(size_t n, unsigned max) { return n < max ? (unsigned)n : max; }

template <typename T> static xp_mat<T> xp_mat_of(const xp_call *c, size_t tiles_x, size_t tiles_y)
{
    const xp_shape *s = &c->s;
    xp_mat<T> m = {(const T *)c->src, (T *)c->dst, s->rows, s->cols, s->lds, s->ldd, s->ss, s->sd,
                   s->batch,          tiles_x,     tiles_y};
    return m;
}

/* body(tile_x, tile_y, member) for every tile this block owns: x over tiles_x, y over tiles_y, z over the
 * batch. Blocks stride by the grid, so a 2^31 x 1 matrix or a batch of 100000 needs no larger grid. The
 * loop bounds are uniform across the block, so body may call __syncthreads(). */
template <typename T, typename F> __device__ __forceinline__ void xp_each_tile(const xp_mat<T> &m, F body)
{
    for (size_t z = blockIdx.z; z < m.batch; z += gridDim.z)
        for (size_t y = blockIdx.y; y < m.tiles_y; y += gridDim.y)
            for (size_t x = blockIdx.x; x < m.tiles_x; x += gridDim.x)
                body(x, y, z);
}

/* One block per tile and batch member up to the grid limits (x 2^31 - 1, y and z 65535), on the call's
 * stream. Tiles over 48 KiB (16-byte elements in a 64-wide tile) need the opt-in for dynamic shared
 * memory; it is set on every such launch, not cached, because the setting is per device. */
template <typename T>
static int xp_launch(void (*kernel)(xp_mat<T>), const xp_mat<T> &m, dim3 block, size_t smem, const xp_call *c)
{
    dim3 grid(xp_cap(m.tiles_x, 0x7fffffffu), xp_cap(m.tiles_y, 65535u), xp_cap(m.batch, 65535u));
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) {
            cudaGetLastError(); /* not sticky: leave no error behind for the next launch to report */
            return xp_cuda_status_of(e);
        }
    }
    kernel<<<grid, block, smem, xp_stream(c)>>>(m);
    return xp_cuda_launch_status();
}

#endif
