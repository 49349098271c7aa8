/* ladder_naive.cu: the ladder's first steps, one element per thread and no shared memory: naive (threads
 * walk the source, seeds 000 and 002) and naive-write (threads walk the destination, seed 001). */
#include "ladder_grid.cuh"

/* A p0 x p1 block moves the p1 x p0 patch it covers. WALK_DST false: threadIdx.x runs along a source row,
 * so a warp's reads are contiguous and its writes land ldd apart (one sector each); true: it runs along a
 * destination row, so the writes are contiguous and the reads lds apart. */
template <typename T, bool WALK_DST> __global__ void naive_kernel(xp_mat<T> m)
{
    xp_each_tile(m, [&](size_t bx, size_t by, size_t z) {
        const size_t x = bx * blockDim.x + threadIdx.x, y = by * blockDim.y + threadIdx.y;
        const size_t i = WALK_DST ? x : y, j = WALK_DST ? y : x; /* source row i, column j */
        if (i < m.rows && j < m.cols)
            m.dst[z * m.sd + j * m.ldd + i] = m.src[z * m.ss + i * m.lds + j];
    });
}

template <typename T, bool WALK_DST> static int launch_naive(const xp_call *c)
{
    const size_t along = WALK_DST ? c->s.rows : c->s.cols, across = WALK_DST ? c->s.cols : c->s.rows;
    xp_mat<T> m = xp_mat_of<T>(c, xp_ceil_div(along, (size_t)c->p0), xp_ceil_div(across, (size_t)c->p1));
    return xp_launch(naive_kernel<T, WALK_DST>, m, dim3((unsigned)c->p0, (unsigned)c->p1), 0, c);
}

template <bool WALK_DST> static int naive_step(const xp_call *c)
{
    if (c->p0 < 1 || c->p1 < 1 || c->p0 * c->p1 > 1024)
        return XPOSE_ERR_INVALID;
    int st = XPOSE_OK;
    XP_DISPATCH_ELEM(c->s.es, (st = launch_naive<T, WALK_DST>(c)));
    return st;
}

extern "C" int xp_cuda_naive(const xp_call *c) { return naive_step<false>(c); }
extern "C" int xp_cuda_naive_write(const xp_call *c) { return naive_step<true>(c); }
