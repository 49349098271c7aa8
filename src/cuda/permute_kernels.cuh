/* permute_kernels.cuh: the kernels of the N-d permutation (permute.cu): runs copied where source and destination share
 * their fastest dimension, and tiles over the source's and the destination's fastest dimensions, in 16-byte vectors
 * through the production transpose's swizzled tile (fast_tile.cuh) where the strides allow, element-wise otherwise. */
#ifndef XP_PERMUTE_KERNELS_CUH
#define XP_PERMUTE_KERNELS_CUH

#include "fast_order.cuh"
#include "fast_tile.cuh"

/* One dimension as a kernel sees it: its extent (with the magic numbers that divide by it) and its strides in bytes. */
struct PermDim {
    XpDiv ext;
    long long ss, ds;
};

/* A tiled permutation. d[0, na) is edge A (tile columns): source dimensions from the source's fastest (dimension a),
 * each next one continuing the last in the source, so that edge A's linear index moves along the source by a fixed
 * stride. d[na, na + nb) is edge B (tile rows): the same from the destination's fastest (dimension b). d[na + nb, nd)
 * are the outer dimensions, one tile position each, fastest in the destination first. Tile t of the grid is tile
 * t % tiles_b of edge B, then of edge A, then the outer index. */
struct PermArgs {
    const char *src;
    char *dst;
    unsigned na, nb, nd;
    unsigned va, vb;        /* volumes of edges A and B */
    XpDiv tiles_a, tiles_b; /* tiles along each edge */
    unsigned lr, lc;        /* element-wise tiles: log2 of their rows (edge B) and columns (edge A) */
    PermDim d[XPOSE_MAX_RANK];
};

/* Runs: where the destination's fastest dimension is also the source's, each destination row (that dimension) is a
 * run of `upr` units of `unit` bytes, su and du bytes apart in source and destination; d[0, nd) are the other
 * dimensions, fastest in the destination first. */
struct RunArgs {
    const char *src;
    char *dst;
    XpDiv upr;
    long long su, du;
    unsigned total; /* units in all */
    unsigned nd;
    PermDim d[XPOSE_MAX_RANK];
};

#define PERM_THREADS FAST_THREADS
#define PERM_RUN_UNITS 4 /* units per thread in the run kernel, all loaded before any is stored */

struct PermOff {
    long long s, d;
};

/* Source and destination byte offsets of linear index n over dimensions d[lo, hi) (the fastest first): one division
 * by a multiply-shift per dimension but the last, whose digit is what is left. */
__device__ __forceinline__ PermOff perm_offsets(const PermDim *d, unsigned lo, unsigned hi, unsigned n)
{
    PermOff o = {0, 0};
    for (unsigned i = lo; i < hi; i++) {
        unsigned digit = n;
        if (i + 1 < hi) {
            const unsigned q = div_by(n, d[i].ext);
            digit = n - q * d[i].ext.d;
            n = q;
        }
        o.s += (long long)digit * d[i].ss;
        o.d += (long long)digit * d[i].ds;
    }
    return o;
}

/* Where tile t lies: its first element's offsets (outer dimensions only), its first index along each edge, and how
 * many of its rows and columns lie inside the edges. */
struct PermTile {
    const char *src;
    char *dst;
    unsigned a0, b0, nc, nr;
};

__device__ __forceinline__ PermTile perm_tile(const PermArgs &a, unsigned t, unsigned tr, unsigned tc)
{
    const unsigned rest = div_by(t, a.tiles_b), tb = t - rest * a.tiles_b.d;
    const unsigned outer = div_by(rest, a.tiles_a), ta = rest - outer * a.tiles_a.d;
    const PermOff o = perm_offsets(a.d, a.na + a.nb, a.nd, outer);
    PermTile p;
    p.src = a.src + o.s;
    p.dst = a.dst + o.d;
    p.a0 = ta * tc;
    p.b0 = tb * tr;
    p.nc = min(tc, a.va - p.a0);
    p.nr = min(tr, a.vb - p.b0);
    return p;
}

/* The vector tile's stores: destination row `col` of the tile (an index along edge A) starts col_off[col] bytes past
 * the tile's first destination element; an edge tile keeps the columns and rows inside the edges. */
template <int ES> struct PermPut {
    const long long *col_off;
    __device__ __forceinline__ void operator()(char *p, uint4 v, unsigned col, unsigned) const
    {
        *(uint4 *)(p + col_off[col]) = v;
    }
};

template <int ES> struct PermPutEdge {
    const long long *col_off;
    unsigned nr, nc;
    __device__ __forceinline__ void operator()(char *p, uint4 v, unsigned col, unsigned rg) const
    {
        enum { E = 16 / ES };
        if (col < nc && rg * E < nr)
            store16_part<ES>(p + col_off[col], v, 0, (long long)nr - rg * E);
    }
};

/* The vector tile: TR rows along edge B by TC columns along edge A, edge A unit-stride in the source and edge B in the
 * destination, every row and column start on 16 bytes. Each thread loads its 16-byte chunks of source rows (each row's
 * offset from its index along edge B), the block fills the columns' destination offsets while the loads are in flight,
 * and the tile leaves through fast's swizzled shared memory and gathers (VecTile, Gather), which build 16-byte vectors
 * of destination rows. A tile that the edges cut is bounds-tested, keeping its vectors (load16_part, store16_part). */
template <class G, int MIN_BLOCKS> __global__ void __launch_bounds__(PERM_THREADS, MIN_BLOCKS)
    perm_vec_kernel(const __grid_constant__ PermArgs a)
{
    enum { ES = G::ES };
    extern __shared__ __align__(16) unsigned char sm[];
    long long *col_off = (long long *)(sm + G::SMEM);
    const PermTile t = perm_tile(a, blockIdx.x, G::TR, G::TC);
    const bool whole = t.nr == G::TR && t.nc == G::TC;
    const char *src = t.src + (size_t)t.a0 * ES;
    VecTile<G> vt;
#pragma unroll
    for (int it = 0; it < G::LOADS; it++) {
        const unsigned q = threadIdx.x + it * PERM_THREADS, row = q / G::NCH, ch = q % G::NCH;
        vt.v[it] = make_uint4(0, 0, 0, 0);
        if (whole) {
            const char *rs = src + perm_offsets(a.d, a.na, a.na + a.nb, t.b0 + row).s;
            vt.v[it] = __ldg((const uint4 *)(rs + ch * 16));
        } else if (row < t.nr && ch * 16 < t.nc * ES) {
            const char *rs = src + perm_offsets(a.d, a.na, a.na + a.nb, t.b0 + row).s;
            vt.v[it] = load16_part<ES>(rs + ch * 16, rs, rs + t.nc * ES, 0, (int)(t.nc * ES - ch * 16));
        }
    }
    for (unsigned c = threadIdx.x; c < G::TC; c += PERM_THREADS)
        col_off[c] = c < t.nc ? perm_offsets(a.d, 0, a.na, t.a0 + c).d : 0;
    vt.to_shared(sm);
    __syncthreads();
    char *dst = t.dst + (size_t)t.b0 * ES;
    if (whole) {
        PermPut<ES> put = {col_off};
        VecTile<G>::store(sm, dst, 0, put);
    } else {
        PermPutEdge<ES> put = {col_off, t.nr, t.nc};
        VecTile<G>::store(sm, dst, 0, put);
    }
}

/* Elements a thread of the element-wise tile loads before it stores them to shared memory. */
#define PERM_SCALAR_BATCH 8

/* Padding of the element-wise tile's rows, in elements: one 4-byte bank (or one element of 4 bytes and more), so that
 * a warp reading down a column meets 32 banks. */
template <int ES> struct PermPad {
    enum { N = ES < 4 ? 4 / ES : 1 };
};

/* Shared memory of the element-wise tile: the offsets of its rows and columns (source and destination, 8 bytes each),
 * then 2^lr rows of 2^lc + PermPad elements. */
static inline size_t perm_scalar_smem(size_t es, unsigned lr, unsigned lc)
{
    const size_t rows = (size_t)1 << lr, cols = (size_t)1 << lc, pad = es < 4 ? 4 / es : 1;
    return (rows + cols) * 2 * sizeof(long long) + rows * (cols + pad) * es;
}

/* The element-wise tile, for any strides: 2^lr rows along edge B by 2^lc columns along edge A, every row's and
 * column's offsets in a table that the block fills first. Loads walk the tile along its rows (edge A, the source's
 * fastest), stores along its columns (edge B, the destination's fastest). */
template <class T> __global__ void __launch_bounds__(PERM_THREADS)
    perm_scalar_kernel(const __grid_constant__ PermArgs a)
{
    extern __shared__ __align__(16) unsigned char sm[];
    const unsigned tr = 1u << a.lr, tc = 1u << a.lc, n = tr * tc, pitch = tc + PermPad<sizeof(T)>::N;
    long long *rs = (long long *)sm, *rd = rs + tr, *cs = rd + tr, *cd = cs + tc;
    T *tile = (T *)(cd + tc);
    const PermTile t = perm_tile(a, blockIdx.x, tr, tc);
    for (unsigned i = threadIdx.x; i < tr; i += PERM_THREADS) {
        const PermOff o = i < t.nr ? perm_offsets(a.d, a.na, a.na + a.nb, t.b0 + i) : PermOff{0, 0};
        rs[i] = o.s, rd[i] = o.d;
    }
    for (unsigned i = threadIdx.x; i < tc; i += PERM_THREADS) {
        const PermOff o = i < t.nc ? perm_offsets(a.d, 0, a.na, t.a0 + i) : PermOff{0, 0};
        cs[i] = o.s, cd[i] = o.d;
    }
    __syncthreads();
#pragma unroll 1
    for (unsigned base = 0; base < n; base += PERM_THREADS * PERM_SCALAR_BATCH) {
        T v[PERM_SCALAR_BATCH];
#pragma unroll
        for (int k = 0; k < PERM_SCALAR_BATCH; k++) {
            const unsigned q = base + k * PERM_THREADS + threadIdx.x, r = q >> a.lc, c = q & (tc - 1);
            if (q < n && r < t.nr && c < t.nc)
                v[k] = __ldg((const T *)(t.src + rs[r] + cs[c]));
        }
#pragma unroll
        for (int k = 0; k < PERM_SCALAR_BATCH; k++) {
            const unsigned q = base + k * PERM_THREADS + threadIdx.x, r = q >> a.lc, c = q & (tc - 1);
            if (q < n && r < t.nr && c < t.nc)
                tile[r * pitch + c] = v[k];
        }
    }
    __syncthreads();
#pragma unroll 4
    for (unsigned q = threadIdx.x; q < n; q += PERM_THREADS) {
        const unsigned r = q & (tr - 1), c = q >> a.lr;
        if (r < t.nr && c < t.nc)
            *(T *)(t.dst + cd[c] + rd[r]) = tile[r * pitch + c];
    }
}

/* Skinny: where the source's fastest extent k is small and the destination's fastest dimension (the long one, n)
 * continues it in the source (source rows of k elements back to back: HWC -> CHW, (n, 2) -> (2, n)), or the mirror
 * (the destination's fastest extent small, continued in the destination by the source's fastest). Each thread moves
 * E = 16 / es consecutive long indices by all k: k 16-byte loads of one contiguous segment (or one from each of k rows),
 * an E x k transpose in registers, k 16-byte stores to k rows (or one contiguous segment), so that every warp access
 * is a run of whole sectors, where a tile would use k of its 32-256 columns. d[0, nd) are the other dimensions. */
struct SkinnyArgs {
    const char *src;
    char *dst;
    XpDiv chunks;             /* chunks of E long indices per outer index */
    unsigned n, total;        /* the long extent; chunks of all outer indices (one thread each) */
    long long sl, dl, sk, dk; /* bytes per long index and per small index, source and destination */
    unsigned nd;
    PermDim d[XPOSE_MAX_RANK];
};

template <int ES, int K, bool CONTIG_SRC> __global__ void __launch_bounds__(PERM_THREADS)
    perm_skinny_kernel(const __grid_constant__ SkinnyArgs a)
{
    enum { E = 16 / ES };
    typedef typename XpElem<ES>::type T;
    const unsigned g = blockIdx.x * PERM_THREADS + threadIdx.x;
    if (g >= a.total)
        return;
    const unsigned outer = div_by(g, a.chunks), l0 = (g - outer * a.chunks.d) * E;
    const PermOff o = perm_offsets(a.d, 0, a.nd, outer);
    const char *src = a.src + o.s + (long long)l0 * a.sl;
    char *dst = a.dst + o.d + (long long)l0 * a.dl;
    if (l0 + E > a.n) { /* the last chunk of a row, cut short: element by element */
        for (unsigned e = 0; e < a.n - l0; e++)
            for (int c = 0; c < K; c++)
                *(T *)(dst + e * a.dl + c * a.dk) = *(const T *)(src + e * a.sl + c * a.sk);
        return;
    }
    union Lanes {
        uint4 v[K];
        T e[E * K];
    } in, out;
#pragma unroll
    for (int c = 0; c < K; c++)
        in.v[c] = __ldg((const uint4 *)(CONTIG_SRC ? src + c * 16 : src + c * a.sk));
#pragma unroll
    for (int e = 0; e < E; e++)
#pragma unroll
        for (int c = 0; c < K; c++) {
            if (CONTIG_SRC) /* in: E rows of k; out: k vectors of E */
                out.e[c * E + e] = in.e[e * K + c];
            else
                out.e[e * K + c] = in.e[c * E + e];
        }
#pragma unroll
    for (int c = 0; c < K; c++)
        *(uint4 *)(CONTIG_SRC ? dst + c * a.dk : dst + c * 16) = out.v[c];
}

/* Staged skinny: the skinny shapes the register kernel does not take (the k rows of the strided side off 16 bytes,
 * or k past XP_PERM_SKINNY_MAX, up to XP_PERM_STAGE_MAX_BYTES bytes a row of k). A block moves L long indices by all k
 * through shared memory, there as on the contiguous side (element (l, c) at l k + c): the contiguous side's L k
 * elements in 16-byte accesses, each of the k strided rows in 16-byte accesses on the row's own lines, element by
 * element only where a 16-byte piece holds the segment's ends. A strided row's 16-byte pieces lie 16 k bytes apart in
 * the stage; for an even k, 16 bytes of padding after each group of 16 / ES long indices make that an odd multiple of
 * 16 (stage_at), so a warp's 8 pieces (stage_rows) fall in 8 different groups of 4 banks, and the contiguous side
 * still moves whole 16-byte slots. d[0, nd) are the other dimensions. */
#define PERM_STAGE_BYTES 16384 /* shared memory a block stages */

struct StageArgs {
    const char *src;
    char *dst;
    XpDiv segs;         /* segments of L long indices per outer index */
    XpDiv pieces;       /* 16-byte pieces a strided row's segment spans, at most */
    XpDiv piece_groups; /* groups of 8 of them (stage_rows, grouped) */
    XpDiv kd;           /* k */
    unsigned grouped;   /* stage_rows' work items in groups of 8 pieces of 4 rows, else a row's pieces in turn */
    unsigned quads;     /* bytes: stage_quads moves the strided side, 4 rows a thread (k % 4 == 0, rows 16 apart) */
    unsigned ends;      /* the strided rows lie off 16 bytes: stage_rows' ENDS instances (whole pieces inside rows) */
    unsigned n, k, L;   /* the long extent, the small one, long indices a segment (stage_at pads an even k) */
    long long sl, dl, sk, dk; /* bytes per long index and per small index, source and destination */
    unsigned nd;
    PermDim d[XPOSE_MAX_RANK];
};

/* Where element (l, c) of a segment lies in the stage, in elements: l k + c, and 16 bytes (E = 16 / ES elements) more
 * for each whole group of E long indices before l where k is even. */
template <int ES, bool PAD> __device__ __forceinline__ unsigned stage_at(const StageArgs &a, unsigned l, unsigned c)
{
    enum { E = 16 / ES };
    return l * a.k + c + (PAD ? l / E * E : 0);
}

/* The 4 x 4 byte transpose of 4 words: byte j of word i becomes byte i of word j (its own inverse). */
__device__ __forceinline__ void quad_bytes(unsigned w[4])
{
    const unsigned ab_lo = __byte_perm(w[0], w[1], 0x5140), ab_hi = __byte_perm(w[0], w[1], 0x7362);
    const unsigned cd_lo = __byte_perm(w[2], w[3], 0x5140), cd_hi = __byte_perm(w[2], w[3], 0x7362);
    w[0] = __byte_perm(ab_lo, cd_lo, 0x5410), w[1] = __byte_perm(ab_lo, cd_lo, 0x7632);
    w[2] = __byte_perm(ab_hi, cd_hi, 0x5410), w[3] = __byte_perm(ab_hi, cd_hi, 0x7632);
}

/* The elements of a 16-byte piece of row c that lie in [0, end) (long indices from the segment's first; `first` is the
 * piece's first element), one by one: the ends of a segment or a row, moved between the row and the stage. */
template <int ES, bool LOAD, bool PAD>
__device__ __forceinline__ void stage_piece_ends(const StageArgs &a, char *piece, long long first, long long end,
                                                 unsigned c, typename XpElem<ES>::type *stage)
{
    typedef typename XpElem<ES>::type T;
    for (int e = 0; e < 16 / ES; e++) {
        const long long l = first + e;
        if (l < 0 || l >= end)
            continue;
        T *st = stage + stage_at<ES, PAD>(a, (unsigned)l, c), *el = (T *)(piece + e * ES);
        if (LOAD)
            *st = *el;
        else
            *el = *st;
    }
}

/* stage_rows for bytes where k % 4 == 0 (so k is even: the stage is padded) and the strided rows lie a multiple of
 * 16 bytes apart: work item 8 (g k / 4 + r) + j is piece 8 g + j of rows 4 r .. 4 r + 3, which then cover the same
 * long indices. A long index's 4 bytes of those rows are one word of the stage, so a whole piece moves as 16 words
 * and 4 x 4 byte transposes in registers, where stage_rows moves each byte on its own (instruction-bound at k = 24
 * in Nsight Compute: "permute: staged skinny kernel"). A warp takes 8 pieces (a line) of each of 16 rows; its words
 * fall in 32 different banks where k is a multiple of 16, else at most two to a bank where its rows wrap to the next
 * 8 pieces. */
template <bool LOAD>
__device__ __forceinline__ void stage_quads(const StageArgs &a, char *row, long long step, unsigned len, uint8_t *stage)
{
    const unsigned k = a.k, kq = k / 4, total = a.piece_groups.d * kq * 8, phase = (unsigned)((uintptr_t)row & 15);
    for (unsigned q = threadIdx.x; q < total; q += PERM_THREADS) {
        const unsigned gq = q >> 3, g = div_by(4 * gq, a.kd), c = 4 * (gq - g * kq), m = g * 8 + (q & 7);
        if (m >= a.pieces.d)
            continue;
        const long long first = 16ll * m - phase; /* the piece's first element, relative to the segment */
        if (first >= (long long)len || first + 16 <= 0)
            continue;
        char *piece = row - phase + c * step + 16ll * m; /* row c's; row c + j's j * step on */
        if (first >= 0 && first + 16 <= (long long)len) {
            const unsigned f = (unsigned)first, last = 15 - f % 16;
            unsigned at = stage_at<1, true>(a, f, c);
            union {
                uint4 v;
                unsigned w[4];
            } r[4];
            if (LOAD)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    r[j].v = __ldg((const uint4 *)(piece + j * step));
#pragma unroll
            for (int t = 0; t < 4; t++) { /* long indices f + 4 t .. f + 4 t + 3: word t of each row's piece */
                unsigned w[4];
#pragma unroll
                for (int i = 0; i < 4; i++)
                    if (LOAD) {
                        w[i] = r[i].w[t];
                    } else {
                        w[i] = *(const unsigned *)(stage + at);
                        at += k + ((unsigned)(4 * t + i) == last ? 16 : 0);
                    }
                quad_bytes(w);
#pragma unroll
                for (int i = 0; i < 4; i++)
                    if (LOAD) {
                        *(unsigned *)(stage + at) = w[i];
                        at += k + ((unsigned)(4 * t + i) == last ? 16 : 0);
                    } else {
                        r[i].w[t] = w[i];
                    }
            }
            if (!LOAD)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    *(uint4 *)(piece + j * step) = r[j].v;
            continue;
        }
        for (int j = 0; j < 4; j++) /* a segment's end: its elements only */
            stage_piece_ends<1, LOAD, true>(a, piece + j * step, first, len, c + j, stage);
    }
}

/* The strided side of a staged segment: piece m of row c (m < pieces) moved between the row, at `row` + c * step
 * (len elements from there, the segment's first being long index l0), and the stage: loaded into it (LOAD) or stored
 * from it. Where the rows lie off 16 bytes (ENDS), a piece inside the row (long indices 0 .. n - 1) moves as one
 * 16-byte access: loaded whole, its elements of the segment kept; stored by the one segment that holds its first
 * element (the row's head piece by the first), from the stage, which holds the E - 1 long indices past the segment for
 * it (perm_stage_kernel); only the ends of a row move element by element. Without it the ends of every segment did, 16
 * single-byte accesses a piece, which cost (N, 64) u8 half its speed; on rows on 16 bytes the ENDS code cost the
 * byte-wise path up to 4 points ("permute: staged skinny kernel"). Work item q is piece q % pieces
 * of row q / pieces: a warp on 32 consecutive pieces of one row, 512 contiguous bytes, whose places in the stage meet
 * 4 to a bank. Grouped, item 8 (g k + c) + j is piece 8 g + j of row c: a warp on 8 pieces (128 bytes) of each of 4
 * rows, whose places fall in 8 different groups of 4 banks with the 4 rows' elements side by side, no two lanes in a
 * bank; for bytes, 16 shared accesses a piece, that pays ("permute: staged skinny kernel"). QUADS: stage_quads
 * instead, in kernel instances of their own (a run-time branch to it cost the byte-wise path 4 points at k = 64). */
template <int ES, bool LOAD, bool PAD, bool QUADS, bool ENDS> __device__ __forceinline__ void
stage_rows(const StageArgs &a, char *row, long long step, unsigned len, unsigned l0, typename XpElem<ES>::type *stage)
{
    typedef typename XpElem<ES>::type T;
    enum { E = 16 / ES };
    if constexpr (QUADS) {
        static_assert(ES == 1 && PAD, "stage_quads moves bytes of a padded stage");
        stage_quads<LOAD>(a, row, step, len, (uint8_t *)stage);
        return;
    }
    const unsigned k = a.k, total = a.grouped ? a.piece_groups.d * k * 8 : k * a.pieces.d;
    for (unsigned q = threadIdx.x; q < total; q += PERM_THREADS) {
        unsigned c, m;
        if (a.grouped) {
            const unsigned g = div_by(q >> 3, a.kd);
            c = (q >> 3) - g * k, m = g * 8 + (q & 7);
            if (m >= a.pieces.d)
                continue;
        } else {
            c = div_by(q, a.pieces), m = q - c * a.pieces.d;
        }
        char *base = row + c * step;
        char *piece = (char *)(((uintptr_t)base & ~(uintptr_t)15) + 16 * (uintptr_t)m);
        const long long first = (piece - base) / ES; /* the piece's first element, relative to the segment */
        const long long tail = ENDS ? (long long)a.n - l0 : len; /* the elements from the segment's first on it takes */
        bool whole;
        if constexpr (ENDS) {
            if (first >= (long long)len || (LOAD ? first + E <= 0 : first < 0 && l0 > 0))
                continue; /* none of the segment's, or (stores) the piece of the segment before */
            whole = first >= -(long long)l0 && first + E <= tail; /* inside the row */
        } else {
            if (first >= (long long)len || first + E <= 0)
                continue;
            whole = first >= 0 && first + E <= (long long)len;
        }
        if (whole) { /* one 16-byte access */
            union {
                uint4 v;
                T e[E];
            } u;
            /* element e's place: k on from the last one's, and past the padding where a group of E begins; the
             * first's is stage_at's E elements on, less a group (signed: with ENDS, a loaded piece may start up to
             * E - 1 elements before the segment, in the group before it) */
            const int f = (int)first;
            int at = (int)stage_at<ES, PAD>(a, (unsigned)(f + E), c) - E * ((int)k + (PAD ? 1 : 0));
            if (LOAD)
                u.v = __ldg((const uint4 *)piece);
#pragma unroll
            for (int e = 0; e < E; e++) {
                if (!LOAD)
                    u.e[e] = stage[at];
                else if (!ENDS || (f + e >= 0 && f + e < (int)len))
                    stage[at] = u.e[e];
                at += (int)k + (PAD && (f + e + 1) % E == 0 ? E : 0);
            }
            if (!LOAD)
                *(uint4 *)piece = u.v;
            continue;
        }
        /* a row's end (without ENDS, a segment's): its elements only */
        stage_piece_ends<ES, LOAD, PAD>(a, piece, first, LOAD ? (long long)len : tail, c, stage);
    }
}

/* The contiguous side of a staged segment, `elems` elements from seg (on 16 bytes): loaded into the stage (LOAD) or
 * stored from it, 16 bytes a thread. Vector v holds elements v E .. v E + E - 1, all in one group of E long indices
 * (a group is k vectors), so it is the stage's 16-byte slot v, or v + v / k past the padding. */
template <int ES, bool LOAD, bool PAD> __device__ __forceinline__ void
stage_contig(const StageArgs &a, char *seg, unsigned elems, typename XpElem<ES>::type *stage)
{
    typedef typename XpElem<ES>::type T;
    enum { E = 16 / ES };
    const unsigned vecs = elems / E;
    for (unsigned v = threadIdx.x; v < vecs; v += PERM_THREADS) {
        const unsigned slot = PAD ? v + div_by(v, a.kd) : v;
        if (LOAD)
            ((uint4 *)stage)[slot] = __ldg((const uint4 *)seg + v);
        else
            ((uint4 *)seg)[v] = ((const uint4 *)stage)[slot];
    }
    for (unsigned q = vecs * E + threadIdx.x; q < elems; q += PERM_THREADS) {
        const unsigned l = div_by(q, a.kd), c = q - l * a.k;
        if (LOAD)
            stage[stage_at<ES, PAD>(a, l, c)] = ((const T *)seg)[q];
        else
            ((T *)seg)[q] = stage[stage_at<ES, PAD>(a, l, c)];
    }
}

/* 8 blocks a multiprocessor, 32 registers a thread (no spills): bytes from a contiguous source otherwise took 40 and
 * ran 6 blocks ("permute: staged skinny kernel"). */
template <int ES, bool CONTIG_SRC, bool PAD, bool QUADS, bool ENDS> __global__ void __launch_bounds__(PERM_THREADS, 8)
    perm_stage_kernel(const __grid_constant__ StageArgs a)
{
    typedef typename XpElem<ES>::type T;
    extern __shared__ uint4 stage_v[];
    T *stage = (T *)stage_v;
    enum { E = 16 / ES };
    const unsigned outer = div_by(blockIdx.x, a.segs), l0 = (blockIdx.x - outer * a.segs.d) * a.L;
    const unsigned len = min(a.L, a.n - l0), elems = len * a.k;
    const PermOff o = perm_offsets(a.d, 0, a.nd, outer);
    const char *src = a.src + o.s + (long long)l0 * a.sl;
    char *dst = a.dst + o.d + (long long)l0 * a.dl;
    /* ENDS: the stores of stage_rows finish the piece that holds the segment's last element, E - 1 indices on */
    const unsigned staged = CONTIG_SRC && ENDS ? min(a.L + E - 1, a.n - l0) * a.k : elems;
    if (CONTIG_SRC) /* the segment's len k elements back to back, on 16 bytes */
        stage_contig<ES, true, PAD>(a, (char *)src, staged, stage);
    else
        stage_rows<ES, true, PAD, QUADS, ENDS>(a, (char *)src, a.sk, len, l0, stage);
    __syncthreads();
    if (CONTIG_SRC)
        stage_rows<ES, false, PAD, QUADS, ENDS>(a, dst, a.dk, len, l0, stage);
    else
        stage_contig<ES, false, PAD>(a, dst, elems, stage);
}

/* Runs: consecutive threads move consecutive units of the destination, PERM_RUN_UNITS each, every load in flight
 * before the stores. */
template <class U> __global__ void __launch_bounds__(PERM_THREADS) perm_runs_kernel(const __grid_constant__ RunArgs a)
{
    U v[PERM_RUN_UNITS];
    long long to[PERM_RUN_UNITS];
    const unsigned first = blockIdx.x * (PERM_THREADS * PERM_RUN_UNITS) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < PERM_RUN_UNITS; k++) {
        const unsigned u = first + k * PERM_THREADS;
        if (u < a.total) {
            const unsigned row = div_by(u, a.upr), w = u - row * a.upr.d;
            const PermOff o = perm_offsets(a.d, 0, a.nd, row);
            v[k] = __ldg((const U *)(a.src + o.s + w * a.su));
            to[k] = o.d + w * a.du;
        }
    }
#pragma unroll
    for (int k = 0; k < PERM_RUN_UNITS; k++)
        if (first + k * PERM_THREADS < a.total)
            *(U *)(a.dst + to[k]) = v[k];
}

#endif
