/* fast.cu: the production GPU transpose (`fast`): 16 KB swizzled tiles, 16-byte global accesses both ways,
 * register permutes for 1- and 2-byte elements, a padded scalar path for edge and misaligned tiles. */
#include "fast.h"
#include "xp_cuda_util.cuh"

/* Tile shape per element size: 16 KB each, a source row segment of >= 128 bytes (full lines on load) and
 * a destination row segment of >= 128 bytes (full lines on store). */
template <int ES> struct FastTile;
template <> struct FastTile<1> { enum { TR = 128, TC = 128 }; };
template <> struct FastTile<2> { enum { TR = 128, TC = 64 }; };
template <> struct FastTile<4> { enum { TR = 64, TC = 64 }; };
template <> struct FastTile<8> { enum { TR = 64, TC = 32 }; };
template <> struct FastTile<16> { enum { TR = 32, TC = 32 }; };

#define FAST_THREADS 256

template <int ES> struct Geo {
    enum {
        TR = FastTile<ES>::TR,
        TC = FastTile<ES>::TC,
        E = 16 / ES,                 /* elements per 16-byte vector */
        RB = TC * ES,                /* bytes per tile row in shared memory (vector path) */
        NCH = RB / 16,               /* 16-byte chunks per tile row */
        UC = ES < 4 ? 4 / ES : 1,    /* tile columns one shared-memory read unit (a word, or an element) spans */
        NRG = TR / E,                /* row groups: one 16-byte output vector each */
        NU = TC / UC,                /* read units across a tile row */
        RGB = NRG / 8,               /* a warp covers 8 row groups (128 output bytes per destination row) ... */
        UB = NU / 4,                 /* ... and 4 read units */
        WARP_ITEMS = RGB * UB,
        LOADS = TR * NCH / FAST_THREADS,
        STORES = WARP_ITEMS / (FAST_THREADS / 32),
        PADB = ES < 4 ? 4 : ES,      /* scalar path: pad rows by one bank-width access */
        SRB = RB + PADB,
        SMEM = TR * SRB,             /* the larger of the two layouts */
    };
};

/* Byte offset of 16-byte chunk `ch` of tile row `row`: chunks are XOR-swizzled by the row's group so that
 * both the row-wise vector stores and the column-wise gathers hit 32 distinct banks per warp phase. */
template <int ES> __device__ __forceinline__ unsigned chunk_at(unsigned row, unsigned ch)
{
    return row * Geo<ES>::RB + ((ch ^ ((row / Geo<ES>::E) & 7u)) << 4);
}

/* Packs the E elements of one column, rows rg*E .. rg*E+E-1, into 16-byte vectors (one per column of the
 * read unit) and stores them to the destination rows. */
template <int ES> struct Gather;

template <> struct Gather<1> {
    /* 16 words (4 columns each) from 16 rows; 4x4 byte transposes give 4 vectors, one per column. */
    static __device__ __forceinline__ void run(const unsigned char *sm, unsigned rg, unsigned u, char *dst,
                                               size_t ldd_b)
    {
        unsigned w[16];
#pragma unroll
        for (int k = 0; k < 16; k++)
            w[k] = *(const unsigned *)(sm + chunk_at<1>(rg * 16 + k, u >> 2) + (u & 3) * 4);
        unsigned o[4][4];
#pragma unroll
        for (int m = 0; m < 4; m++) {
            unsigned t0 = __byte_perm(w[4 * m], w[4 * m + 1], 0x5140);
            unsigned t1 = __byte_perm(w[4 * m], w[4 * m + 1], 0x7362);
            unsigned t2 = __byte_perm(w[4 * m + 2], w[4 * m + 3], 0x5140);
            unsigned t3 = __byte_perm(w[4 * m + 2], w[4 * m + 3], 0x7362);
            o[0][m] = __byte_perm(t0, t2, 0x5410);
            o[1][m] = __byte_perm(t0, t2, 0x7632);
            o[2][m] = __byte_perm(t1, t3, 0x5410);
            o[3][m] = __byte_perm(t1, t3, 0x7632);
        }
#pragma unroll
        for (int q = 0; q < 4; q++)
            *(uint4 *)(dst + (size_t)(u * 4 + q) * ldd_b + rg * 16) = make_uint4(o[q][0], o[q][1], o[q][2], o[q][3]);
    }
};

template <> struct Gather<2> {
    /* 8 words (2 columns each) from 8 rows; half-word permutes give 2 vectors. */
    static __device__ __forceinline__ void run(const unsigned char *sm, unsigned rg, unsigned u, char *dst,
                                               size_t ldd_b)
    {
        unsigned w[8];
#pragma unroll
        for (int k = 0; k < 8; k++)
            w[k] = *(const unsigned *)(sm + chunk_at<2>(rg * 8 + k, u >> 2) + (u & 3) * 4);
        unsigned lo[4], hi[4];
#pragma unroll
        for (int m = 0; m < 4; m++) {
            lo[m] = __byte_perm(w[2 * m], w[2 * m + 1], 0x5410);
            hi[m] = __byte_perm(w[2 * m], w[2 * m + 1], 0x7632);
        }
        *(uint4 *)(dst + (size_t)(u * 2) * ldd_b + rg * 16) = make_uint4(lo[0], lo[1], lo[2], lo[3]);
        *(uint4 *)(dst + (size_t)(u * 2 + 1) * ldd_b + rg * 16) = make_uint4(hi[0], hi[1], hi[2], hi[3]);
    }
};

/* 4, 8 and 16 bytes: E whole elements of column u make one vector. */
template <int ES> struct Gather {
    static __device__ __forceinline__ void run(const unsigned char *sm, unsigned rg, unsigned u, char *dst,
                                               size_t ldd_b)
    {
        enum { E = 16 / ES };
        union {
            uint4 v;
            unsigned char b[16];
        } out;
        unsigned col_b = u * ES;
#pragma unroll
        for (int k = 0; k < E; k++) {
            const unsigned char *p = sm + chunk_at<ES>(rg * E + k, col_b >> 4) + (col_b & 15);
            if (ES == 4)
                ((unsigned *)out.b)[k] = *(const unsigned *)p;
            else if (ES == 8)
                ((unsigned long long *)out.b)[k] = *(const unsigned long long *)p;
            else
                out.v = *(const uint4 *)p;
        }
        *(uint4 *)(dst + (size_t)u * ldd_b + rg * 16) = out.v;
    }
};

/* A full tile whose rows all start on 16-byte boundaries: 16-byte loads, swizzled tile, 16-byte stores. */
template <int ES>
__device__ __forceinline__ void tile_vector(const char *src, char *dst, size_t lds_b, size_t ldd_b, unsigned char *sm)
{
    typedef Geo<ES> G;
    const unsigned t = threadIdx.x;
    uint4 v[G::LOADS];
#pragma unroll
    for (int it = 0; it < G::LOADS; it++) { /* all loads in flight before the first shared store */
        unsigned q = t + it * FAST_THREADS, row = q / G::NCH, ch = q % G::NCH;
        v[it] = __ldg((const uint4 *)(src + (size_t)row * lds_b + ch * 16));
    }
#pragma unroll
    for (int it = 0; it < G::LOADS; it++) {
        unsigned q = t + it * FAST_THREADS, row = q / G::NCH, ch = q % G::NCH;
        *(uint4 *)(sm + chunk_at<ES>(row, ch)) = v[it];
    }
    __syncthreads();
    const unsigned lane = t & 31, warp = t / 32;
#pragma unroll
    for (int it = 0; it < G::STORES; it++) {
        unsigned wi = warp + it * (FAST_THREADS / 32);
        unsigned rg = (wi % G::RGB) * 8 + (lane & 7), u = (wi / G::RGB) * 4 + (lane >> 3);
        Gather<ES>::run(sm, rg, u, dst, ldd_b);
    }
}

/* Any tile: element-wise, bounds-checked, through a padded tile (conflict-free column reads). FULL drops
 * the bounds checks for complete tiles whose rows are merely misaligned. */
template <int ES, bool FULL>
__device__ __forceinline__ void tile_scalar(const char *src, char *dst, size_t lds, size_t ldd, unsigned nr,
                                            unsigned nc, unsigned char *sm)
{
    typedef Geo<ES> G;
    typedef typename XpElem<ES>::type T;
    const T *s = (const T *)src;
    T *d = (T *)dst;
    const unsigned t = threadIdx.x;
    /* 16 loads in flight per batch of work keeps registers in bounds for 1-byte elements (64 per thread). */
    enum { N = G::TR * G::TC / FAST_THREADS, B = N < 16 ? N : 16 };
#pragma unroll
    for (int base = 0; base < N; base += B) {
        T v[B];
#pragma unroll
        for (int it = 0; it < B; it++) {
            unsigned q = t + (base + it) * FAST_THREADS, row = q / G::TC, col = q % G::TC;
            if (FULL || (row < nr && col < nc))
                v[it] = s[(size_t)row * lds + col];
        }
#pragma unroll
        for (int it = 0; it < B; it++) {
            unsigned q = t + (base + it) * FAST_THREADS, row = q / G::TC, col = q % G::TC;
            if (FULL || (row < nr && col < nc))
                *(T *)(sm + row * G::SRB + col * ES) = v[it];
        }
    }
    __syncthreads();
#pragma unroll
    for (int it = 0; it < N; it++) {
        unsigned q = t + it * FAST_THREADS, j = q / G::TR, i = q % G::TR;
        if (FULL || (j < nc && i < nr))
            d[(size_t)j * ldd + i] = *(const T *)(sm + i * G::SRB + j * ES);
    }
}

struct FastArgs {
    const char *src;
    char *dst;
    size_t rows, cols, lds, ldd, ss, sd; /* elements */
    size_t tiles_r, tiles_c, tiles;      /* tiles per matrix: tiles_r x tiles_c; all batch members: tiles */
    int vec;                              /* every row start is 16-byte aligned */
};

/* One block per tile, grid-striding over all tiles of all batch members (so any count fits the grid). */
template <int ES> __global__ void __launch_bounds__(FAST_THREADS, ES == 1 ? 3 : 4) fast_kernel(const FastArgs a)
{
    typedef Geo<ES> G;
    __shared__ __align__(16) unsigned char sm[G::SMEM];
    const size_t per_mat = a.tiles_r * a.tiles_c;
    for (size_t tile = blockIdx.x; tile < a.tiles; tile += gridDim.x) {
        size_t b = tile / per_mat, k = tile % per_mat, tr = k / a.tiles_c, tc = k % a.tiles_c;
        size_t r0 = tr * G::TR, c0 = tc * G::TC;
        const char *src = a.src + (b * a.ss + r0 * a.lds + c0) * ES;
        char *dst = a.dst + (b * a.sd + c0 * a.ldd + r0) * ES;
        unsigned nr = (unsigned)min((size_t)G::TR, a.rows - r0), nc = (unsigned)min((size_t)G::TC, a.cols - c0);
        bool full = nr == G::TR && nc == G::TC;
        if (full && a.vec)
            tile_vector<ES>(src, dst, a.lds * ES, a.ldd * ES, sm);
        else if (full)
            tile_scalar<ES, true>(src, dst, a.lds, a.ldd, nr, nc, sm);
        else
            tile_scalar<ES, false>(src, dst, a.lds, a.ldd, nr, nc, sm);
        __syncthreads(); /* the next tile reuses the shared buffer */
    }
}

template <int ES> static int launch(const xp_call *c)
{
    typedef Geo<ES> G;
    const xp_shape *s = &c->s;
    FastArgs a;
    a.src = (const char *)c->src;
    a.dst = (char *)c->dst;
    a.rows = s->rows, a.cols = s->cols, a.lds = s->lds, a.ldd = s->ldd, a.ss = s->ss, a.sd = s->sd;
    a.tiles_r = (s->rows + G::TR - 1) / G::TR;
    a.tiles_c = (s->cols + G::TC - 1) / G::TC;
    a.tiles = a.tiles_r * a.tiles_c * s->batch;
    bool strides_aligned = s->batch == 1 || ((s->ss * ES) % 16 == 0 && (s->sd * ES) % 16 == 0);
    a.vec = ((uintptr_t)c->src % 16 == 0) && ((uintptr_t)c->dst % 16 == 0) && (s->lds * ES) % 16 == 0 &&
            (s->ldd * ES) % 16 == 0 && strides_aligned;
    unsigned grid = (unsigned)min(a.tiles, (size_t)INT32_MAX);
    fast_kernel<ES><<<grid, FAST_THREADS, 0, xp_stream(c)>>>(a);
    return xp_cuda_launch_status();
}

extern "C" int xp_cuda_fast(const xp_call *c)
{
    switch (c->s.es) {
    case 1: return launch<1>(c);
    case 2: return launch<2>(c);
    case 4: return launch<4>(c);
    case 8: return launch<8>(c);
    default: return launch<16>(c);
    }
}
