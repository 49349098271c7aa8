/* fast_skew.cuh: the production transpose's path for rows that do not all start on a 32-byte sector: aligned
 * 16-byte loads realigned through shared memory, and per-row skewed tiles so every store is whole sectors. */
#ifndef XP_FAST_SKEW_CUH
#define XP_FAST_SKEW_CUH

#include "fast_tile.cuh"
#include <cuda_pipeline.h>

/* When a leading dimension (or a base pointer) is not a multiple of 16 bytes, each row starts at its own
 * offset within a 16-byte vector. Element-wise access then needs four times the memory requests of the
 * vector path. Rows that are 16-byte aligned but not all 32-byte aligned (2- to 16-byte elements; 1-byte
 * ones have fast_sector.cuh) take the vector path's loads, but its stores would cut every tile segment into
 * half sectors at both ends on half the destination rows. Instead:
 * - the tile that starts at source row r0 owns, in destination row j, the window of elements
 *   [r0 - d_j, r0 + TR - d_j), where d_j < W counts the elements of that row that share the 32-byte sector
 *   of element r0: every window then starts on a sector boundary, so no two blocks write parts of one
 *   sector, and the windows of tiles r0 = 0, TR, 2 TR ... still partition the row (the first is clipped at
 *   0, the last at rows). Windows on 16-byte vector boundaries (d_j < E) wrote half sectors at both ends of
 *   half the rows, and measured slower (docs/tuning.md, "fast: skewed tiles");
 * - so a tile needs source rows [r0 - (W - 1), r0 + TR): W - 1 rows more than its height;
 * - source rows are read as the aligned vectors that cover the tile's columns, one vector more than the
 *   aligned case where a row starts inside a vector, and placed in shared memory at their true column,
 *   word by word (element by element for 1 and 2 bytes, whose rows may start off a word; whole for 16
 *   bytes); 8-byte elements are copied there one by one by cp.async instead.
 * Tiles at the matrix's edges take the same path with bounds tests (skew_tile's EDGE). */
struct SkewArgs {
    const char *src; /* this batch member */
    char *dst;
    size_t rows, cols, lds, ldd;
    size_t r0, c0;
    unsigned nc;
};

/* Skewed tile shapes: fast_geometry.h. */
template <int ES> struct SkewShape {
    enum { TR = XP_SKEW_TR(ES), TC = XP_SKEW_TC(ES) };
};

template <int ES> struct SkewGeo {
    typedef Geo<ES, SkewShape<ES>::TR, SkewShape<ES>::TC> G;
    enum {
        E = G::E,
        WB = 32,            /* windows start on sector boundaries ... */
        W = XP_SKEW_W(ES),  /* ... W = WB / ES elements apart */
        SR = G::TR + W - 1, /* tile rows held, with the halo above */
        NVR = G::TR / E,    /* output vectors per destination row */
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

/* 8-byte tiles load their source rows element by element, straight to their true columns in shared memory
 * by cp.async: no registers hold the loads and no per-word placement follows, and a warp still reads whole
 * 256-byte runs of a row. Floats lost that way (17 four-byte copies a thread instead of 5 vectors) ("fast: skewed
 * loads"). */
template <int ES> struct SkewAsync {
    enum { ON = ES == 8 };
};

/* The W - 1 + TR source rows of a skewed tile, copied as above; an edge tile skips rows outside the matrix
 * and columns past nc (their shared-memory words are never gathered into a stored element). */
template <int ES, int RS, bool EDGE>
__device__ __forceinline__ void skew_load_async(const SkewArgs &k, unsigned char *sm)
{
    typedef SkewGeo<ES> K;
    typedef typename K::G G;
    enum { PER = FAST_THREADS / G::TC, ROUNDS = (K::SR + PER - 1) / PER };
    const unsigned col = threadIdx.x % G::TC, r = threadIdx.x / G::TC;
    const long long top = (long long)k.r0 - (K::W - 1) + r; /* this thread's first source row */
    const long long lds_b = (long long)(k.lds * ES);
    const char *p = k.src + (long long)(k.c0 + col) * ES; /* row 0 of this thread's column */
    unsigned char *s = sm + r * RS + col * ES;
#pragma unroll
    for (int it = 0; it < ROUNDS; it++) {
        const long long i = top + it * PER;
        if ((it + 1 < ROUNDS || r + it * PER < K::SR) && (!EDGE || (i >= 0 && (size_t)i < k.rows && col < k.nc)))
            __pipeline_memcpy_async(s + it * PER * RS, p + i * lds_b, ES);
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
}

/* Writes the elements of vector v that fall in a tile row's columns to shared-memory row `row`: v's first
 * byte belongs at byte b of the row (negative: v starts before the tile). In units of one word, of one
 * element where rows may start off a word (1 and 2 bytes), or whole (16 bytes: rows on vectors). */
template <int ES, int TB> __device__ __forceinline__ void skew_place(unsigned char *row, uint4 v, int b)
{
    typedef typename XpElem < ES<4 || ES == 16 ? ES : 4>::type U;
    XpLanes<U> x;
    x.u = v;
#pragma unroll
    for (int e = 0; e < 16 / (int)sizeof(U); e++) {
        const int at = b + (int)sizeof(U) * e;
        if (at >= 0 && at < TB)
            *(U *)(row + at) = x.e[e];
    }
}

/* The source rows of a skewed tile as aligned 16-byte vectors (1-, 2-, 4- and 16-byte elements), placed at their true
 * columns in shared memory. A tile row of TC elements that starts m bytes into a vector (m < 16) spans NCH
 * vectors, and one more where m > 0. Thread t reads vector t % NCH of rows t / NCH, + PER, + 2 PER ...; PER is
 * a multiple of 16, so those rows all start m bytes into a vector, and one offset, one pointer step and one
 * set of placement tests serve every round. Then thread t < SR reads the extra vector of row t. That took 28 % fewer
 * instructions than slots taken in row order ("fast: skewed loads").
 * EDGE: rows outside the matrix and vectors past the tile's nc columns are skipped, and vectors at the
 * span's ends read element-wise (the matrix's first or last bytes may sit in a vector the allocation does
 * not cover). */
template <int ES, int RS, bool EDGE>
__device__ __forceinline__ void skew_load_vectors(const SkewArgs &k, unsigned char *sm)
{
    typedef SkewGeo<ES> K;
    typedef typename K::G G;
    enum { TB = G::TC * ES, NCH = TB / 16, PER = FAST_THREADS / NCH, ROUNDS = (K::SR + PER - 1) / PER };
    static_assert(PER % 16 == 0 && K::SR <= FAST_THREADS,
                  "rows PER apart share their offset; one extra vector a thread");
    const unsigned t = threadIdx.x, r = t / NCH;
    const long long top = (long long)k.r0 - (K::W - 1), lds_b = (long long)(k.lds * ES);
    const char *src = k.src + k.c0 * ES; /* column c0 of row 0 */
    const char *end = EDGE ? span_end<ES>(k.src, k.rows, k.cols, k.lds) : 0;
    const int nb = EDGE ? (int)(k.nc * ES) : TB; /* bytes of the tile row inside the matrix */
    const char *first = src + (top + r) * lds_b; /* this thread's row in the first round */
    const int b = (int)(t % NCH) * 16 - (int)((uintptr_t)first & 15);
    uint4 v[ROUNDS], x = make_uint4(0, 0, 0, 0);
    unsigned ok = 0; /* bit it: round it loaded a vector */
#pragma unroll
    for (int it = 0; it < ROUNDS; it++) { /* all loads in flight before any use */
        const long long i = top + r + it * PER;
        if ((it + 1 < ROUNDS || r + it * PER < K::SR) && (!EDGE || (i >= 0 && i < (long long)k.rows && b < nb))) {
            const char *p = first + it * PER * lds_b + b;
            v[it] = EDGE ? load16_part<ES>(p, k.src, end, -b, nb - b) : __ldg((const uint4 *)p);
            ok |= 1u << it;
        }
    }
    const long long xi = top + t; /* the extra vector: NCH vectors into row t, at byte xb of the tile row */
    const char *xrow = src + xi * lds_b;
    const int xb = TB - (int)((uintptr_t)xrow & 15);
    const bool xok = t < K::SR && xb < nb && (!EDGE || (xi >= 0 && xi < (long long)k.rows));
    if (xok)
        x = EDGE ? load16_part<ES>(xrow + xb, k.src, end, -xb, nb - xb) : __ldg((const uint4 *)(xrow + xb));
#pragma unroll
    for (int it = 0; it < ROUNDS; it++)
        if (ok & (1u << it))
            skew_place<ES, TB>(sm + (r + it * PER) * RS, v[it], b);
    if (xok)
        skew_place<ES, TB>(sm + t * RS, x, xb);
}

/* One skewed tile. RS: bytes per tile row in shared memory (skew_stride_4: the stride with the fewest bank
 * conflicts). EDGE: the tile touches the matrix's first or last rows or its last columns, so rows outside
 * the matrix are not read, and destination vectors that cross the first or last row are written
 * element-wise; everything else stays 16 bytes wide ("fast: edge tiles"). */
template <int ES, int RS, bool EDGE> __device__ __forceinline__ void skew_tile(const SkewArgs &k, unsigned char *sm)
{
    typedef SkewGeo<ES> K;
    typedef typename XpElem<ES>::type T;
    const long long top = (long long)k.r0 - (K::W - 1);
    if constexpr (SkewAsync<ES>::ON)
        skew_load_async<ES, RS, EDGE>(k, sm);
    else
        skew_load_vectors<ES, RS, EDGE>(k, sm);
    __syncthreads();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
#pragma unroll
    for (int it = 0; it < K::STORES; it++) { /* a warp writes 8 vectors (128 bytes) of 4 destination rows */
        unsigned wi = warp + it * (FAST_THREADS / 32);
        unsigned vec = (wi % K::RGB) * 8 + (lane & 7), jj = (wi / K::RGB) * 4 + (lane >> 3);
        if (EDGE && jj >= k.nc)
            continue;
        char *drow = k.dst + ((k.c0 + jj) * k.ldd + k.r0) * ES;
        unsigned d = (unsigned)(((uintptr_t)drow & (K::WB - 1)) / ES);
        unsigned rr = K::W - 1 - d + vec * K::E;
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
