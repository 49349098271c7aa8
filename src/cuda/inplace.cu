/* inplace.cu: the GPU in-place transposes: square matrices by tile pairs swapped across the diagonal, rectangular ones
 * by the passes of xp_inplace_math.h, each group of a pass (a row, or a strip of columns) held whole in the shared
 * memory of one block or of a thread-block cluster while it is permuted. */
#include <cooperative_groups.h>
#include <cuda_pipeline.h>
#include "../core/xp_inplace_math.h"
#include "fast_tile.cuh"
#include "inplace.h"

namespace cg = cooperative_groups;

/* Blocks for `total` units of work, each block looping over its share past this many. */
static unsigned grid_cap(unsigned long long total) { return (unsigned)(total < (1ull << 20) ? total : (1ull << 20)); }

/* The device's multiprocessors. */
static int sm_count(int *sms)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        cudaGetLastError();
        return XPOSE_ERR_CUDA;
    }
    return XPOSE_OK;
}

/* Launches kernel on A over `units` clusters of K blocks (grid_cap caps them; each loops over its share), with `smem`
 * bytes of dynamic shared memory a block: the opt-in set past 48 KiB, and a cluster of K such blocks checked to fit
 * the device at all (else XPOSE_ERR_UNSUPPORTED). */
template <class Args> static int cluster_launch(void (*kernel)(Args), const Args &A, unsigned long long units,
                                                unsigned K, unsigned threads, size_t smem, cudaStream_t stream)
{
    if (xp_smem_optin((const void *)kernel, smem) != XPOSE_OK)
        return XPOSE_ERR_CUDA;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid_cap(units) * K);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cudaLaunchAttribute at;
    if (K > 1) {
        at.id = cudaLaunchAttributeClusterDimension;
        at.val.clusterDim.x = K;
        at.val.clusterDim.y = 1;
        at.val.clusterDim.z = 1;
        cfg.attrs = &at;
        cfg.numAttrs = 1;
        int active = 0;
        if (cudaOccupancyMaxActiveClusters(&active, kernel, &cfg) != cudaSuccess || active < 1) {
            cudaGetLastError();
            return XPOSE_ERR_UNSUPPORTED;
        }
    }
    if (cudaLaunchKernelEx(&cfg, kernel, A) != cudaSuccess) {
        cudaGetLastError();
        return XPOSE_ERR_CUDA;
    }
    return xp_cuda_launch_status();
}

/* ---- square: tile pairs ------------------------------------------------------------------------------------------ */

/* Tile pair k = J (J + 1) / 2 + I, I <= J: tiles (I, J) and (J, I). */
__device__ __forceinline__ void sq_pair(unsigned long long k, unsigned long long *I, unsigned long long *J)
{
    unsigned long long j = (unsigned long long)((sqrt(8.0 * (double)k + 1.0) - 1.0) / 2.0);
    while (j * (j + 1) / 2 > k)
        j--;
    while ((j + 1) * (j + 2) / 2 <= k)
        j++;
    *J = j;
    *I = k - j * (j + 1) / 2;
}

/* Rows aligned to 16 bytes: the production transpose's vector tiles (fast_tile.cuh). */
struct SqArgs {
    char *data;
    size_t n, ld;                    /* elements a side; bytes a row */
    size_t member, block;            /* bytes from one matrix to the next, and from one square to the next in it */
    unsigned long long blocks;       /* squares a matrix: 1, or the tile form's g x g blocks (rect_tiles) */
    unsigned long long units, total; /* units of work a square, in the batch */
    unsigned walks;                  /* the units taken from this many parts of the order in turn */
    unsigned K;                      /* blocks a cluster, which meet between their loads and their stores */
    unsigned long long spans;        /* WIDE: tile-column pairs a square */
    unsigned group;                  /* WIDE, K = 4 group: a cluster takes 4 units of each of `group` column pairs */
};

/* floor(sqrt(x)): the double's root, corrected where it rounds. */
__device__ __forceinline__ unsigned long long sq_isqrt(unsigned long long x)
{
    unsigned long long s = (unsigned long long)sqrt((double)x);
    while (s * s > x)
        s--;
    while ((s + 1) * (s + 1) <= x)
        s++;
    return s;
}

/* WIDE unit k in the order where each 4 G consecutive units are tile rows I..I + 3 of column pairs G D..G D + G - 1:
 * with G = 2, a cluster's 8 tiles then cover 512 bytes of 512 rows on both sides of the diagonal, where 8 tile rows of
 * one pair cover 256 bytes of 1024 rows on one side and 1 KiB of 256 on the other ("inplace: square clusters"). Those
 * groups of every D first (2 G^2 D units a D), then what they leave of each D (G^2: the tile rows from 2 G D down to
 * the diagonal), then the last spans mod G pairs in the plain order. Returns S and I as k = S^2 + I in the plain
 * order. */
__device__ __forceinline__ void sq_group(unsigned long long k, unsigned long long spans, unsigned G,
                                         unsigned long long *S, unsigned long long *I)
{
    const unsigned long long nd = spans / G, g2 = (unsigned long long)G * G, grouped = g2 * nd * (nd > 0 ? nd - 1 : 0);
    if (k < grouped) { /* D: G^2 D (D - 1) <= k < G^2 D (D + 1) */
        unsigned long long d = (unsigned long long)((1.0 + sqrt(1.0 + 4.0 * (double)k / (double)g2)) / 2.0);
        while (d > 1 && g2 * d * (d - 1) > k)
            d--;
        while (g2 * (d + 1) * d <= k)
            d++;
        const unsigned long long r = k - g2 * d * (d - 1), q = r % (4 * G);
        *S = G * d + q / 4;
        *I = r / (4 * G) * 4 + q % 4;
        return;
    }
    const int left = k < grouped + g2 * nd;
    const unsigned long long e = left ? (k - grouped) % g2 : k; /* left: e = j^2 + i for pair G D + j, row 2 G D + i */
    const unsigned long long s = sq_isqrt(e), base = left ? (k - grouped) / g2 * G : 0;
    *S = base + s;
    *I = 2 * base + e - s * s;
}

/* Unit k of a matrix's `units` in the order of `walks` walks: consecutive blocks take units from parts of the order
 * units / walks apart (the units past walks x (units / walks) stay in place). */
__device__ __forceinline__ unsigned long long sq_walk(unsigned long long k, unsigned long long units, unsigned walks)
{
    const unsigned long long q = units / walks;
    return walks < 2 || k >= q * walks ? k : k % walks * q + k / walks;
}

/* The h x w part of tile G at src straight into shared memory in VecTile's layout (chunk_at), by cp.async: no
 * registers hold the loads, which lets byte units run 3 blocks a multiprocessor where register loads allow 2. */
template <class G>
__device__ __forceinline__ void sq_load_async(unsigned char *sm, const char *src, size_t ld, unsigned h, unsigned w)
{
#pragma unroll
    for (int it = 0; it < G::LOADS; it++) {
        const unsigned q = threadIdx.x + it * FAST_THREADS, row = q / G::NCH, ch = q % G::NCH;
        if (row < h && ch * 16 < w * G::ES)
            __pipeline_memcpy_async(sm + chunk_at<G>(row, ch), src + (size_t)row * ld + ch * 16, 16);
    }
}

/* Swaps the h x w tile at a (of GA's TR x TC) and its mirror, the w x h tile at b (GB's TC x TR), across the
 * diagonal: both loaded, every load in flight (in registers, or with ASYNC by cp.async), then each stored transposed
 * into the other's place by the byte-permute gathers; a == b: a diagonal tile onto itself. Rows of whole 16-byte
 * vectors (h and w multiples of one); the shared memory past an edge tile's part is never stored. */
template <class GA, class GB, bool ASYNC> __device__ __forceinline__ void
sq_swap(char *a, char *b, size_t ld, unsigned h, unsigned w, const char *end, unsigned char *sm, bool meet)
{
    enum { ES = GA::ES };
    const bool two = a != b, whole = h == GA::TR && w == GA::TC;
    unsigned char *sb = sm + GA::TR * GA::RB;
    if (ASYNC) {
        sq_load_async<GA>(sm, a, ld, h, w);
        if (two)
            sq_load_async<GB>(sb, b, ld, w, h);
        __pipeline_commit();
        __pipeline_wait_prior(0);
    } else {
        VecTile<GA> va;
        VecTile<GB> vb;
        if (whole) {
            va.load(a, ld);
            if (two)
                vb.load(b, ld);
        } else {
            va.load_edge(a, ld, h, w, end);
            if (two)
                vb.load_edge(b, ld, w, h, end);
        }
        va.to_shared(sm);
        if (two)
            vb.to_shared(sb);
    }
    __syncthreads();
    if (meet)
        cluster_barrier();
    if (whole) {
        VecTile<GA>::store(sm, b, ld);
        if (two)
            VecTile<GB>::store(sb, a, ld);
    } else {
        VecTile<GA>::store(sm, b, ld, PutEdge<ES>{h, w});
        if (two)
            VecTile<GB>::store(sb, a, ld, PutEdge<ES>{w, h});
    }
}

/* One block a unit. Square tiles (T x T): unit k is tile pair k (sq_pair). WIDE: the tile columns go in pairs
 * S (columns 2S and 2S + 1, 2T elements wide), and unit k = S^2 + I is tile row I < 2S of that pair, a T x 2T tile
 * with its 2T x T mirror, or for I = 2S the four square tiles on the diagonal there (three swaps in turn). Either
 * way every block reads and writes rows of T x ES bytes on one side of the diagonal; WIDE makes them 2T x ES on the
 * other ("inplace: square tiles"). */
template <int ES, int T, bool WIDE, bool ASYNC, int MIN_BLOCKS>
__global__ void __launch_bounds__(FAST_THREADS, MIN_BLOCKS) sq_vec_kernel(const SqArgs A)
{
    typedef Geo<ES, T, T> GS;
    extern __shared__ __align__(16) unsigned char sm[];
    const size_t n = A.n, ld = A.ld;
    const unsigned rank = blockIdx.x % A.K;
    const bool meet = A.K > 1;
    /* A cluster's blocks take consecutive units and go round together: one past the end still meets the others. */
    for (unsigned long long p = blockIdx.x; p - rank < A.total; p += gridDim.x) {
        if (p >= A.total) {
            cluster_barrier();
            continue;
        }
        const unsigned long long sq = p / A.units;
        char *m = A.data + sq / A.blocks * A.member + sq % A.blocks * A.block;
        const char *end = span_end<ES>(m, n, n, ld / ES);
        const unsigned long long k = sq_walk(p % A.units, A.units, A.walks);
        if (!WIDE) {
            unsigned long long I, J;
            sq_pair(k, &I, &J);
            const size_t r0 = (size_t)I * T, c0 = (size_t)J * T;
            sq_swap<GS, GS, ASYNC>(m + r0 * ld + c0 * ES, m + c0 * ld + r0 * ES, ld, (unsigned)min((size_t)T, n - r0),
                                   (unsigned)min((size_t)T, n - c0), end, sm, meet);
        } else {
            unsigned long long S, I;
            if (A.group) {
                sq_group(k, A.spans, A.group, &S, &I);
            } else {
                S = sq_isqrt(k);
                I = k - S * S;
            }
            const size_t c0 = (size_t)(2 * S) * T, c1 = c0 + T;
            if (I < 2 * S) {
                const size_t r0 = (size_t)I * T;
                sq_swap<Geo<ES, T, 2 * T>, Geo<ES, 2 * T, T>, ASYNC>(m + r0 * ld + c0 * ES, m + c0 * ld + r0 * ES, ld,
                                                                     T, (unsigned)min((size_t)(2 * T), n - c0), end, sm,
                                                                     meet);
            } else {
                const unsigned h0 = (unsigned)min((size_t)T, n - c0),
                               h1 = n > c1 ? (unsigned)min((size_t)T, n - c1) : 0;
                if (h1) {
                    sq_swap<GS, GS, ASYNC>(m + c0 * ld + c1 * ES, m + c1 * ld + c0 * ES, ld, h0, h1, end, sm, false);
                    __syncthreads();
                    sq_swap<GS, GS, ASYNC>(m + c1 * ld + c1 * ES, m + c1 * ld + c1 * ES, ld, h1, h1, end, sm, false);
                    __syncthreads();
                }
                sq_swap<GS, GS, ASYNC>(m + c0 * ld + c0 * ES, m + c0 * ld + c0 * ES, ld, h0, h0, end, sm, meet);
            }
        }
        __syncthreads(); /* the next unit reuses the shared memory */
    }
}

/* Any rows (lab: /regs, the same with 8- or 16-byte accesses): tiles of T x T elements, stored in shared memory as T
 * rows of NV accesses of type V (one element, or 8 or 16 bytes); a thread moves KV x KV blocks (KV elements a V),
 * transposed in registers. */
template <class E, class V> struct SqGeo {
    enum { ES = sizeof(E), KV = sizeof(V) / sizeof(E) };
    enum { T = ES == 1 ? 128 : ES == 2 || ES == 4 ? 64 : 32 };
    enum { NV = T / KV, THREADS = 256 };
};

/* Accesses of one tile row sit in a shared-memory row XOR-ed by the row's block: the KV rows a thread reads for a
 * transposed block then lie in different banks across the warp. */
template <class G> __device__ __forceinline__ unsigned sq_swz(unsigned r) { return (r / G::KV) % G::NV; }

/* Loads the rows x cols tile at (r0, c0) of the n x n matrix m into s. */
template <class E, class V> __device__ __forceinline__ void
sq_load(const E *m, size_t n, size_t r0, size_t c0, unsigned rows, unsigned cols, V (*s)[SqGeo<E, V>::NV])
{
    typedef SqGeo<E, V> G;
    const unsigned nv = cols / G::KV;
#pragma unroll 4
    for (unsigned u = threadIdx.x; u < G::T * G::NV; u += G::THREADS) {
        const unsigned r = u / G::NV, v = u % G::NV;
        if (r < rows && v < nv)
            s[r][v ^ sq_swz<G>(r)] = *(const V *)(m + (r0 + r) * n + c0 + (size_t)v * G::KV);
    }
}

/* Stores into the rows x cols tile at (r0, c0) the transpose of the cols x rows tile in s. */
template <class E, class V> __device__ __forceinline__ void
sq_store(E *m, size_t n, size_t r0, size_t c0, unsigned rows, unsigned cols, V (*s)[SqGeo<E, V>::NV])
{
    typedef SqGeo<E, V> G;
    const unsigned nbx = rows / G::KV, nby = cols / G::KV;
    for (unsigned u = threadIdx.x; u < G::NV * G::NV; u += G::THREADS) {
        const unsigned bx = u / G::NV, by = u % G::NV; /* destination block: rows bx * KV.., columns by * KV.. */
        if (bx >= nbx || by >= nby)
            continue;
        XpLanes<E> in[G::KV], out[G::KV];
#pragma unroll
        for (int e = 0; e < G::KV; e++) {
            const unsigned y = by * G::KV + e;
            *(V *)&in[e] = s[y][bx ^ sq_swz<G>(y)];
        }
#pragma unroll
        for (int f = 0; f < G::KV; f++)
#pragma unroll
            for (int e = 0; e < G::KV; e++)
                out[f].e[e] = in[e].e[f];
#pragma unroll
        for (int f = 0; f < G::KV; f++)
            *(V *)(m + (r0 + bx * G::KV + f) * n + c0 + (size_t)by * G::KV) = *(const V *)&out[f];
    }
}

/* One block a pair of tiles, over `total` pairs of the batch. */
template <class E, class V> __global__ void __launch_bounds__(256)
    sq_kernel(char *data, size_t n, size_t member, unsigned long long pairs, unsigned long long total)
{
    typedef SqGeo<E, V> G;
    __shared__ V s[2][G::T][G::NV];
    for (unsigned long long p = blockIdx.x; p < total; p += gridDim.x) {
        unsigned long long I, J;
        sq_pair(p % pairs, &I, &J);
        E *m = (E *)(data + p / pairs * member);
        const size_t r0 = (size_t)I * G::T, c0 = (size_t)J * G::T;
        const unsigned h = (unsigned)min((size_t)G::T, n - r0), w = (unsigned)min((size_t)G::T, n - c0);
        sq_load<E, V>(m, n, r0, c0, h, w, s[0]);
        if (I != J)
            sq_load<E, V>(m, n, c0, r0, w, h, s[1]);
        __syncthreads();
        if (I != J) {
            sq_store<E, V>(m, n, r0, c0, h, w, s[1]);
            sq_store<E, V>(m, n, c0, r0, w, h, s[0]);
        } else {
            sq_store<E, V>(m, n, r0, c0, h, w, s[0]);
        }
        __syncthreads();
    }
}

template <class E, class V> static int sq_launch(const xp_inplace_call *c)
{
    typedef SqGeo<E, V> G;
    const size_t n = c->rows, tiles = (n + G::T - 1) / G::T;
    const unsigned long long pairs = (unsigned long long)tiles * (tiles + 1) / 2, total = pairs * c->batch;
    sq_kernel<E, V>
        <<<grid_cap(total), G::THREADS, 0, (cudaStream_t)c->stream>>>((char *)c->data, n, n * n * c->es, pairs, total);
    return xp_cuda_launch_status();
}

/* Where the squares lie: n x n, rows ld bytes apart, `blocks` squares `block` bytes apart in each of `batch`
 * matrices `member` bytes apart. */
struct SqSpan {
    char *data;
    size_t n, ld, block, member, blocks, batch;
    cudaStream_t stream;
};

static SqSpan sq_dense(const xp_inplace_call *c)
{
    return SqSpan{(char *)c->data,           c->rows, c->rows * c->es, 0,
                  c->rows * c->rows * c->es, 1,       c->batch,        (cudaStream_t)c->stream};
}

template <int ES, int T, bool WIDE, bool ASYNC, int MIN_BLOCKS>
static int sq_vec_launch(const SqSpan &q, unsigned walks, unsigned K, unsigned group)
{
    const size_t smem = (WIDE ? 4 : 2) * (size_t)T * T * ES;
    SqArgs A;
    A.data = q.data;
    A.n = q.n;
    A.ld = q.ld;
    A.member = q.member;
    A.block = q.block;
    A.blocks = q.blocks;
    const size_t tiles = (q.n + T - 1) / T, spans = (tiles + 1) / 2;
    A.units = WIDE ? (unsigned long long)spans * spans : (unsigned long long)tiles * (tiles + 1) / 2;
    A.total = A.units * q.blocks * q.batch;
    A.walks = walks;
    A.K = K;
    A.spans = spans;
    A.group = WIDE && group && K == 4 * group && walks == 1 ? group : 0; /* walks split consecutive units */
    return cluster_launch(sq_vec_kernel<ES, T, WIDE, ASYNC, MIN_BLOCKS>, A, (A.total + A.K - 1) / A.K, A.K,
                          FAST_THREADS, smem, q.stream);
}

/* The vector tiles: each element size's, or with `alt` the ones measured against them (the lab's /alt), at the most
 * blocks a multiprocessor holds without spilling registers (with register loads a unit's tiles are all in registers
 * at once). Walks: 4 where the rows are a power of two of 128 KiB or more, else 1 ("inplace: square walks"); `walks`
 * forces a count (the lab's /w1, /w4). Clusters (`meet`, the production tiles of a dense square): 8 blocks for bytes,
 * 2 for 2 bytes, 4 for 4, meeting between loads and stores, so that neighbouring units' tiles, side by side along the
 * same rows, move together; bytes' 8 take 4 tile rows of each of `group` (2) column pairs (sq_group; 0: 8 rows of one,
 * the lab's /pair) ("inplace: square clusters"); none elsewhere (the lab's /k1). */
static int sq_vec(const SqSpan &q, size_t es, int alt, unsigned walks, int meet, unsigned group)
{
    const size_t pitch = q.ld;
    const unsigned w = walks ? walks : pitch >= (128 << 10) && (pitch & (pitch - 1)) == 0 ? 4 : 1;
    const unsigned k = meet && !alt ? (es == 1 ? (group ? 4 * group : 8) : es == 2 ? 2 : es == 4 ? 4 : 1) : 1;
    switch (es) {
    case 1:
        return alt ? sq_vec_launch<1, 128, true, false, 2>(q, w, k, group)
                   : sq_vec_launch<1, 128, true, true, 3>(q, w, k, group);
    case 2:
        return alt ? sq_vec_launch<2, 64, true, false, 3>(q, w, k, group)
                   : sq_vec_launch<2, 128, false, false, 2>(q, w, k, group);
    case 4:
        return alt ? sq_vec_launch<4, 32, false, false, 6>(q, w, k, group)
                   : sq_vec_launch<4, 64, false, false, 4>(q, w, k, group);
    case 8:
        return alt ? sq_vec_launch<8, 64, false, false, 2>(q, w, k, group)
                   : sq_vec_launch<8, 32, false, false, 8>(q, w, k, group);
    default:
        return alt ? sq_vec_launch<16, 16, false, false, 8>(q, w, k, group)
                   : sq_vec_launch<16, 32, false, false, 5>(q, w, k, group);
    }
}

/* Whether squares of n elements a side, rows ld bytes apart, take the vector tiles: rows on 16 bytes; bytes on rows of
 * whole 128-byte lines only, where off them the byte pairs lost to the register transposes ("inplace: square
 * tiles"). */
static int sq_vec_fits(const void *data, size_t n, size_t es, size_t ld)
{
    return (uintptr_t)data % 16 == 0 && ld % 16 == 0 && n * es % 16 == 0 && (es > 1 || (n % 128 == 0 && ld % 128 == 0));
}

extern "C" int xp_cuda_inplace_square(xp_inplace_call *c)
{
    if (c->rows != c->cols && c->rows != 1 && c->cols != 1)
        return XPOSE_ERR_UNSUPPORTED;
    c->need = c->need_min = 0;
    if (c->query || c->rows == 1 || c->cols == 1)
        return XPOSE_OK;
    if (c->rows >= (1ull << 31))
        return XPOSE_ERR_UNSUPPORTED;
    const int vec = (uintptr_t)c->data % 16 == 0 && c->rows * c->es % 16 == 0;
    if (!c->p1 && sq_vec_fits(c->data, c->rows, c->es, c->rows * c->es))
        return sq_vec(sq_dense(c), c->es, c->p0 & 1, ((unsigned)c->p0 >> 4) & 15, !(c->p0 & 0x100),
                      c->p0 & 0x200 ? 0 : 2);
    /* Register transposes of 16-byte accesses (the lab's /regs), 8-byte ones for bytes on rows of 8 (8 x 8 blocks in 16
     * registers, not 16 x 16 in 64, which halved the blocks a multiprocessor holds), else element-wise. */
    const int v8 = (uintptr_t)c->data % 8 == 0 && c->rows % 8 == 0;
    switch (c->es) {
    case 1: return v8 ? sq_launch<uint8_t, uint2>(c) : sq_launch<uint8_t, uint8_t>(c);
    case 2: return vec ? sq_launch<uint16_t, uint4>(c) : sq_launch<uint16_t, uint16_t>(c);
    case 4: return vec ? sq_launch<uint32_t, uint4>(c) : sq_launch<uint32_t, uint32_t>(c);
    case 8: return vec ? sq_launch<uint64_t, uint4>(c) : sq_launch<uint64_t, uint64_t>(c);
    default: return sq_launch<xp_v16, xp_v16>(c);
    }
}

/* ---- rectangular: the passes ------------------------------------------------------------------------------------ */

/* One pass over the batch. A group is a row (row pass: C elements) or a strip of W columns (column pass: R rows of
 * up to W elements), split between the K blocks of a cluster: block k holds slots [k part, (k + 1) part) of a row,
 * or rows [k part, (k + 1) part) of a strip. Every group is loaded whole into shared memory before any of it is
 * stored, so the pass permutes in place. */
struct RectArgs {
    char *data;
    size_t member;             /* bytes per matrix */
    unsigned long long groups; /* in the batch */
    unsigned per_member;       /* groups per matrix */
    unsigned R, C, a, b;       /* the view and the decomposition (xp_ckg) */
    unsigned W, part, K;       /* strip width (column pass), slots or rows per block, blocks per group */
    int fn, gather;            /* the pass (xp_ckg_pass) */
    unsigned mul, step; /* row pass: R mod C (R^-1 mod C where a gcd-1 scatter runs as a gather), threads mul mod C */
    int inv;            /* the row pass's gather runs a scatter's inverse map (rect_run) */
    int gcd1;           /* the row pass takes rect_row's GCD1 path: gcd(R, C) = 1 (b >= C), at most two blocks a row */
    xp_fdiv fa, fb, fC, fR, fpart;
};

enum { RECT_THREADS = 512 };

/* Shared memory of block `rank` of the cluster (this block's where K is 1). */
__device__ __forceinline__ char *rect_smem(char *own, unsigned rank, unsigned K)
{
#if __CUDA_ARCH__ >= 900
    if (K > 1)
        return (char *)cg::this_cluster().map_shared_rank((void *)own, rank);
#endif
    (void)rank, (void)K;
    return own;
}

__device__ __forceinline__ void rect_sync(unsigned K)
{
#if __CUDA_ARCH__ >= 900
    if (K > 1) {
        cg::this_cluster().sync();
        return;
    }
#endif
    (void)K;
    __syncthreads();
}

/* The row shuffle's d(j) for the element after x, where y = i + j / b (mod R, then mod C); ycon: the y of every j
 * (b >= C, as for gcd 1). */
__device__ __forceinline__ unsigned rect_d(const RectArgs &A, unsigned i, unsigned j, unsigned x, unsigned ycon)
{
    unsigned y = ycon;
    if (A.b < A.C) {
        y = i + xp_fdiv_div(A.fb, j); /* < 2R */
        if (y >= A.R)
            y -= A.R;
        if (y >= A.C)
            y = xp_fdiv_mod(A.fC, y);
    }
    unsigned d = x + y;
    return d >= A.C ? d - A.C : d;
}

/* Elements a 16-byte vector of the row pass. */
template <class E> struct RowVec {
    enum { KV = sizeof(E) < 16 ? 16 / sizeof(E) : 1 };
};

/* The row pass on row i: gather (row[j] = old row[d(j)]) or scatter (row[d(j)] = old row[j]). The linear side moves
 * 16-byte vectors even where rows do not start on 16 bytes (odd C): element j takes shared slot j - lo + off, off the
 * row's elements past a 16-byte boundary, so the row's vectors line up with shared memory's; the vectors cut by this
 * block's slots [lo, hi) go element by element. The permuted side moves an element a lane, a warp's lanes on
 * consecutive j (vectors there would put a warp's shared accesses KV x R apart, into a few banks), U of them in
 * flight a thread. Where one block holds the row, the gather's loads are cp.async, the whole row in flight at once
 * ("inplace: row pass vectors"). */
template <class E, bool GCD1> __device__ void rect_row(const RectArgs &A, E *row, unsigned i, unsigned rank, char *own)
{
    enum { KV = RowVec<E>::KV, U = sizeof(E) < 16 ? 8 : 4 }; /* U: 16-byte elements at 8 took 104 registers */
    const unsigned off = (unsigned)((uintptr_t)row / sizeof(E) % KV), T = RECT_THREADS;
    const unsigned lo = rank * A.part, hi = min(A.C, lo + A.part); /* lo: a multiple of KV */
    const unsigned w0 = lo / KV, w1 = (hi + off + KV - 1) / KV;    /* vector w: elements w KV - off + [0, KV) */
    unsigned ycon = A.b < A.C ? 0 : (i >= A.C ? xp_fdiv_mod(A.fC, i) : i);
    if (A.inv) /* out[j] = in[k] where y + k R = j: k = j R^-1 - y R^-1 */
        ycon = (unsigned)((A.C - (unsigned long long)ycon * A.mul % A.C) % A.C);
    E *const base = row - off; /* on 16 bytes: vector w at base + w KV */
    /* j mul mod C at this thread's first element, then walked: + step per T elements. */
    const unsigned x0 = (unsigned)((unsigned long long)(lo + threadIdx.x) * A.mul % A.C);
    /* GCD1 (b >= C, at most two blocks): d(j) = x + y mod C, and slot d lies at q0 or q1 (block 1's base less its
     * first slot) plus d: no division and no mapa an element, where the general path issued some 45 instructions an
     * element and left the schedulers idle half the cycles ("inplace: row pass vectors"). */
    const uintptr_t q0 = (uintptr_t)rect_smem(own, 0, A.K) + off * sizeof(E),
                    q1 = A.K > 1 ? (uintptr_t)rect_smem(own, 1, A.K) + off * sizeof(E) - (uintptr_t)A.part * sizeof(E)
                                 : q0;
    auto slot = [&](unsigned j, unsigned x) -> E * {
        if (GCD1) {
            unsigned d = x + ycon;
            d = d >= A.C ? d - A.C : d;
            return (E *)((d < A.part ? q0 : q1) + (uintptr_t)d * sizeof(E));
        }
        const unsigned d = rect_d(A, i, j, x, ycon), r = xp_fdiv_div(A.fpart, d);
        return (E *)rect_smem(own, r, A.K) + (d - r * A.part + off);
    };
    if (!A.gather) { /* scatter while loading; store linearly */
        unsigned x = x0;
        for (unsigned j = lo + threadIdx.x; j < hi; j += U * T) {
            E in[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                if (j + u * T < hi)
                    in[u] = row[j + u * T];
#pragma unroll
            for (int u = 0; u < U; u++) {
                if (j + u * T < hi)
                    *slot(j + u * T, x) = in[u];
                x += A.step;
                x = x >= A.C ? x - A.C : x;
            }
        }
        rect_sync(A.K);
        for (unsigned w = w0 + threadIdx.x; w < w1; w += T) {
            const long long j = (long long)w * KV - off;
            const E *s = (const E *)own + (w * KV - lo);
            if (j >= lo && j + KV <= hi)
                *(uint4 *)(base + (size_t)w * KV) = *(const uint4 *)s;
            else
                for (int e = 0; e < KV; e++)
                    if (j + e >= lo && j + e < hi)
                        row[j + e] = s[e];
        }
    } else { /* load linearly; gather while storing */
        for (unsigned w = w0 + threadIdx.x; w < w1; w += T) {
            const long long j = (long long)w * KV - off;
            E *s = (E *)own + (w * KV - lo);
            if (j >= lo && j + KV <= hi) {
                if (A.K == 1)
                    __pipeline_memcpy_async(s, base + (size_t)w * KV, 16);
                else /* racecheck flags cp.async data read across a cluster, even after both barriers */
                    *(uint4 *)s = *(const uint4 *)(base + (size_t)w * KV);
            } else
                for (int e = 0; e < KV; e++)
                    if (j + e >= lo && j + e < hi)
                        s[e] = row[j + e];
        }
        __pipeline_commit();
        __pipeline_wait_prior(0);
        rect_sync(A.K);
        unsigned x = x0;
        for (unsigned j = lo + threadIdx.x; j < hi; j += U * T) {
            E out[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                if (j + u * T < hi)
                    out[u] = *slot(j + u * T, x);
                x += A.step;
                x = x >= A.C ? x - A.C : x;
            }
#pragma unroll
            for (int u = 0; u < U; u++)
                if (j + u * T < hi)
                    row[j + u * T] = out[u];
        }
    }
    rect_sync(A.K); /* no block reads or overwrites a group another still uses */
}

/* p(i) = (i C - i / a) mod R (xp_ckg_p). */
__device__ __forceinline__ unsigned rect_p(const RectArgs &A, unsigned i)
{
    const unsigned x = (unsigned)((unsigned long long)i * A.C % A.R), q = xp_fdiv_div(A.fa, i);
    return x >= q ? x - q : x + A.R - q;
}

/* The shift of column j: j / b (rotation) or j mod R (permutation). */
__device__ __forceinline__ unsigned rect_shift(const RectArgs &A, unsigned j)
{
    return A.fn == XP_CKG_ROT ? xp_fdiv_div(A.fb, j) : xp_fdiv_mod(A.fR, j);
}

/* The column pass on the strip of columns [j0, j0 + w): every element (i, j) loaded into shared row g(i, j), then
 * shared row h(i) stored into row i (cpu_inplace_rect.c's col_walk says why the functions split so). */
template <class E, class V>
__device__ void rect_col(const RectArgs &A, E *m, unsigned j0, unsigned w, unsigned rank, char *own)
{
    enum { KV = sizeof(V) / sizeof(E) };
    const unsigned lo = rank * A.part, hi = min(A.R, lo + A.part), nv = w / KV, T = blockDim.x;
    const unsigned units = (hi > lo ? hi - lo : 0) * nv;
    const int perm = A.fn == XP_CKG_PERM;
    for (unsigned u = threadIdx.x; u < units; u += T) {
        const unsigned i = lo + u / nv, v = u % nv, j = j0 + v * KV;
        const V in = *(const V *)(m + (size_t)i * A.C + j);
        XpLanes<E> l;
        *(V *)&l = in;
        const unsigned base = perm && !A.gather ? rect_p(A, i) : i;
        unsigned k = rect_shift(A, j), klast = rect_shift(A, j + KV - 1);
        if (!perm && k == klast) { /* one rotation for the whole access */
            unsigned g =
                A.gather ? (base >= k ? base - k : base + A.R - k) : (base + k >= A.R ? base + k - A.R : base + k);
            const unsigned r = xp_fdiv_div(A.fpart, g);
            *(V *)(rect_smem(own, r, A.K) + ((size_t)(g - r * A.part) * A.W + v * KV) * sizeof(E)) = in;
            continue;
        }
#pragma unroll
        for (int e = 0; e < KV; e++) {
            k = rect_shift(A, j + e);
            const unsigned g =
                A.gather ? (base >= k ? base - k : base + A.R - k) : (base + k >= A.R ? base + k - A.R : base + k);
            const unsigned r = xp_fdiv_div(A.fpart, g);
            ((E *)rect_smem(own, r, A.K))[(size_t)(g - r * A.part) * A.W + v * KV + e] = l.e[e];
        }
    }
    rect_sync(A.K);
    for (unsigned u = threadIdx.x; u < units; u += T) {
        const unsigned i = lo + u / nv, v = u % nv;
        const unsigned h = perm && A.gather ? rect_p(A, i) : i, r = xp_fdiv_div(A.fpart, h);
        *(V *)(m + (size_t)i * A.C + j0 + v * KV) =
            *(const V *)(rect_smem(own, r, A.K) + ((size_t)(h - r * A.part) * A.W + v * KV) * sizeof(E));
    }
    rect_sync(A.K);
}

template <class E, class V> __global__ void __launch_bounds__(RECT_THREADS, 2) rect_kernel(const RectArgs A)
{
    extern __shared__ __align__(16) char smem[];
    const unsigned rank = blockIdx.x % A.K;
    const unsigned long long clusters = gridDim.x / A.K;
    for (unsigned long long g = blockIdx.x / A.K; g < A.groups; g += clusters) {
        const unsigned long long b = g / A.per_member;
        const unsigned q = (unsigned)(g % A.per_member);
        E *m = (E *)(A.data + b * A.member);
        if (A.fn == XP_CKG_SHUF) {
            if (A.gcd1)
                rect_row<E, true>(A, m + (size_t)q * A.C, q, rank, smem);
            else
                rect_row<E, false>(A, m + (size_t)q * A.C, q, rank, smem);
        } else {
            const unsigned j0 = q * A.W;
            rect_col<E, V>(A, m, j0, min(A.W, A.C - j0), rank, smem);
        }
    }
}

/* The long-row path, for rows no cluster holds: one row at a time through the workspace. */
template <class E> __global__ void rect_row_global(const E *row, E *ws, unsigned long long R, unsigned long long C,
                                                   unsigned long long b, unsigned long long i, int gather)
{
    xp_ckg k;
    k.R = R, k.C = C, k.b = b;
    for (unsigned long long j = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; j < C;
         j += (unsigned long long)gridDim.x * blockDim.x) {
        const size_t d = xp_ckg_shuf(&k, i, j);
        if (gather)
            ws[j] = row[d];
        else
            ws[d] = row[j];
    }
}

/* A block's share of a group, by preference at most this (two blocks a multiprocessor), else up to the opt-in maximum
 * (rect_split); the lab's /big (p1 RECT_BIG) takes the maximum first, and the decomposition alone; /split (RECT_SPLIT)
 * is the production row with its row pass held to the preference. */
#define RECT_BUDGET ((size_t)100 << 10)
enum { RECT_BIG = 1, RECT_SPLIT = 2 };

/* What the device gives a pass: opt-in shared memory per block and blocks per cluster. */
struct RectDevice {
    size_t optin, budget; /* opt-in shared memory a block; the share a block takes by preference */
    unsigned kmax;
};

static int rect_device(RectDevice *d, int big)
{
    int dev = 0, optin = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
        cudaGetLastError();
        return XPOSE_ERR_CUDA;
    }
    d->optin = (size_t)optin;
    d->budget = big || RECT_BUDGET > d->optin ? d->optin : RECT_BUDGET;
    d->kmax = major >= 9 ? 8 : 1; /* clusters from sm_90 on; 8: the portable size */
    return XPOSE_OK;
}

/* The blocks per group (0: no cluster holds it) and each block's slots of `unit` bytes (a multiple of align), a block
 * taking `extra` bytes besides. */
static unsigned rect_split(const RectDevice &d, size_t slots, size_t unit, size_t align, size_t extra, unsigned *part)
{
    const size_t budgets[2] = {d.budget, d.optin};
    for (int t = 0; t < 2; t++) {
        size_t per = (budgets[t] - extra) / unit / align * align; /* slots a block holds */
        if (per == 0)
            continue;
        size_t k = (slots + per - 1) / per;
        if (k <= d.kmax) {
            size_t p = (slots + k - 1) / k;
            p = (p + align - 1) / align * align;
            *part = (unsigned)p;
            return (unsigned)((slots + p - 1) / p);
        }
    }
    return 0;
}

/* One launch of pass ps over the batch. */
template <class E, class V>
static int rect_run(const xp_inplace_call *c, const xp_ckg &k, xp_ckg_pass ps, const RectDevice &d)
{
    enum { KV = sizeof(V) / sizeof(E) };
    const size_t es = sizeof(E);
    RectArgs A;
    memset(&A, 0, sizeof A);
    A.data = (char *)c->data;
    A.member = c->rows * c->cols * es;
    A.R = (unsigned)k.R, A.C = (unsigned)k.C, A.a = (unsigned)k.a, A.b = (unsigned)k.b;
    A.fn = ps.fn, A.gather = ps.gather;
    size_t smem;
    if (ps.fn == XP_CKG_SHUF) {
        /* A row in as few blocks as hold it (one where it fits the opt-in: no distributed shared memory), unless the
         * lab's /split keeps the 100 KiB preference ("inplace: row pass vectors"). */
        enum { RKV = RowVec<E>::KV };
        RectDevice dr = d;
        if (c->p1 != RECT_SPLIT)
            dr.budget = d.optin;
        A.K = rect_split(dr, k.C, es, RKV, RKV * es, &A.part);
        A.W = A.C;
        A.per_member = A.R;
        smem = (size_t)(A.part + RKV) * es; /* the row's slots, off past the first (rect_row) */
        A.mul = (unsigned)(k.R % k.C);
        /* A gcd-1 scatter on at most two blocks runs as the gather of its inverse map (rect_row's GCD1): a remote store
         * waits on nothing, but the scatter's register loads left a block 16 KiB in flight where the gather's cp.async
         * has its whole share ("inplace: row pass vectors"). */
        A.gcd1 = k.b >= k.C && A.K <= 2;
        if (A.gcd1 && !A.gather)
            A.inv = 1, A.gather = 1, A.mul = (unsigned)xp_mod_inverse(A.mul, A.C);
        A.step = (unsigned)((unsigned long long)RECT_THREADS % k.C * A.mul % k.C);
    } else {
        /* Strips of 128 bytes of a row where a block holds them, else narrower, down to one vector. */
        A.K = 0;
        for (size_t wb = 128; wb >= sizeof(V) && !A.K; wb /= 2) {
            A.W = (unsigned)(wb / es);
            A.K = rect_split(d, k.R, wb, 1, 0, &A.part);
            if (A.K > 1 && wb > 32 && wb > sizeof(V))
                A.K = 0; /* a narrower strip that one block holds beats a wide one split across a cluster */
        }
        if (!A.K) { /* the narrowest strips, across a cluster */
            A.W = (unsigned)(sizeof(V) / es);
            A.K = rect_split(d, k.R, sizeof(V), 1, 0, &A.part);
        }
        A.per_member = (unsigned)((k.C + A.W - 1) / A.W);
        smem = (size_t)A.part * A.W * es;
    }
    if (!A.K)
        return XPOSE_ERR_UNSUPPORTED;
    A.groups = (unsigned long long)A.per_member * c->batch;
    A.fa = xp_fdiv_make(A.a);
    A.fb = xp_fdiv_make(A.b);
    A.fC = xp_fdiv_make(A.C);
    A.fR = xp_fdiv_make(A.R);
    A.fpart = xp_fdiv_make(A.part);
    return cluster_launch(rect_kernel<E, V>, A, A.groups, A.K, RECT_THREADS, smem, (cudaStream_t)c->stream);
}

/* The long-row path of a row pass: each row of each matrix permuted into the workspace, then copied back. */
template <class E> static int rect_rows_global(const xp_inplace_call *c, const xp_ckg &k, xp_ckg_pass ps)
{
    const cudaStream_t st = (cudaStream_t)c->stream;
    const size_t bytes = k.C * sizeof(E);
    for (size_t b = 0; b < c->batch; b++)
        for (size_t i = 0; i < k.R; i++) {
            E *row = (E *)((char *)c->data + (b * k.R + i) * bytes);
            rect_row_global<E><<<1024, 256, 0, st>>>(row, (E *)c->ws, k.R, k.C, k.b, i, ps.gather);
            if (cudaGetLastError() != cudaSuccess ||
                cudaMemcpyAsync(row, c->ws, bytes, cudaMemcpyDeviceToDevice, st) != cudaSuccess) {
                cudaGetLastError();
                return XPOSE_ERR_CUDA;
            }
        }
    return XPOSE_OK;
}

/* The passes; order > 0 (xp_skew_suits): the column permutation by the skew form, on sms multiprocessors. */
template <class E, class V>
static int rect_launch(const xp_inplace_call *c, const xp_ckg &k, const RectDevice &d, unsigned order, int sms)
{
    xp_ckg_pass ps[3];
    const int np = xp_ckg_passes(&k, ps);
    for (int q = 0; q < np; q++) {
        int st = ps[q].fn == XP_CKG_SHUF && c->ws   ? rect_rows_global<E>(c, k, ps[q])
                 : ps[q].fn == XP_CKG_PERM && order ? xp_skew_perm(c, &k, ps[q].gather, order, sms)
                                                    : rect_run<E, V>(c, k, ps[q], d);
        if (st != XPOSE_OK)
            return st;
    }
    return XPOSE_OK;
}

/* ---- rectangular: the tile and block forms ----------------------------------------------------------------------- */

/* Both forms split the transpose into in-place transposes of contiguous blocks and a permutation of chunks (runs of
 * elements that stay together), each pass about a copy's traffic where the decomposition's column passes are strided.
 * Tile form: an M x N matrix whose g x g squares (g = gcd(M, N)) lie stacked (N = g) or side by side (M = g); the
 * square kernel transposes each square, which leaves every row of A^T made of whole chunks of g elements. Block form:
 * an R x C matrix (R < C) whose long side splits into blocks of w elements: the chunks (w elements of a row) go first,
 * so that each R x w block is contiguous, then a cluster transposes each block (bt_kernel); a tall matrix takes the same
 * two passes undone in reverse. Either way the chunk permutation is the transpose of a P x Q matrix of chunks, which
 * sends chunk x to x P mod (n - 1) (n = P Q chunks a matrix; chunks 0 and n - 1 stay). No workspace. */
enum { CHUNK_THREADS = 256, CHUNK_SPAN = 32, CHUNK_WIN = 128, CHUNK_BUF = 32 << 10 };

struct ChunkArgs {
    char *data;
    size_t member, chunk;                   /* bytes a matrix, a chunk */
    unsigned long long n;                   /* chunks a matrix */
    xp_bmod m1;                             /* products mod n - 1 */
    unsigned long long kpow[CHUNK_WIN + 1]; /* P^t mod (n - 1): member t of x's cycle is x kpow[t] */
    unsigned win;                           /* cycle members a window: the buffer holds win + 1 pieces */
    unsigned piece, pieces, group, groups;  /* bytes a piece (a power of two); pieces a chunk; pieces an item; items */
    unsigned long long spans, all;          /* spans of CHUNK_SPAN chunks a matrix; items in the batch */
    unsigned long long sa, sb;              /* chunk 1 + span sa + s sb is the span's chunk s */
};

/* One block an item: a span of CHUNK_SPAN chunks of one matrix and a group of their pieces. The warps find the span's
 * leaders; then for every leader and piece the block walks the cycle a window at a time: it loads that piece of the
 * window's members (all in flight, by cp.async) and stores each into the next member, the window's last carried over
 * in the buffer. Short cycles fit one window: a copy's traffic with one latency a piece, where a walk along the cycle
 * pays one a step. Cycles and pieces are disjoint: no block waits for another. */
__global__ void __launch_bounds__(CHUNK_THREADS) chunk_kernel(const ChunkArgs A)
{
    __shared__ unsigned s_x[CHUNK_SPAN], s_len[CHUNK_SPAN], s_mem[CHUNK_WIN + 1], s_count;
    __shared__ unsigned long long kpow[CHUNK_WIN + 1]; /* indexed by thread: parameters serialise such reads */
    extern __shared__ __align__(16) unsigned char buf[];
    for (unsigned t = threadIdx.x; t <= CHUNK_WIN; t += CHUNK_THREADS)
        kpow[t] = A.kpow[t];
    /* Pieces of 2^vs vectors and windows of win + 1 slots, both powers of two: no divisions in the copy loops. */
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, vs = __ffs(A.piece / 16) - 1, vp = 1u << vs,
                   smask = A.win;
    for (unsigned long long w = blockIdx.x; w < A.all; w += gridDim.x) {
        const unsigned long long grp = w % A.groups, span = w / A.groups % A.spans, mat = w / A.groups / A.spans;
        if (threadIdx.x == 0)
            s_count = 0;
        __syncthreads();
        for (unsigned s = warp; s < CHUNK_SPAN; s += CHUNK_THREADS / 32) {
            const unsigned long long x0 = 1 + span * A.sa + s * A.sb;
            if (x0 >= A.n - 1)
                break;
            const unsigned len = xp_cycle_leads(
                x0, lane, [&](unsigned long long z, unsigned t) { return xp_bmod_mul(A.m1, z, kpow[t]); });
            if (len && lane == 0) {
                const unsigned at = atomicAdd(&s_count, 1u);
                s_x[at] = (unsigned)x0;
                s_len[at] = len;
            }
        }
        __syncthreads();
        const unsigned count = s_count;
        char *base = A.data + mat * A.member;
        for (unsigned e = 0; e < count; e++) {
            const unsigned len = s_len[e];
            for (unsigned p = (unsigned)grp * A.group; p < A.pieces && p < (unsigned)(grp + 1) * A.group; p++) {
                const size_t off = (size_t)p * A.piece;
                unsigned long long ys = s_x[e]; /* member s of the cycle */
                for (unsigned s = 0; s < len;) {
                    const unsigned nb = min(A.win, len - s);        /* this window stores members s + 1 .. s + nb */
                    if (nb < len || p == (unsigned)grp * A.group) { /* one window: its members serve every piece */
                        for (unsigned t = threadIdx.x; t <= nb; t += CHUNK_THREADS)
                            s_mem[t] = (unsigned)xp_bmod_mul(A.m1, ys, kpow[t]);
                        __syncthreads();
                    }
                    /* Loads: members s (the first window only: later ones hold it already) .. s + nb, but not member
                     * len, which is member 0 again. */
                    const unsigned t0 = s ? 1 : 0, t1 = s + nb < len ? nb : nb - 1;
                    for (unsigned i = threadIdx.x; i < (t1 + 1 - t0) * vp; i += CHUNK_THREADS) {
                        const unsigned t = t0 + (i >> vs), v = i & (vp - 1);
                        if (off + v * 16 < A.chunk)
                            __pipeline_memcpy_async(buf + ((size_t)((s + t) & smask) * A.piece + v * 16),
                                                    base + s_mem[t] * A.chunk + off + v * 16, 16);
                    }
                    __pipeline_commit();
                    __pipeline_wait_prior(0);
                    __syncthreads();
                    for (unsigned i = threadIdx.x; i < nb * vp; i += CHUNK_THREADS) {
                        const unsigned t = 1 + (i >> vs), v = i & (vp - 1);
                        if (off + v * 16 < A.chunk)
                            *(uint4 *)(base + s_mem[t] * A.chunk + off + v * 16) =
                                *(const uint4 *)(buf + (size_t)((s + t - 1) & smask) * A.piece + v * 16);
                    }
                    ys = s_mem[nb];
                    s += nb;
                    __syncthreads(); /* the next window rewrites the members and the slots */
                }
            }
        }
        __syncthreads(); /* the next item rewrites the leaders */
    }
}

/* The chunk permutation of a batch of matrices of `member` bytes: the transpose of a P x Q matrix of chunks of `chunk`
 * bytes, where its cycles are at most `order` long. */
static int chunk_run(const xp_inplace_call *c, size_t member, size_t chunk, unsigned long long P, unsigned long long Q,
                     unsigned order, int sms)
{
    ChunkArgs A;
    memset(&A, 0, sizeof A);
    A.data = (char *)c->data;
    A.member = member;
    A.chunk = chunk;
    A.n = P * Q;
    A.m1 = xp_bmod_make(A.n - 1);
    A.kpow[0] = 1;
    for (unsigned t = 1; t <= CHUNK_WIN; t++)
        A.kpow[t] = A.kpow[t - 1] * (P % A.m1.m) % A.m1.m;
    /* Pieces as large as lets one window hold a whole cycle, down to 256 bytes, and no larger than the chunk needs. */
    A.piece = CHUNK_BUF / (order + 1);
    while (A.piece & (A.piece - 1))
        A.piece &= A.piece - 1;
    if (A.piece < 256)
        A.piece = 256;
    while (A.piece / 2 >= A.chunk)
        A.piece /= 2;
    A.win = (CHUNK_BUF / A.piece < CHUNK_WIN ? CHUNK_BUF / A.piece : CHUNK_WIN) - 1;
    A.pieces = (unsigned)((A.chunk + A.piece - 1) / A.piece);
    A.spans = (A.n - 2 + CHUNK_SPAN - 1) / CHUNK_SPAN;
    /* Spans of consecutive chunks, but where the cycles outrun a window their leaders crowd the low chunks (a few per
     * cycle of thousands), so that each span takes every spans-th chunk instead ("inplace: chunk spans"). */
    A.sa = order > A.win ? 1 : CHUNK_SPAN;
    A.sb = order > A.win ? A.spans : 1;
    /* Enough items for some 16 blocks a multiprocessor over the run: the pieces split where the spans are few. */
    const unsigned long long want = 16ull * (unsigned)sms, have = A.spans * c->batch;
    const unsigned long long split = have >= want ? 1 : (want + have - 1) / have;
    A.group = (unsigned)((A.pieces + split - 1) / split);
    A.groups = (A.pieces + A.group - 1) / A.group;
    A.all = A.spans * A.groups * c->batch;
    chunk_kernel<<<grid_cap(A.all), CHUNK_THREADS, (size_t)(A.win + 1) * A.piece, (cudaStream_t)c->stream>>>(A);
    return xp_cuda_launch_status();
}

/* The block form's block transposes: `count` contiguous h x w blocks, each held by a cluster of K blocks. Block r loads
 * columns [r cpart, (r + 1) cpart) of every row into its shared memory (rows `pitch` bytes apart: padded so that a warp
 * reading down a column meets different banks), and after the cluster's barrier stores those columns as rows of the
 * w x h transpose. The cluster only orders the loads before the stores: no block reads another's shared memory. */
struct BtArgs {
    char *data;
    unsigned long long count;
    unsigned h, w, pitch, cpart, K;
    xp_fdiv fcv[8], fhv; /* vectors a row of rank r's columns; V's an output row */
};

enum { BT_THREADS = 512, BT_LOADS = 4 };

template <class E, class V> __global__ void __launch_bounds__(BT_THREADS) bt_kernel(const BtArgs A)
{
    enum { KV = sizeof(V) / sizeof(E) };
    extern __shared__ __align__(16) char own[];
    const unsigned rank = blockIdx.x % A.K, T = blockDim.x;
    const size_t bytes = (size_t)A.h * A.w * sizeof(E);
    const unsigned c0 = min(A.w, rank * A.cpart), c1 = min(A.w, c0 + A.cpart);
    const unsigned cv = (c1 - c0) * (unsigned)sizeof(E) / 16, hv = A.h / KV;
    for (unsigned long long q = blockIdx.x / A.K; q < A.count; q += gridDim.x / A.K) {
        char *blk = A.data + q * bytes;
        /* Column parts are whole 16-byte vectors; the padded rows take them a word at a time, BT_LOADS loads in flight
         * a thread. */
        for (unsigned u0 = threadIdx.x; u0 < A.h * cv; u0 += BT_LOADS * T) {
            uint4 x[BT_LOADS];
#pragma unroll
            for (int k = 0; k < BT_LOADS; k++) {
                const unsigned u = u0 + k * T, r = xp_fdiv_div(A.fcv[rank], u), v = u - r * cv;
                if (u < A.h * cv)
                    x[k] = *(const uint4 *)(blk + ((size_t)r * A.w + c0) * sizeof(E) + v * 16);
            }
#pragma unroll
            for (int k = 0; k < BT_LOADS; k++) {
                const unsigned u = u0 + k * T, r = xp_fdiv_div(A.fcv[rank], u), v = u - r * cv;
                if (u < A.h * cv) {
                    unsigned *d = (unsigned *)(own + (size_t)r * A.pitch + v * 16);
                    d[0] = x[k].x, d[1] = x[k].y, d[2] = x[k].z, d[3] = x[k].w;
                }
            }
        }
        rect_sync(A.K);
        for (unsigned u = threadIdx.x; u < (c1 - c0) * hv; u += T) {
            const unsigned t = xp_fdiv_div(A.fhv, u), i0 = (u - t * hv) * KV;
            XpLanes<E> out;
#pragma unroll
            for (int e = 0; e < KV; e++)
                out.e[e] = *(const E *)(own + (size_t)(i0 + e) * A.pitch + t * sizeof(E));
            *(V *)(blk + ((size_t)(c0 + t) * A.h + i0) * sizeof(E)) = *(const V *)&out;
        }
        rect_sync(A.K); /* no block reloads while another still stores */
    }
}

template <class E, class V> static int bt_launch(const xp_inplace_call *c, const BtArgs &A, size_t smem)
{
    return cluster_launch(bt_kernel<E, V>, A, A.count, A.K, BT_THREADS, smem, (cudaStream_t)c->stream);
}

/* Whether the chunk permutation of a P x Q chunk matrix suits the GPU: its longest cycle (the order of P mod n - 1,
 * which every cycle's length divides) at most 64 chunks, or at most CHUNK_ORDER with at least two cycles a
 * multiprocessor (`sms`), since one block walks a cycle's piece. The bound also ends the search for the order early.
 * Sets *order. */
enum { CHUNK_ORDER = 4096 };

static int chunk_suits(unsigned long long P, unsigned long long Q, int sms, unsigned *order)
{
    const unsigned long long n = P * Q, m1 = n - 1;
    if (n < 3 || n >= (1ull << 31))
        return 0;
    unsigned long long most = (n - 2) / (2ull * (unsigned)sms);
    most = most < 64 ? 64 : most > CHUNK_ORDER ? CHUNK_ORDER : most;
    unsigned len = 1;
    for (unsigned long long v = P % m1; v != 1; v = v * P % m1)
        if (++len > most)
            return 0;
    *order = len;
    return 1;
}

/* The tile form where it applies (above): chunks of at least 1 KiB, squares of whole 128-element tiles on the vector
 * tiles, cycles that chunk_suits; the production row only (the lab rows run the decomposition). Sets *taken and
 * returns the status. */
static int rect_tiles(const xp_inplace_call *c, int *taken)
{
    const size_t M = c->rows, N = c->cols, es = c->es, g = xp_gcd(M, N), a = M / g, b = N / g;
    *taken = 0;
    unsigned order = 0;
    int sms = 0;
    if (c->p0 != XP_CKG_AUTO || c->p1 == RECT_BIG || (a != 1 && b != 1) || g % 128 || g * es < 1024 ||
        !sq_vec_fits(c->data, g, es, N * es))
        return XPOSE_OK;
    const int st0 = sm_count(&sms);
    if (st0 != XPOSE_OK || !chunk_suits(b == 1 ? a : g, b == 1 ? g : b, sms, &order))
        return st0;
    *taken = 1;
    const SqSpan q{(char *)c->data,        g, N * es, b == 1 ? g * g * es : g * es, M * N * es, a > b ? a : b, c->batch,
                   (cudaStream_t)c->stream};
    int st = sq_vec(q, es, 0, 0, 0, 0);
    if (st != XPOSE_OK || order == 1)
        return st;
    return chunk_run(c, M * N * es, g * es, b == 1 ? a : g, b == 1 ? g : b, order, sms);
}

/* The fewest blocks K of a cluster whose column parts of B's h x w blocks fit each block's shared memory, by preference
 * BT_BUDGET (four blocks a multiprocessor: "inplace: block transposes"), else the opt-in maximum; sets B's K, cpart and
 * pitch. Returns 0 where none fits. */
#define BT_BUDGET ((size_t)48 << 10)

static int bt_split(const RectDevice &d, BtArgs *B, size_t es)
{
    const size_t u = 16 / xp_gcd(16, es), pad = es > 4 ? es : 4, budgets[2] = {BT_BUDGET, d.optin};
    for (int t = 0; t < 2; t++)
        for (unsigned K = 1; K <= d.kmax; K++) {
            const size_t cpart = ((B->w + K - 1) / K + u - 1) / u * u, pitch = cpart * es + pad;
            if ((size_t)B->h * pitch <= budgets[t]) {
                B->K = K, B->cpart = (unsigned)cpart, B->pitch = (unsigned)pitch;
                return 1;
            }
        }
    return 0;
}

/* The block form where it applies (above): the long side L splits into blocks of w elements, the smallest w whose
 * chunks are whole 16-byte vectors of at least 256 bytes (at most 64 KiB), whose h x w blocks a cluster holds, and
 * whose chunk permutation chunk_suits; the production row only. Sets *taken and returns the status. */
static int rect_blocks(const xp_inplace_call *c, const RectDevice &d, int *taken)
{
    const size_t M = c->rows, N = c->cols, es = c->es;
    const int wide = M < N;
    const size_t h = wide ? M : N, L = wide ? N : M;
    *taken = 0;
    if (c->p0 != XP_CKG_AUTO || c->p1 == RECT_BIG || (uintptr_t)c->data % 16 || (!wide && N * es % 16))
        return XPOSE_OK;
    int sms = 0;
    const int st0 = sm_count(&sms);
    if (st0 != XPOSE_OK)
        return st0;
    BtArgs B;
    memset(&B, 0, sizeof B);
    unsigned order = 0;
    size_t w = 0;
    const size_t u = 16 / xp_gcd(16, es); /* chunks of whole vectors */
    for (size_t v = (256 / es + u - 1) / u * u; v * es <= (64 << 10) && v <= L / 2 && !w; v += u) {
        if (L % v)
            continue;
        B.h = (unsigned)(wide ? h : v), B.w = (unsigned)(wide ? v : h);
        if (bt_split(d, &B, es) && chunk_suits(wide ? h : L / v, wide ? L / v : h, sms, &order))
            w = v;
    }
    if (!w)
        return XPOSE_OK;
    *taken = 1;
    B.data = (char *)c->data;
    B.count = L / w * c->batch;
    const size_t smem = (size_t)B.h * B.pitch;
    /* Bytes and 2-byte elements store vectors; wider ones an element a lane, so that a warp reads 32 consecutive rows
     * of a column (different banks) where a lane's vector would take rows 4 or 8 apart ("inplace: block transposes"). */
    const int vec = B.h * es % 16 == 0 && es < 4;
    for (unsigned r = 0; r < B.K; r++) {
        const size_t c0 = r * B.cpart < B.w ? r * B.cpart : B.w, c1 = c0 + B.cpart < B.w ? c0 + B.cpart : B.w;
        B.fcv[r] = xp_fdiv_make(c1 > c0 ? (uint32_t)((c1 - c0) * es / 16) : 1);
    }
    B.fhv = xp_fdiv_make((uint32_t)(vec ? B.h * es / 16 : B.h));
    int st = XPOSE_OK;
    for (int step = 0; step < 2 && st == XPOSE_OK; step++) {
        if (step == wide) { /* wide: the chunks first; tall: the blocks first */
            switch (es) {
            case 1: st = vec ? bt_launch<uint8_t, uint4>(c, B, smem) : bt_launch<uint8_t, uint8_t>(c, B, smem); break;
            case 2:
                st = vec ? bt_launch<uint16_t, uint4>(c, B, smem) : bt_launch<uint16_t, uint16_t>(c, B, smem);
                break;
            case 4:
                st = vec ? bt_launch<uint32_t, uint4>(c, B, smem) : bt_launch<uint32_t, uint32_t>(c, B, smem);
                break;
            case 8:
                st = vec ? bt_launch<uint64_t, uint4>(c, B, smem) : bt_launch<uint64_t, uint64_t>(c, B, smem);
                break;
            default: st = bt_launch<xp_v16, xp_v16>(c, B, smem); break;
            }
        } else if (order > 1) {
            st = chunk_run(c, M * N * es, w * es, wide ? h : L / w, wide ? L / w : h, order, sms);
        }
    }
    return st;
}

extern "C" int xp_cuda_inplace_rect(xp_inplace_call *c)
{
    c->need = c->need_min = 0;
    if (c->rows == 1 || c->cols == 1)
        return XPOSE_OK;
    if (c->rows >= (1ull << 31) || c->cols >= (1ull << 31))
        return XPOSE_ERR_UNSUPPORTED; /* the kernels index rows and columns in 32 bits */
    const xp_ckg k = xp_ckg_plan(c->rows, c->cols, c->p0);
    RectDevice d;
    int st = rect_device(&d, c->p1 == RECT_BIG);
    if (st != XPOSE_OK)
        return st;
    /* Rows no cluster holds go through the workspace, one at a time. */
    unsigned part;
    const size_t row_bytes = k.C * c->es;
    if (!rect_split(d, k.C, c->es, 16 / c->es > 1 ? 16 / c->es : 1, 16, &part))
        c->need = c->need_min = row_bytes;
    if (c->query)
        return XPOSE_OK;
    if (!c->need)
        c->ws = NULL;
    int taken = 0;
    st = rect_tiles(c, &taken);
    if (!taken && st == XPOSE_OK)
        st = rect_blocks(c, d, &taken);
    if (taken || st != XPOSE_OK)
        return st;
    /* gcd 1: the column permutation by the skew form where it applies (production row only). */
    int sms = 0;
    const unsigned order = c->p0 == XP_CKG_AUTO && c->p1 != RECT_BIG ? xp_skew_suits(&k) : 0;
    if (order && (st = sm_count(&sms)) != XPOSE_OK)
        return st;
    const int vec = (uintptr_t)c->data % 16 == 0 && k.C * c->es % 16 == 0;
    switch (c->es) {
    case 1:
        return vec ? rect_launch<uint8_t, uint4>(c, k, d, order, sms)
                   : rect_launch<uint8_t, uint8_t>(c, k, d, order, sms);
    case 2:
        return vec ? rect_launch<uint16_t, uint4>(c, k, d, order, sms)
                   : rect_launch<uint16_t, uint16_t>(c, k, d, order, sms);
    case 4:
        return vec ? rect_launch<uint32_t, uint4>(c, k, d, order, sms)
                   : rect_launch<uint32_t, uint32_t>(c, k, d, order, sms);
    case 8:
        return vec ? rect_launch<uint64_t, uint4>(c, k, d, order, sms)
                   : rect_launch<uint64_t, uint64_t>(c, k, d, order, sms);
    default: return rect_launch<xp_v16, xp_v16>(c, k, d, order, sms);
    }
}
