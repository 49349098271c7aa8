/* fast_kernels.cuh: the kernels of the production transpose, one per tile kind and schedule (grid-stride over
 * numbered tiles, or one tile a block on the 2-D grid); fast.cu picks one per call. The tiles themselves are in
 * fast_tile.cuh (aligned rows), fast_sector.cuh (1-byte rows 16 bytes off a sector), fast_shift.cuh (1-byte rows off
 * a vector) and fast_skew.cuh (other misaligned rows, and 2- to 16-byte destination rows 16 bytes off a sector). */
#ifndef XP_FAST_KERNELS_CUH
#define XP_FAST_KERNELS_CUH

#include "fast_order.cuh"
#include "fast_tile.cuh"
#include "fast_skew.cuh"
#include "fast_sector.cuh"
#include "fast_shift.cuh"

template <class G> __device__ __forceinline__ bool vec_full(const TileArgs &a, const TilePos &p)
{
    return a.vec && p.nr == G::TR && p.nc == G::TC;
}

/* Moves a whole tile whose rows all start on 16-byte vectors: every load in flight, into shared memory, then
 * the gathers and stores. */
template <class G, bool CLUSTER_SYNC = false>
__device__ __forceinline__ void move_vec_tile(const TileArgs &a, const TilePos &p, unsigned char *sm)
{
    VecTile<G> vt;
    vt.load(p.src, a.lds * G::ES);
    vt.to_shared(sm);
    __syncthreads();
    if (CLUSTER_SYNC)
        cluster_barrier();
    VecTile<G>::store(sm, p.dst, a.ldd * G::ES);
}

/* Moves one tile: 16-byte vectors where the rows are aligned (bounds-tested at the edges), else element-wise. */
template <class G, bool VEC_EDGES>
__device__ __forceinline__ void move_tile(const TileArgs &a, const TilePos &p, unsigned char *sm)
{
    enum { ES = G::ES };
    if (vec_full<G>(a, p)) {
        move_vec_tile<G>(a, p, sm);
    } else if (VEC_EDGES && a.vec) { /* an edge tile of aligned rows: the same vectors, bounds-tested */
        VecTile<G> vt;
        vt.load_edge(p.src, a.lds * ES, p.nr, p.nc, span_end<ES>(p.src_mat, a.rows, a.cols, a.lds));
        vt.to_shared(sm);
        __syncthreads();
        PutEdge<ES> put = {p.nr, p.nc};
        VecTile<G>::store(sm, p.dst, a.ldd * ES, put);
    } else if (p.nr == G::TR && p.nc == G::TC) {
        tile_scalar<G, true>(p.src, p.dst, a.lds, a.ldd, p.nr, p.nc, sm);
    } else {
        tile_scalar<G, false>(p.src, p.dst, a.lds, a.ldd, p.nr, p.nc, sm);
    }
}

/* One tile per block: the hardware's block scheduler overlaps one block's loads with another's stores, which
 * persistent or pipelined kernels measured no better at (docs/tuning.md, "fast: one tile a block"). Blocks stride
 * over tiles only when there are more than the grid can name. */
template <class G, int MIN_BLOCKS = 4, bool VEC_EDGES = true>
__global__ void __launch_bounds__(FAST_THREADS, MIN_BLOCKS) fast_kernel(const FastArgs a)
{
    extern __shared__ __align__(16) unsigned char sm[];
    for (size_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
        move_tile<G, VEC_EDGES>(a, tile_at<G>(a, tile), sm);
        __syncthreads(); /* the next tile reuses the shared buffer */
    }
}

/* One matrix walked by one walk, down tile columns or row by row: the tile is the 2-D block index (x runs
 * down a tile column, or along a tile row), the same order as tile_at's with none of its divisions. At 8 blocks per
 * SM (4-byte calls of one wave, DenseTile) it needs 32 registers without spilling, where the grid-stride kernel
 * spilled 48-172 bytes ("fast: one wave at 8 blocks per SM"). CLUSTER_SYNC (whole tiles only, so that every block of
 * a cluster meets the barrier): the blocks of a cluster store together ("fast: sync clusters"). */
template <class G, int MIN_BLOCKS, bool FULL_TILES = false, bool CLUSTER_SYNC = false>
__global__ void __launch_bounds__(FAST_THREADS, MIN_BLOCKS) fast_kernel_direct(const TileArgs a)
{
    extern __shared__ __align__(16) unsigned char sm[];
    const TilePos p = block_tile<G>(a);
    if (FULL_TILES) /* the caller knows every tile is whole and every row on a vector: no edge code */
        move_vec_tile<G, CLUSTER_SYNC>(a, p, sm);
    else
        move_tile<G, true>(a, p, sm);
}

/* A whole tile of one matrix (the 2-D grid, as fast_kernel_direct), every load in flight, then stored in two halves
 * of TR / 2 source rows through one buffer of half the tile (cuBLAS geam's order). At 8 blocks per SM, 16 KB tiles
 * need 136 KB of shared memory, which leaves the L1 92 KB for 128 KB of loads in flight; halves need 72 KB. With few
 * blocks per SM, the first half leaves while the second is still loading ("fast: split tiles"). */
template <class G, int HALF>
__device__ __forceinline__ void store_half(const VecTile<G> &vt, unsigned char *sm, char *dst, size_t ldd_b)
{
    typedef Geo<G::ES, G::TR / 2, G::TC> H;
    vt.template to_shared<H, HALF * G::LOADS / 2, G::LOADS / 2>(sm);
    __syncthreads();
    VecTile<H>::store(sm, dst + HALF * H::TR * G::ES, ldd_b);
}

template <class G> __global__ void __launch_bounds__(FAST_THREADS, XP_ONE_WAVE_BLOCKS)
    fast_kernel_split(const TileArgs a)
{
    extern __shared__ __align__(16) unsigned char sm[];
    const TilePos p = block_tile<G>(a);
    VecTile<G> vt;
    vt.load(p.src, a.lds * G::ES);
    store_half<G, 0>(vt, sm, p.dst, a.ldd * G::ES);
    __syncthreads(); /* the first half's gathers are done with the buffer */
    store_half<G, 1>(vt, sm, p.dst, a.ldd * G::ES);
}

/* Skewed tiles (fast_skew.cuh): its own kernel, with its own register budget: 4 blocks per SM (64 registers), which
 * beat 3 (80) ("fast: skewed tiles"). */
template <int ES, int RS, int MIN_BLOCKS = 4> __global__ void __launch_bounds__(FAST_THREADS, MIN_BLOCKS)
    fast_skew_kernel(const FastArgs a)
{
    extern __shared__ __align__(16) unsigned char sm[];
    for (size_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
        TilePos p = tile_at<typename SkewGeo<ES>::G>(a, tile);
        SkewArgs k = {p.src_mat, p.dst_mat, a.rows, a.cols, a.lds, a.ldd, p.r0, p.c0, p.nc};
        if (skew_interior<ES>(k))
            skew_tile<ES, RS, false>(k, sm);
        else
            skew_tile<ES, RS, true>(k, sm);
        __syncthreads(); /* the next tile reuses the shared buffer */
    }
}

/* 1-byte tiles on destination rows that start 16 bytes off a sector: fast_sector.cuh. On the 2-D grid in clusters
 * wherever `run` can name the tiles by block ("fast: byte clusters"), else grid-stride. */
__global__ void __launch_bounds__(FAST_THREADS, 4) fast_sector_kernel(const FastArgs a)
{
    extern __shared__ __align__(16) unsigned char sm[];
    for (size_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
        TilePos p = tile_at<SectorGeo::G>(a, tile);
        sector_tile(p.src_mat, p.dst_mat, a.rows, a.cols, a.lds, a.ldd, p.r0, p.c0, sm);
        __syncthreads(); /* the next tile reuses the shared buffer */
    }
}

__global__ void __launch_bounds__(FAST_THREADS, 4) fast_sector_direct(const TileArgs a)
{
    extern __shared__ __align__(16) unsigned char sm[];
    const TilePos p = block_tile<SectorGeo::G>(a);
    sector_tile(p.src_mat, p.dst_mat, a.rows, a.cols, a.lds, a.ldd, p.r0, p.c0, sm);
}

/* 1-byte tiles on rows that do not all start on a vector: fast_shift.cuh. Tiles take it without bounds tests where
 * every row they load and store lies inside the matrix and every vector they read inside its span: not in the first
 * tile row (whose first loaded row's vector may start before the matrix), and on the last row 16 bytes to spare past
 * the tile. */
template <int HALO, bool TALL>
__device__ __forceinline__ void move_shift_tile(const TileArgs &a, const TilePos &p, unsigned char *sm)
{
    typedef typename ShiftGeo<HALO, TALL>::G G;
    if (p.r0 > 0 && p.nr == G::TR && p.nc == G::TC && (p.r0 + G::TR < a.rows || p.c0 + G::TC + 16 <= a.cols))
        shift_tile<HALO, false, TALL>(p.src_mat, p.dst_mat, 0, a.rows, a.lds, a.ldd, p.r0, p.c0, p.nc, sm);
    else
        shift_tile<HALO, true, TALL>(p.src_mat, p.dst_mat, span_end<1>(p.src_mat, a.rows, a.cols, a.lds), a.rows, a.lds,
                                     a.ldd, p.r0, p.c0, p.nc, sm);
}

template <int HALO, bool TALL> __global__ void __launch_bounds__(FAST_THREADS, 4) fast_shift_kernel(const FastArgs a)
{
    extern __shared__ __align__(16) unsigned char sm[];
    for (size_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
        move_shift_tile<HALO, TALL>(a, tile_at<typename ShiftGeo<HALO, TALL>::G>(a, tile), sm);
        __syncthreads(); /* the next tile reuses the shared buffer */
    }
}

/* The same on the 2-D grid (run_shift says where). */
template <int HALO, bool TALL> __global__ void __launch_bounds__(FAST_THREADS, 4) fast_shift_direct(const TileArgs a)
{
    extern __shared__ __align__(16) unsigned char sm[];
    move_shift_tile<HALO, TALL>(a, block_tile<typename ShiftGeo<HALO, TALL>::G>(a), sm);
}

#endif
