/* fast_tile.cuh: the tile machinery of the production transpose: geometry per element size, the swizzled
 * 16-byte vector tile, register gathers for small elements, and the padded scalar tile. */
#ifndef XP_FAST_TILE_CUH
#define XP_FAST_TILE_CUH

#include "fast_geometry.h"
#include "xp_cuda_util.cuh"

/* Tile shapes per element size (fast_geometry.h says why each). */
template <int ES> struct FastTile {
    enum { TR = XP_FAST_TR(ES), TC = XP_FAST_TC(ES) };
};
template <int ES> struct SmallTile {
    enum { TR = XP_SMALL_TR(ES), TC = XP_SMALL_TC(ES) };
};
template <int ES> struct DenseTile {
    enum { TR = XP_DENSE_TR, TC = XP_DENSE_TC(ES), BLOCKS = XP_DENSE_BLOCKS };
};
template <int ES> struct WideTile {
    enum { TR = XP_WIDE_TR(ES), TC = XP_WIDE_TC(ES) };
};

/* Row groups one warp's store instruction covers: 8 (128 bytes of 4 destination rows), or for 8- and 16-byte
 * elements 16 / 32 (256 bytes of 2 rows, 512 bytes of 1), as far as the tile has them: each destination segment
 * leaves in one instruction ("fast: line stores"). The gathers stay free of bank conflicts: a quarter-warp still reads
 * 8 consecutive row groups, an 8-byte half-warp both halves of 8 chunks (lane_group). 4-byte warps over 16 row groups
 * would meet 2-way conflicts under this swizzle, so 1-4 bytes keep 8. */
template <int ES, int NRG> struct StoreGroups {
    enum { WANT = ES == 16 ? 32 : ES == 8 ? 16 : 8, LRG = NRG < WANT ? NRG : WANT };
};

/* Everything that follows from the element size and a tile shape (the production shape by default). */
template <int ES_, int TR_ = FastTile<ES_>::TR, int TC_ = FastTile<ES_>::TC> struct Geo {
    enum {
        ES = ES_,
        TR = TR_,
        TC = TC_,
        E = 16 / ES_,                     /* elements per 16-byte vector */
        RB = TC * ES,                     /* bytes per tile row in shared memory (vector path) */
        NCH = RB / 16,                    /* 16-byte chunks per tile row */
        UC = ES < 4 ? 4 / ES : 1,         /* tile columns one shared-memory read unit (a word, or an element) spans */
        NRG = TR / E,                     /* row groups: one 16-byte output vector each */
        NU = TC / UC,                     /* read units across a tile row */
        LRG = StoreGroups<ES_, NRG>::LRG, /* a warp store covers LRG row groups ... */
        LU = 32 / LRG,                    /* ... of LU read units */
        RGB = NRG / LRG,
        UB = NU / LU,
        WARP_ITEMS = RGB * UB,
        LOADS = TR * NCH / FAST_THREADS,
        STORES = WARP_ITEMS / (FAST_THREADS / 32),
        PADB = ES < 4 ? 4 : ES, /* scalar path: pad rows by one bank-width access */
        SRB = RB + PADB,
        SMEM = XP_TILE_SMEM(ES, TR, TC), /* the larger layout of the two (vector: TR x RB; scalar: TR x SRB) */
    };
    static_assert(WARP_ITEMS % (FAST_THREADS / 32) == 0, "every warp stores the same number of items");
};

/* Waits until every block of the cluster has reached it (no memory ordering: a meeting point, not a fence). A block
 * launched without clusters is a cluster of one and passes at once; so does every block before sm_90, which has none. */
__device__ __forceinline__ void cluster_barrier(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
#endif
}

/* Byte offset of 16-byte chunk `ch` of tile row `row`: chunks are XOR-swizzled by the row's group so that
 * both the row-wise vector stores and the column-wise gathers hit 32 distinct banks per warp phase. */
template <class G> __device__ __forceinline__ unsigned chunk_at(unsigned row, unsigned ch)
{
    return row * G::RB + ((ch ^ ((row / G::E) & 7u)) << 4);
}

/* Packs the E elements of one column, rows rg*E .. rg*E+E-1, into 16-byte vectors (one per column of the
 * read unit) and stores them to the destination rows. */
/* Where the gathers put an output vector: destination row `col` of the tile, elements (source rows)
 * rg * E .. rg * E + E - 1. A full tile stores all of it, without cache hints ("fast: tile shapes"). */
struct PutFull {
    __device__ __forceinline__ void operator()(char *p, uint4 v, unsigned, unsigned) const { *(uint4 *)p = v; }
};

/* The last byte + 1 of a matrix's span (rows x cols, leading dimension ld): vectors that reach past it
 * may leave the allocation. */
template <int ES> __device__ __forceinline__ const char *span_end(const char *mat, size_t rows, size_t cols, size_t ld)
{
    return mat + ((rows - 1) * ld + cols) * ES;
}

/* The 16 bytes at p where they lie inside [begin, end), else only its elements whose byte offset from p
 * lies in [lo, hi) (the others read as zero). */
template <int ES>
__device__ __forceinline__ uint4 load16_part(const char *p, const char *begin, const char *end, int lo, int hi)
{
    if (p >= begin && p + 16 <= end)
        return __ldg((const uint4 *)p);
    typedef typename XpElem<ES>::type T;
    XpLanes<T> x;
    x.u = make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int e = 0; e < 16 / ES; e++)
        if (e * ES >= lo && e * ES < hi)
            x.e[e] = ((const T *)p)[e];
    return x.u;
}

/* Stores the elements lo .. hi - 1 of vector v at p (16-byte aligned): the whole vector when they cover it, else
 * aligned pieces of 1, 2, 4 and 8 bytes (at most 6 stores where one per element could take 15). */
template <int ES> __device__ __forceinline__ void store16_part(char *p, uint4 v, long long lo, long long hi)
{
    enum { E = 16 / ES };
    if (lo <= 0 && hi >= E) {
        *(uint4 *)p = v;
        return;
    }
    int b = (int)(lo < 0 ? 0 : lo > E ? E : lo) * ES; /* the byte range [b, end) */
    const int end = (int)(hi < 0 ? 0 : hi > E ? E : hi) * ES;
    const unsigned long long h0 = v.x | (unsigned long long)v.y << 32, h1 = v.z | (unsigned long long)v.w << 32;
#pragma unroll
    for (int pass = 0; pass < 2; pass++)
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int n = pass ? 8 >> i : 1 << i; /* up to an 8-byte boundary, then down in size */
            if (n >= ES && (pass ? end - b >= n : (b & n) && b + n <= end)) {
                const unsigned long long w = ((b & 8) ? h1 : h0) >> ((b & 7) * 8);
                if (n == 8)
                    *(unsigned long long *)(p + b) = w;
                else if (n == 4)
                    *(unsigned *)(p + b) = (unsigned)w;
                else if (n == 2)
                    *(unsigned short *)(p + b) = (unsigned short)w;
                else
                    *(unsigned char *)(p + b) = (unsigned char)w;
                b += n;
            }
        }
}

/* An edge tile of nr x nc: destination rows past nc are skipped, and a vector that crosses row nr keeps
 * only its first elements. */
template <int ES> struct PutEdge {
    unsigned nr, nc;
    __device__ __forceinline__ void operator()(char *p, uint4 v, unsigned col, unsigned rg) const
    {
        enum { E = 16 / ES };
        if (col < nc && rg * E < nr)
            store16_part<ES>(p, v, 0, (long long)nr - rg * E);
    }
};

template <class G, int ES = G::ES> struct Gather;

/* The words of read unit u (4 bytes of a tile row) in the N rows rg*N .. rg*N+N-1 (1- and 2-byte gathers). */
template <class G, int N>
__device__ __forceinline__ void unit_words(const unsigned char *sm, unsigned rg, unsigned u, unsigned (&w)[N])
{
#pragma unroll
    for (int k = 0; k < N; k++)
        w[k] = *(const unsigned *)(sm + chunk_at<G>(rg * N + k, u >> 2) + (u & 3) * 4);
}

/* Byte q (0-3) of each of 16 words (one word of 4 columns from each of 16 rows), in row order: the 16 bytes of
 * column q. Two permutes pair bytes of two words, a third joins the pairs. */
__device__ __forceinline__ uint4 byte_column(const unsigned (&w)[16], int q)
{
    const unsigned pair = (unsigned)q | ((unsigned)(q + 4) << 4); /* byte q of a, byte q of b */
    unsigned o[4];
#pragma unroll
    for (int m = 0; m < 4; m++)
        o[m] = __byte_perm(__byte_perm(w[4 * m], w[4 * m + 1], pair), __byte_perm(w[4 * m + 2], w[4 * m + 3], pair),
                           0x5410);
    return make_uint4(o[0], o[1], o[2], o[3]);
}

template <class G> struct Gather<G, 1> {
    /* 16 words (4 columns each) from 16 rows; output vector q is their byte column q. Building one vector at a
     * time keeps 16 words and 4 outputs live instead of 32 registers, which lets 4 blocks share an SM instead of 3
     * ("fast: byte gathers"). */
    template <class Put> static __device__ __forceinline__ void run(const unsigned char *sm, unsigned rg, unsigned u,
                                                                    char *dst, size_t ldd_b, const Put &put)
    {
        unsigned w[16];
        unit_words<G>(sm, rg, u, w);
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const uint4 v = byte_column(w, q);
            put(dst + (size_t)(u * 4 + q) * ldd_b + rg * 16, v, u * 4 + q, rg);
        }
    }
};

template <class G> struct Gather<G, 2> {
    /* 8 words (2 columns each) from 8 rows; half-word permutes give 2 vectors. */
    template <class Put> static __device__ __forceinline__ void run(const unsigned char *sm, unsigned rg, unsigned u,
                                                                    char *dst, size_t ldd_b, const Put &put)
    {
        unsigned w[8];
        unit_words<G>(sm, rg, u, w);
        unsigned lo[4], hi[4];
#pragma unroll
        for (int m = 0; m < 4; m++) {
            lo[m] = __byte_perm(w[2 * m], w[2 * m + 1], 0x5410);
            hi[m] = __byte_perm(w[2 * m], w[2 * m + 1], 0x7632);
        }
        put(dst + (size_t)(u * 2) * ldd_b + rg * 16, make_uint4(lo[0], lo[1], lo[2], lo[3]), u * 2, rg);
        put(dst + (size_t)(u * 2 + 1) * ldd_b + rg * 16, make_uint4(hi[0], hi[1], hi[2], hi[3]), u * 2 + 1, rg);
    }
};

/* 4, 8 and 16 bytes: E whole elements of column u make one vector. */
template <class G, int ES> struct Gather {
    template <class Put> static __device__ __forceinline__ void run(const unsigned char *sm, unsigned rg, unsigned u,
                                                                    char *dst, size_t ldd_b, const Put &put)
    {
        enum { E = G::E };
        typedef typename XpElem<ES>::type T;
        XpLanes<T> out;
        unsigned col_b = u * ES;
#pragma unroll
        for (int k = 0; k < E; k++)
            out.e[k] = *(const T *)(sm + chunk_at<G>(rg * E + k, col_b >> 4) + (col_b & 15));
        put(dst + (size_t)u * ldd_b + rg * 16, out.u, u, rg);
    }
};

/* Lane l of a warp's gather and store: row group l % LRG of read unit l / LRG, so that the warp's 16-byte stores
 * fill whole destination segments (LRG vectors in each of LU rows). 8-byte elements instead take row group l / 2 of
 * unit l % 2 (the warp stores the same addresses): a half-warp's 64-bit shared reads then cover both halves of 8
 * distinct chunks, 2 wavefronts a gather where 16 row groups of one unit took 4 ("fast: paired lanes"). */
template <class G> __device__ __forceinline__ unsigned lane_group(unsigned lane)
{
    return G::ES == 8 ? lane / G::LU : lane % G::LRG;
}
template <class G> __device__ __forceinline__ unsigned lane_unit(unsigned lane)
{
    return G::ES == 8 ? lane % G::LU : lane / G::LRG;
}

/* A full tile whose rows all start on 16-byte boundaries moves in three steps: every load in flight, then
 * into shared memory, then the gathers and 16-byte stores. */
template <class G> struct VecTile {
    uint4 v[G::LOADS];

    __device__ __forceinline__ void load(const char *src, size_t lds_b)
    {
#pragma unroll
        for (int it = 0; it < G::LOADS; it++) { /* all loads in flight before any use */
            unsigned q = threadIdx.x + it * FAST_THREADS, row = q / G::NCH, ch = q % G::NCH;
            v[it] = __ldg((const uint4 *)(src + (size_t)row * lds_b + ch * 16));
        }
    }

    /* Vectors FIRST .. FIRST + N - 1 into shared memory laid out as tile L from its first row: the whole tile (the
     * defaults), or the rows of one half of it through a buffer of half the size (fast_kernel_split). */
    template <class L = G, int FIRST = 0, int N = G::LOADS>
    __device__ __forceinline__ void to_shared(unsigned char *sm) const
    {
        enum { ROW0 = FIRST * FAST_THREADS / G::NCH };
#pragma unroll
        for (int it = FIRST; it < FIRST + N; it++) {
            unsigned q = threadIdx.x + it * FAST_THREADS, row = q / G::NCH - ROW0, ch = q % G::NCH;
            *(uint4 *)(sm + chunk_at<L>(row, ch)) = v[it];
        }
    }

    /* An edge tile (nr x nc of it inside the matrix): rows past nr and 16-byte chunks past nc are not read,
     * and a chunk that reaches past the matrix's last byte `end` is read element by element. */
    __device__ __forceinline__ void load_edge(const char *src, size_t lds_b, unsigned nr, unsigned nc, const char *end)
    {
#pragma unroll
        for (int it = 0; it < G::LOADS; it++) {
            unsigned q = threadIdx.x + it * FAST_THREADS, row = q / G::NCH, ch = q % G::NCH;
            const char *p = src + (size_t)row * lds_b + ch * 16;
            v[it] = make_uint4(0, 0, 0, 0);
            if (row < nr && ch * 16 < nc * G::ES)
                v[it] = load16_part<G::ES>(p, src, end, 0, (int)(nc * G::ES - ch * 16));
        }
    }

    template <class Put = PutFull> static __device__ __forceinline__ void store(const unsigned char *sm, char *dst,
                                                                                size_t ldd_b, const Put &put = Put())
    {
        const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
#pragma unroll
        for (int it = 0; it < G::STORES; it++) {
            unsigned wi = warp + it * (FAST_THREADS / 32);
            unsigned rg = (wi % G::RGB) * G::LRG + lane_group<G>(lane), u = (wi / G::RGB) * G::LU + lane_unit<G>(lane);
            Gather<G>::run(sm, rg, u, dst, ldd_b, put);
        }
    }
};

/* Any tile: element-wise, bounds-checked, through a padded tile (conflict-free column reads). FULL drops
 * the bounds checks for complete tiles whose rows are merely misaligned. */
template <class G, bool FULL> __device__ __forceinline__ void
tile_scalar(const char *src, char *dst, size_t lds, size_t ldd, unsigned nr, unsigned nc, unsigned char *sm)
{
    enum { ES = G::ES };
    typedef typename XpElem<ES>::type T;
    const T *s = (const T *)src;
    T *d = (T *)dst;
    const unsigned t = threadIdx.x;
    /* Batches of B loads in flight, not unrolled across batches: registers stay within the aligned path's
     * budget (128 elements per thread for 1-byte tiles would otherwise spill). */
    enum { N = G::TR * G::TC / FAST_THREADS, B = ES <= 2 ? 8 : N < 16 ? N : 16 };
#pragma unroll 1
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
#pragma unroll B
    for (int it = 0; it < N; it++) {
        unsigned q = t + it * FAST_THREADS, j = q / G::TR, i = q % G::TR;
        if (FULL || (j < nc && i < nr))
            d[(size_t)j * ldd + i] = *(const T *)(sm + i * G::SRB + j * ES);
    }
}

#endif
