/* fast_skew.cuh: the production transpose's path for misaligned rows of 4- and 8-byte elements: aligned
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
 *   aligned case, and placed in shared memory word by word at their true column.
 * Tiles whose halo would leave the matrix (first tile row, first and last tile columns, the bottom) take
 * the same ownership rule with element-wise, bounds-checked accesses. */
struct SkewArgs {
    const char *src; /* this batch member */
    char *dst;
    size_t rows, cols, lds, ldd;
    size_t r0, c0;
    unsigned nc;
};

template <int ES> struct SkewGeo {
    typedef Geo<ES> G;
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

/* Interior tile: every source vector and every destination window lies inside the matrix. */
template <int ES> __device__ __forceinline__ bool skew_interior(const SkewArgs &k)
{
    typedef Geo<ES> G;
    return k.r0 >= G::TR && k.c0 >= G::TC && k.r0 + G::TR <= k.rows && k.c0 + G::TC + G::E <= k.cols;
}

/* RS: bytes per tile row in shared memory (skew_stride: the one with the fewest bank conflicts). */
template <int ES, int RS> __device__ __forceinline__ void skew_interior_tile(const SkewArgs &k, unsigned char *sm)
{
    typedef Geo<ES> G;
    typedef SkewGeo<ES> K;
    typedef typename XpElem<ES>::type T;
    const size_t top = k.r0 - (K::E - 1);
    uint4 v[K::LOAD_ROUNDS];
    int at[K::LOAD_ROUNDS]; /* byte offset in the tile row of each vector's first byte; may be negative */
#pragma unroll
    for (int it = 0; it < K::LOAD_ROUNDS; it++) { /* all loads in flight before any use */
        unsigned q = threadIdx.x + it * FAST_THREADS;
        if (q < K::SR * K::NV) {
            unsigned rr = q / K::NV, vec = q % K::NV;
            const char *row = k.src + ((top + rr) * k.lds + k.c0) * ES;
            unsigned s = (unsigned)((uintptr_t)row & 15);
            v[it] = __ldg((const uint4 *)(row - s) + vec);
            at[it] = (int)(vec * 16) - (int)s;
        }
    }
#pragma unroll
    for (int it = 0; it < K::LOAD_ROUNDS; it++) {
        unsigned q = threadIdx.x + it * FAST_THREADS;
        if (q < K::SR * K::NV) {
            unsigned char *row = sm + (q / K::NV) * RS;
            const unsigned w[4] = {v[it].x, v[it].y, v[it].z, v[it].w};
#pragma unroll
            for (int x = 0; x < 4; x++) {
                int b = at[it] + 4 * x;
                if (b >= 0 && b < G::TC * ES)
                    *(unsigned *)(row + b) = w[x];
            }
        }
    }
    __syncthreads();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
#pragma unroll
    for (int it = 0; it < K::STORES; it++) { /* a warp writes 8 vectors (128 bytes) of 4 destination rows */
        unsigned wi = warp + it * (FAST_THREADS / 32);
        unsigned vec = (wi % K::RGB) * 8 + (lane & 7), jj = (wi / K::RGB) * 4 + (lane >> 3);
        char *drow = k.dst + ((k.c0 + jj) * k.ldd + k.r0) * ES;
        unsigned d = (unsigned)(((uintptr_t)drow & 15) / ES);
        unsigned rr = K::E - 1 - d + vec * K::E;
        union {
            uint4 u;
            T e[K::E];
        } o;
#pragma unroll
        for (int e = 0; e < K::E; e++)
            o.e[e] = *(const T *)(sm + (rr + e) * RS + jj * ES);
        *(uint4 *)(drow - d * ES + vec * 16) = o.u;
    }
}

template <int ES> __device__ __forceinline__ void skew_border_tile(const SkewArgs &k, unsigned char *sm)
{
    typedef Geo<ES> G;
    typedef SkewGeo<ES> K;
    typedef typename XpElem<ES>::type T;
    const long long top = (long long)k.r0 - (K::E - 1);
    const T *src = (const T *)k.src;
    for (unsigned q = threadIdx.x; q < K::SR * G::TC; q += FAST_THREADS) {
        unsigned rr = q / G::TC, c = q % G::TC;
        long long i = top + rr;
        if (i >= 0 && (size_t)i < k.rows && c < k.nc)
            *(T *)(sm + rr * G::SRB + c * ES) = src[(size_t)i * k.lds + k.c0 + c];
    }
    __syncthreads();
    for (unsigned q = threadIdx.x; q < G::TC * G::TR; q += FAST_THREADS) {
        unsigned jj = q / G::TR, t = q % G::TR;
        if (jj >= k.nc)
            continue;
        T *drow = (T *)(k.dst + (k.c0 + jj) * k.ldd * ES);
        long long d = (long long)(((uintptr_t)(drow + k.r0) & 15) / ES);
        long long i = (long long)k.r0 - d + t;
        if (i >= 0 && (size_t)i < k.rows)
            drow[i] = *(const T *)(sm + (unsigned)(i - top) * G::SRB + jj * ES);
    }
}

#endif
