/* fast_sector.cuh: 1-byte tiles whose destination rows start 16 bytes off a 32-byte sector (rows 16- but not
 * 32-byte aligned): each output window moves back one row group on those rows so every store is whole sectors. */
#ifndef XP_FAST_SECTOR_CUH
#define XP_FAST_SECTOR_CUH

#include "fast_tile.cuh"

/* Why: a destination row that starts 16 bytes into a sector cuts every 128-byte tile segment into half
 * sectors at both ends, each half written by another block, which held such calls far below the copy's speed
 * (docs/tuning.md, "fast: sector tiles").
 *
 * The tile is FastTile<1>'s 128 x 256, walked in the same order. Destination row j of a tile (its column j)
 * takes source rows r0 .. r0 + 127 where its 128-byte segment starts on a sector (phase 0), else r0 - 16 ..
 * r0 + 111 (phase 1), so the tile loads the 9 row groups r0 - 16 .. r0 + 127 and the tile rows reach one
 * group past the matrix (count_tiles' extra rows). The phase of column j is that of its destination row's
 * start: the matrix's destination base, flipped on odd columns where the destination pitch is an odd
 * number of 16-byte units (tile columns start at multiples of 256, whose rows share the base's phase). */
struct SectorGeo {
    typedef Geo<1> G; /* swizzle, row bytes (RB = 256), 16 rows a vector */
    enum {
        GROUPS = 9, /* row groups loaded: one before the tile's own 8 */
        ROWS = GROUPS * 16,
        LOADS = ROWS * G::NCH / FAST_THREADS,
        SMEM = ROWS * G::RB,
        SHIFT = XP_SECTOR_SHIFT, /* rows (= bytes) a phase-1 window starts before r0 */
    };
    static_assert(SectorGeo::SMEM == XP_SECTOR_SMEM, "the planner's shared memory (fast_geometry.h)");
};

/* Sector phase (0 or 1) of column parity p's destination rows in the matrix whose destination starts at dst_mat. */
__device__ __forceinline__ unsigned sector_phase(const char *dst_mat, size_t ldd, unsigned p)
{
    return (unsigned)((((uintptr_t)dst_mat >> 4) ^ (p & (ldd >> 4))) & 1);
}

/* Moves one tile. src_mat/dst_mat: the matrix; r0, c0: the tile's first source row and column. */
__device__ __forceinline__ void sector_tile(const char *src_mat, char *dst_mat, size_t rows, size_t cols, size_t lds,
                                            size_t ldd, size_t r0, size_t c0, unsigned char *sm)
{
    typedef SectorGeo K;
    typedef K::G G;
    const unsigned nc = (unsigned)min((size_t)G::TC, cols - c0);
    const char *end = span_end<1>(src_mat, rows, cols, lds);
    const long long first = (long long)r0 - K::SHIFT; /* source row of loaded row 0 */
    uint4 v[K::LOADS];
#pragma unroll
    for (int it = 0; it < K::LOADS; it++) { /* every load in flight first; rows and chunks outside read as zero */
        const unsigned q = threadIdx.x + it * FAST_THREADS, row = q / G::NCH, ch = q % G::NCH;
        const long long sr = first + row;
        v[it] = make_uint4(0, 0, 0, 0);
        if (sr >= 0 && sr < (long long)rows && ch * 16 < nc) {
            const char *p = src_mat + (size_t)sr * lds + c0 + ch * 16;
            v[it] = load16_part<1>(p, src_mat, end, 0, (int)(nc - ch * 16));
        }
    }
#pragma unroll
    for (int it = 0; it < K::LOADS; it++) {
        const unsigned q = threadIdx.x + it * FAST_THREADS, row = q / G::NCH, ch = q % G::NCH;
        *(uint4 *)(sm + chunk_at<G>(row, ch)) = v[it];
    }
    __syncthreads();
    /* A warp item: 8 output groups (lane & 7) x 4 read units (lane >> 3) of one column parity; the columns of
     * one parity share a phase, so one window (row group rg + 1 - phase) serves both of its output vectors. */
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    const unsigned rg = lane & 7;
#pragma unroll 1
    for (unsigned wi = warp; wi < 2 * (G::NU / 4); wi += FAST_THREADS / 32) {
        const unsigned par = wi & 1, u = (wi >> 1) * 4 + (lane >> 3), ph = sector_phase(dst_mat, ldd, par);
        unsigned w[16];
        unit_words<G>(sm, rg + 1 - ph, u, w);
        const long long s0 = (long long)r0 - (long long)(ph * K::SHIFT) + rg * 16; /* first source row of the window */
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const unsigned q = par + 2 * h, col = u * 4 + q;
            const uint4 v = byte_column(w, (int)q);
            if (col < nc && s0 >= 0 && s0 < (long long)rows)
                store16_part<1>(dst_mat + (c0 + col) * ldd + (size_t)s0, v, 0, (long long)rows - s0);
        }
    }
}

#endif
