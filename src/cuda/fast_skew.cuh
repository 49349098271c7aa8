/* fast_skew.cuh: the production transpose's path for misaligned rows of 1- to 8-byte elements: aligned
 * 16-byte loads realigned through shared memory, and per-row skewed tiles so every store is 16 bytes. */
#ifndef XP_FAST_SKEW_CUH
#define XP_FAST_SKEW_CUH

#include "fast_tile.cuh"

/* When a leading dimension (or a base pointer) is not a multiple of 16 bytes, each row starts at its own
 * offset within a 16-byte vector. Element-wise access then needs four times the memory requests of the
 * vector path. Instead:
 * - the tile that starts at source row r0 owns, in destination row j, the window of elements
 *   [r0 - d_j, r0 + TR - d_j), where d_j < E counts the elements of that row that share the 16-byte vector
 *   of element r0: every window then starts on a vector boundary, and the windows of tiles r0 = 0, TR,
 *   2 TR ... still partition the row (the first is clipped at 0, the last at rows);
 * - so a tile needs source rows [r0 - (E - 1), r0 + TR): E - 1 rows more than its height;
 * - source rows are read as the aligned vectors that cover the tile's columns, one vector more than the
 *   aligned case, and placed in shared memory at their true column, word by word (element by element
 *   for 1 and 2 bytes, whose rows may start off a word).
 * Tiles at the matrix's edges take the same path with bounds tests (skew_tile's EDGE). */
struct SkewArgs {
    const char *src; /* this batch member */
    char *dst;
    size_t rows, cols, lds, ldd;
    size_t r0, c0;
    unsigned nc;
};

/* Skewed tile shapes: FastTile's for 4 and 8 bytes; for 1 and 2 bytes, whose halo is 15 and 7 rows, tiles
 * small enough that the loads of a tile fit 6 and 5 registers of 16 bytes a thread (1 byte: 128 x 128,
 * 128-byte source segments; 2 bytes: 64 x 128). */
template <int ES> struct SkewShape { enum { TR = FastTile<ES>::TR, TC = FastTile<ES>::TC }; };
template <> struct SkewShape<1> { enum { TR = 128, TC = 128 }; };
template <> struct SkewShape<2> { enum { TR = 64, TC = 128 }; };

template <int ES> struct SkewGeo {
    typedef Geo<ES, SkewShape<ES>::TR, SkewShape<ES>::TC> G;
    enum {
        E = G::E,
        SR = G::TR + E - 1,                           /* tile rows held, with the halo above */
        NV = G::TC / E + 1,                           /* aligned vectors covering one tile row */
        LOAD_ROUNDS = (SR * NV + FAST_THREADS - 1) / FAST_THREADS,
        NVR = G::TR / E,                              /* output vectors per destination row */
        RGB = NVR / 8,
        STORES = G::TC * NVR / FAST_THREADS,
    };
};

/* Interior tile: every source vector lies inside the matrix and every destination window inside its row,
 * so no access needs a test. Vectors that reach before or past a tile row stay inside the matrix unless the
 * row is its first (kept out by r0 >= TR) or its last (then the E elements past the tile must exist). */
template <int ES> __device__ __forceinline__ bool skew_interior(const SkewArgs &k)
{
    typedef typename SkewGeo<ES>::G G;
    return k.r0 >= G::TR && k.r0 + G::TR <= k.rows && k.nc == G::TC &&
           (k.r0 + G::TR < k.rows || k.c0 + G::TC + G::E <= k.cols);
}

/* One skewed tile. RS: bytes per tile row in shared memory (skew_stride_4: the stride with the fewest bank
 * conflicts). EDGE: the tile touches the matrix's first or last rows or its last columns, so rows outside
 * the matrix are skipped, vectors at the span's ends are read element-wise, and destination vectors that
 * cross the first or last row are written element-wise; everything else stays 16 bytes wide (an
 * element-wise edge tile cost 1.6 interior tiles: docs/notes/fast-v13-*). */
template <int ES, int RS, bool EDGE> __device__ __forceinline__ void skew_tile(const SkewArgs &k, unsigned char *sm)
{
    typedef SkewGeo<ES> K;
    typedef typename K::G G;
    typedef typename XpElem<ES>::type T;
    const long long top = (long long)k.r0 - (K::E - 1);
    const char *end = EDGE ? span_end<ES>(k.src, k.rows, k.cols, k.lds) : 0;
    uint4 v[K::LOAD_ROUNDS];
    int at[K::LOAD_ROUNDS]; /* byte offset in the tile row of each vector's first byte; may be negative */
#pragma unroll
    for (int it = 0; it < K::LOAD_ROUNDS; it++) { /* all loads in flight before any use */
        unsigned q = threadIdx.x + it * FAST_THREADS;
        at[it] = -16; /* nothing to store */
        if (q < K::SR * K::NV) {
            unsigned rr = q / K::NV, vec = q % K::NV;
            long long i = top + rr;
            if (EDGE && (i < 0 || (size_t)i >= k.rows))
                continue;
            const char *row = k.src + ((size_t)i * k.lds + k.c0) * ES;
            int b = (int)(vec * 16) - (int)((uintptr_t)row & 15);
            if (EDGE && b >= (int)(k.nc * ES))
                continue;
            /* Edge tiles: the vector whole where it lies inside the matrix's span, else only the tile's own
             * elements (the matrix's first or last bytes may sit in a vector the allocation does not cover). */
            v[it] = EDGE ? load16_part<ES>(row + b, k.src, end, -b, (int)(k.nc * ES) - b) : __ldg((const uint4 *)(row + b));
            at[it] = b;
        }
    }
    /* Each vector goes to its true columns in units of one word, or of one element where rows may start
     * off a word (1 and 2 bytes). */
    typedef typename XpElem<ES < 4 ? ES : 4>::type U;
    enum { UB = sizeof(U) };
#pragma unroll
    for (int it = 0; it < K::LOAD_ROUNDS; it++) {
        unsigned q = threadIdx.x + it * FAST_THREADS;
        if (q < K::SR * K::NV) {
            unsigned char *row = sm + (q / K::NV) * RS;
            XpLanes<U> x;
            x.u = v[it];
#pragma unroll
            for (int e = 0; e < 16 / UB; e++) {
                int b = at[it] + UB * e;
                if (b >= 0 && b < G::TC * ES)
                    *(U *)(row + b) = x.e[e];
            }
        }
    }
    __syncthreads();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
#pragma unroll
    for (int it = 0; it < K::STORES; it++) { /* a warp writes 8 vectors (128 bytes) of 4 destination rows */
        unsigned wi = warp + it * (FAST_THREADS / 32);
        unsigned vec = (wi % K::RGB) * 8 + (lane & 7), jj = (wi / K::RGB) * 4 + (lane >> 3);
        if (EDGE && jj >= k.nc)
            continue;
        char *drow = k.dst + ((k.c0 + jj) * k.ldd + k.r0) * ES;
        unsigned d = (unsigned)(((uintptr_t)drow & 15) / ES);
        unsigned rr = K::E - 1 - d + vec * K::E;
        XpLanes<T> o; /* K::E elements */
#pragma unroll
        for (int e = 0; e < K::E; e++)
            o.e[e] = *(const T *)(sm + (rr + e) * RS + jj * ES);
        char *out = drow - d * ES + vec * 16;
        long long i0 = top + rr; /* source row of the vector's first element */
        if (EDGE)
            store16_part<ES>(out, o.u, -i0, (long long)k.rows - i0);
        else
            *(uint4 *)out = o.u;
    }
}

#endif
