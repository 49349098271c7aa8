/* ladder_tile.cuh: the staged-tile kernel behind every shared-memory step of the ladder. Each step is
 * this one template with one argument changed: the shared-memory layout (plain, swizzled, padded) or the
 * number of rows each thread moves (TILE / SIDE). */
#ifndef XP_LADDER_TILE_CUH
#define XP_LADDER_TILE_CUH

#include "ladder_grid.cuh"

/* Where element (r, c) of the tile (source row r, column c within it) lives in shared memory. */
enum xp_tile_layout {
    XP_TILE_PLAIN,   /* seed 000 1.3: stored transposed, [c][r]: a warp's stores into it conflict 2, 8 and
                      * 32 ways for TILE 8, 16 and 32 (4-byte elements); its reads are conflict-free */
    XP_TILE_SWIZZLE, /* seed 000 1.4, 1.5: row r rotated by r, [r][(r + c) % TILE]: conflict-free both ways */
    XP_TILE_PAD,     /* seeds 001, 003, 004: [r][c] in rows of TILE + 1, so a column steps one bank per row */
};

template <int LAYOUT, int TILE> __device__ __forceinline__ int xp_tile_at(int r, int c)
{
    if (LAYOUT == XP_TILE_PAD)
        return r * (TILE + 1) + c;
    if (LAYOUT == XP_TILE_SWIZZLE)
        return r * TILE + ((r + c) & (TILE - 1));
    return c * TILE + r;
}

template <int LAYOUT, int TILE> constexpr size_t xp_tile_elems()
{
    return LAYOUT == XP_TILE_PAD ? TILE * (TILE + 1) : TILE * TILE;
}

/* A TILE x SIDE block moves a TILE x TILE tile, each thread TILE / SIDE elements: rows ty, ty + SIDE, ...
 * are read along source rows (coalesced), and after the barrier the same threads write destination rows
 * (coalesced) from the tile's columns. Partial tiles at the edges load and store only what exists. */
template <typename T, int TILE, int SIDE, int LAYOUT> __global__ void __launch_bounds__(TILE *SIDE)
    xp_tile_kernel(xp_mat<T> m)
{
    /* Dynamic, so that 16-byte elements can take a 64-wide tile (over the 48 KiB static limit). */
    extern __shared__ __align__(16) unsigned char xp_tile_smem[];
    T *tile = reinterpret_cast<T *>(xp_tile_smem);
    const int tx = threadIdx.x, ty = threadIdx.y;
    bool again = false;
    xp_each_tile(m, [&](size_t bx, size_t by, size_t z) {
        const size_t i0 = by * TILE, j0 = bx * TILE; /* the tile's first source row and column */
        const int nr = m.rows - i0 < TILE ? (int)(m.rows - i0) : TILE;
        const int nc = m.cols - j0 < TILE ? (int)(m.cols - j0) : TILE;
        const T *a = m.src + z * m.ss + i0 * m.lds + j0;
        T *b = m.dst + z * m.sd + j0 * m.ldd + i0;
        if (again) /* a block with a second tile: the first one's readers must be done with it */
            __syncthreads();
        again = true;
#pragma unroll
        for (int off = 0; off < TILE; off += SIDE) {
            const int r = ty + off;
            if (r < nr && tx < nc)
                tile[xp_tile_at<LAYOUT, TILE>(r, tx)] = a[(size_t)r * m.lds + tx];
        }
        __syncthreads();
#pragma unroll
        for (int off = 0; off < TILE; off += SIDE) {
            const int c = ty + off; /* destination row j0 + c is source column j0 + c */
            if (c < nc && tx < nr)
                b[(size_t)c * m.ldd + tx] = tile[xp_tile_at<LAYOUT, TILE>(tx, c)];
        }
    });
}

template <typename T, int TILE, int SIDE, int LAYOUT> static int xp_tile_launch_as(const xp_call *c)
{
    xp_mat<T> m = xp_mat_of<T>(c, xp_ceil_div(c->s.cols, TILE), xp_ceil_div(c->s.rows, TILE));
    return xp_launch(xp_tile_kernel<T, TILE, SIDE, LAYOUT>, m, dim3(TILE, SIDE),
                     sizeof(T) * xp_tile_elems<LAYOUT, TILE>(), c);
}

/* The step for the call's element size. */
template <int TILE, int SIDE, int LAYOUT> static int xp_tile_launch(const xp_call *c)
{
    static_assert(TILE % SIDE == 0 && (TILE & (TILE - 1)) == 0 && TILE * SIDE <= 1024, "tile shape");
    int st = XPOSE_OK;
    XP_DISPATCH_ELEM(c->s.es, (st = xp_tile_launch_as<T, TILE, SIDE, LAYOUT>(c)));
    return st;
}

#endif
