/* inplace_skew.cu: the rectangles' column permutation where gcd(R, C) = 1, as a skew of the columns and a permutation
 * of row pieces, each at about a copy's access pattern (docs/variants.md, "The skew form"). */
#include <string.h>
#include <cuda_pipeline.h>
#include "inplace.h"
#include "xp_cuda_util.cuh"

/* With gcd 1 the column permutation is F(i, j) = S((p(i) + j) mod R, j), p(i) = i C mod R. For pieces of SK_W columns
 * (j = q SK_W + t) it splits into a skew, V(k, j) = S((k + t) mod R, j): column j rotated by t < SK_W, which a block
 * sweeps down a strip of 128 to 512 bytes holding a window of rows; and F(i, piece q) = V((p(i) + q SK_W) mod R, piece
 * q): whole pieces of rows permuted by a map affine in the row, walked along its cycles. The decomposition's column
 * pass instead holds whole strips in (distributed) shared memory, scattering an element at a time. */
enum {
    SK_W = 128, /* elements a piece */
    SK_THREADS = 256,
    SK_RING = 256, /* rows of a strip the sweep holds */
    SK_AHEAD = 8,  /* steps of rows in flight past those a step needs, at most (cp.async waits count to 8) */
    SK_TAB = 128,  /* cycle members a window, at most */
    SK_SPAN = 128, /* rows an item of the cycle kernel looks at for leaders */
    SK_BUF = 64 << 10,
    SK_ORDER = 4096, /* the longest cycle the form takes */
};

/* G bytes from global src to shared dst: by cp.async where G allows it, else through a register. */
template <int G> __device__ __forceinline__ void sk_load(void *dst, const void *src)
{
    if constexpr (G >= 4)
        __pipeline_memcpy_async(dst, src, G);
    else if constexpr (G == 2)
        *(uint16_t *)dst = *(const uint16_t *)src;
    else
        *(uint8_t *)dst = *(const uint8_t *)src;
}

template <int G> __device__ __forceinline__ void sk_store(void *dst, const void *src)
{
    if constexpr (G == 16)
        *(uint4 *)dst = *(const uint4 *)src;
    else if constexpr (G == 8)
        *(uint2 *)dst = *(const uint2 *)src;
    else if constexpr (G == 4)
        *(uint32_t *)dst = *(const uint32_t *)src;
    else if constexpr (G == 2)
        *(uint16_t *)dst = *(const uint16_t *)src;
    else
        *(uint8_t *)dst = *(const uint8_t *)src;
}

/* A piece: bytes [0, pb) from src to dst, a warp's lanes G bytes apart (into shared memory, or out of it). */
template <int G>
__device__ __forceinline__ void sk_warp_load(unsigned char *dst, const char *src, unsigned pb, unsigned lane)
{
#pragma unroll 4
    for (unsigned v = lane * G; v < pb; v += 32 * G)
        sk_load<G>(dst + v, src + v);
}

template <int G>
__device__ __forceinline__ void sk_warp_store(char *dst, const unsigned char *src, unsigned pb, unsigned lane)
{
#pragma unroll 4
    for (unsigned v = lane * G; v < pb; v += 32 * G)
        sk_store<G>(dst + v, src + v);
}

/* ---- the skew ---------------------------------------------------------------------------------------------------- */

/* Threads of the skew kernel on strips of sb bytes. */
__host__ __device__ constexpr int sk_threads(int sb) { return sb >= 512 ? 512 : 256; }

struct SkewArgs {
    char *data;
    size_t member, row;     /* bytes a matrix, a row */
    unsigned R, strips;     /* rows; strips a row */
    unsigned long long all; /* strips in the batch */
    int down;               /* the inverse: each column rotated the other way, which is the sweep from the last row */
};

/* One block a strip of SB bytes: rows 0 .. rhi (where the last rows' columns wrap round to) go aside first; then the
 * block walks down the strip TILE rows a step, loading rows into a ring up to SK_AHEAD steps ahead (cp.async), and
 * stores each output row from the rows below it. A row is overwritten only after it was loaded, and loaded before it
 * is overwritten. A warp moves 2 to 4 rows a step: with fewer, a warp paid the step's waits and barriers more often
 * than it moved data; strips of 512 bytes, one block a multiprocessor, take twice the warps ("inplace: skew form"). */
template <class E, int G, int SB> __global__ void __launch_bounds__(sk_threads(SB)) skew_kernel(const SkewArgs A)
{
    enum {
        ES = sizeof(E),
        NE = SB / ES,
        NW = sk_threads(SB) / 32,
        TILE = SB >= 512 ? 16 : 32,
        NC = NE >= 32 ? NE / 32 : 1, /* elements of a row a lane moves */
    };
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    extern __shared__ __align__(16) unsigned char sm[];
    unsigned char *const ring = sm, *const head = sm + SK_RING * SB;
    const long long pitch = A.down ? -(long long)A.row : (long long)A.row;
    for (unsigned long long w = blockIdx.x; w < A.all; w += gridDim.x) {
        const unsigned s = (unsigned)(w % A.strips);
        char *const row0 = A.data + w / A.strips * A.member + (size_t)s * SB + (A.down ? (size_t)(A.R - 1) * A.row : 0);
        const unsigned bytes = (unsigned)min((size_t)SB, A.row - (size_t)s * SB), nel = bytes / ES;
        /* The strip's columns rotate by rlo .. rhi: element u by (s NE + u) mod SK_W. */
        const unsigned rlo = NE >= SK_W ? 0 : s * NE % SK_W, rhi = NE >= SK_W ? SK_W - 1 : rlo + nel - 1;
        unsigned rot[NC];
#pragma unroll
        for (int c = 0; c < NC; c++)
            rot[c] = (s * NE + lane + 32 * c) & (SK_W - 1);
        for (unsigned r = warp; r <= rhi; r += NW)
            sk_warp_load<G>(head + r * SB, row0 + r * pitch, bytes, lane);
        __pipeline_commit();
        unsigned next = rlo; /* rows below rlo serve only the wrapped rows: the head holds them */
        const unsigned ahead = min((unsigned)SK_AHEAD, (SK_RING - 2 * TILE - (rhi - rlo)) / TILE);
        for (unsigned k0 = 0; k0 < A.R; k0 += TILE) {
            /* The step needs rows up to k0 + TILE + rhi (those past R are the head's) and loads `ahead` steps more;
             * the ring holds rows k0 + rlo .. at most k0 + TILE + rhi + (ahead + 1) TILE. */
            const unsigned need = min(A.R, k0 + TILE + rhi), want = min(A.R, need + ahead * TILE);
            for (; next < want; next += TILE) {
                for (unsigned x = next + warp; x < next + TILE && x < A.R; x += NW)
                    sk_warp_load<G>(ring + x % SK_RING * SB, row0 + x * pitch, bytes, lane);
                __pipeline_commit();
            }
            __pipeline_wait_prior(next > need ? (next - need) / TILE : 0);
            __syncthreads();
            for (unsigned k = k0 + warp; k < k0 + TILE && k < A.R; k += NW) {
                char *const out = row0 + k * pitch;
                const bool wraps = k + rhi >= A.R;
#pragma unroll
                for (int c = 0; c < NC; c++) {
                    const unsigned u = lane + 32 * c, x = k + rot[c];
                    if (u < nel) {
                        const unsigned char *src = !wraps || x < A.R ? ring + x % SK_RING * SB : head + (x - A.R) * SB;
                        *(E *)(out + u * ES) = *(const E *)(src + u * ES);
                    }
                }
            }
            __syncthreads(); /* the next step's loads reuse ring rows */
        }
    }
}

/* ---- the row pieces ---------------------------------------------------------------------------------------------- */

struct CycArgs {
    char *data;
    size_t member, row;              /* bytes a matrix, a row */
    unsigned R, pieces, pbytes, cap; /* rows; pieces a row and a whole piece's bytes; buffer slots (a power of two) */
    xp_bmod m;                       /* products mod R */
    unsigned long long apow[SK_TAB + 1], asum[SK_TAB + 1]; /* a^t and 1 + a + .. + a^(t - 1), mod R */
    unsigned long long b1;                                 /* piece q sends row y to a y + q b1 (mod R) */
    unsigned long long spans, sa, sb; /* spans of SK_SPAN rows a piece; span k's row s is k sa + s sb */
    unsigned long long all;           /* items: a span of a piece of a matrix */
};

/* Member t <= SK_TAB of y's cycle: a^t y + b_q S_t, with bs[t] = b_q S_t. */
__device__ __forceinline__ unsigned long long cyc_at(const CycArgs &A, const unsigned long long *apow,
                                                     const unsigned long long *bs, unsigned long long y, unsigned t)
{
    const unsigned long long z = xp_bmod_mul(A.m, apow[t], y) + bs[t];
    return z >= A.m.m ? z - A.m.m : z;
}

/* One block an item: a span of SK_SPAN rows of piece q of one matrix. The warps find the span's leaders; cycles that fit
 * the buffer go in batches, every member of every cycle of a batch loaded (all in flight) before any is stored into
 * the next member's place; longer cycles go a window at a time, the window's last member carried over. */
template <int G> __global__ void __launch_bounds__(SK_THREADS) cyc_kernel(const CycArgs A)
{
    __shared__ unsigned long long apow[SK_TAB + 1], bs[SK_TAB + 1];
    /* Leaders: short cycles (that fit the buffer) from the front of s_x and s_len, long ones from the back. */
    __shared__ unsigned s_x[SK_SPAN], s_len[SK_SPAN], s_pre[SK_SPAN + 1], s_ns, s_nl, s_mem[SK_TAB + 1], s_to[SK_TAB];
    extern __shared__ __align__(16) unsigned char buf[];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, T = SK_THREADS;
    const unsigned mask = A.cap - 1;
    for (unsigned t = threadIdx.x; t <= SK_TAB; t += T)
        apow[t] = A.apow[t];
    for (unsigned long long w = blockIdx.x; w < A.all; w += gridDim.x) {
        const unsigned q = (unsigned)(w % A.pieces);
        const unsigned long long span = w / A.pieces % A.spans, mat = w / A.pieces / A.spans;
        const unsigned long long bq = xp_bmod_mul(A.m, q, A.b1);
        for (unsigned t = threadIdx.x; t <= SK_TAB; t += T)
            bs[t] = xp_bmod_mul(A.m, bq, A.asum[t]);
        if (threadIdx.x == 0)
            s_ns = s_nl = 0;
        __syncthreads();
        for (unsigned s = warp; s < SK_SPAN; s += T / 32) {
            const unsigned long long x0 = span * A.sa + s * A.sb;
            if (x0 >= A.R)
                break;
            const unsigned len =
                xp_cycle_leads(x0, lane, [&](unsigned long long z, unsigned t) { return cyc_at(A, apow, bs, z, t); });
            if (len > 1 && lane == 0) {
                const unsigned at = len <= A.cap ? atomicAdd(&s_ns, 1u) : SK_SPAN - 1 - atomicAdd(&s_nl, 1u);
                s_x[at] = (unsigned)x0;
                s_len[at] = len;
            }
        }
        __syncthreads();
        const unsigned ns = s_ns, nl = s_nl, pb = (unsigned)min((size_t)A.pbytes, A.row - (size_t)q * A.pbytes);
        char *const base = A.data + mat * A.member + (size_t)q * A.pbytes;
        if (warp == 0) { /* s_pre[f]: the slots of short cycles 0 .. f - 1 */
            unsigned carry = 0;
            for (unsigned c = 0; c < ns; c += 32) {
                unsigned v = c + lane < ns ? s_len[c + lane] : 0;
                for (unsigned d = 1; d < 32; d *= 2) {
                    const unsigned y = __shfl_up_sync(0xffffffffu, v, d);
                    v += lane >= d ? y : 0;
                }
                s_pre[c + lane + 1] = carry + v;
                carry += __shfl_sync(0xffffffffu, v, 31);
            }
            if (lane == 0)
                s_pre[0] = 0;
        }
        __syncthreads();
        /* Batches of whole short cycles: cycles e .. e1 - 1, the most whose slots the buffer holds. */
        for (unsigned e = 0, e1; e < ns; e = e1) {
            unsigned lo = e + 1, hi = ns; /* e1: the last in [e + 1, ns] with s_pre[e1] - s_pre[e] <= cap */
            while (lo < hi) {
                const unsigned mid = (lo + hi + 1) / 2;
                if (s_pre[mid] - s_pre[e] <= A.cap)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            e1 = lo;
            const unsigned used = s_pre[e1] - s_pre[e];
            for (unsigned u = threadIdx.x; u < used; u += T) {
                unsigned a = e, b = e1 - 1; /* the cycle f holding slot u: s_pre[f] <= s_pre[e] + u < s_pre[f + 1] */
                while (a < b) {
                    const unsigned mid = (a + b + 1) / 2;
                    if (s_pre[mid] <= s_pre[e] + u)
                        a = mid;
                    else
                        b = mid - 1;
                }
                const unsigned t = s_pre[e] + u - s_pre[a], len = s_len[a];
                s_mem[u] = (unsigned)cyc_at(A, apow, bs, s_x[a], t);
                s_to[u] = (unsigned)cyc_at(A, apow, bs, s_x[a], t + 1 == len ? 0 : t + 1);
            }
            __syncthreads();
            for (unsigned slot = warp; slot < used; slot += T / 32)
                sk_warp_load<G>(buf + slot * A.pbytes, base + s_mem[slot] * A.row, pb, lane);
            __pipeline_commit();
            __pipeline_wait_prior(0);
            __syncthreads();
            for (unsigned slot = warp; slot < used; slot += T / 32)
                sk_warp_store<G>(base + s_to[slot] * A.row, buf + slot * A.pbytes, pb, lane);
            __syncthreads(); /* the next batch rewrites the slots */
        }
        for (unsigned l = 0; l < nl; l++) {
            const unsigned len = s_len[SK_SPAN - 1 - l];
            unsigned long long ys = s_x[SK_SPAN - 1 - l]; /* member s */
            for (unsigned s = 0; s < len;) {
                const unsigned nb = min(A.cap - 1, len - s); /* this window stores members s + 1 .. s + nb */
                for (unsigned t = threadIdx.x; t <= nb; t += T)
                    s_mem[t] = (unsigned)cyc_at(A, apow, bs, ys, t);
                __syncthreads();
                /* Members s (the first window only: later ones hold it) .. s + nb, but not member len (member 0). */
                const unsigned t0 = s ? 1 : 0, t1 = s + nb < len ? nb : nb - 1;
                for (unsigned t = t0 + warp; t <= t1; t += T / 32)
                    sk_warp_load<G>(buf + ((s + t) & mask) * A.pbytes, base + s_mem[t] * A.row, pb, lane);
                __pipeline_commit();
                __pipeline_wait_prior(0);
                __syncthreads();
                for (unsigned t = 1 + warp; t <= nb; t += T / 32)
                    sk_warp_store<G>(base + s_mem[t] * A.row, buf + ((s + t - 1) & mask) * A.pbytes, pb, lane);
                ys = s_mem[nb];
                s += nb;
                __syncthreads(); /* the next window rewrites the members and the slots */
            }
        }
        __syncthreads(); /* the next item rewrites the leaders */
    }
}

/* ---- host -------------------------------------------------------------------------------------------------------- */

/* The map of piece 0's rows, y -> a y (mod R), and every cycle's bound: the order L of a where the L-th power of
 * the affine map y -> a y + b is the identity for every b (1 + a + .. + a^(L - 1) = 0 mod R), else 0. */
static unsigned sk_order(unsigned long long R, unsigned long long a)
{
    unsigned long long v = a % R, sum = 1;
    for (unsigned L = 1; L <= SK_ORDER; L++) {
        if (v == 1)
            return sum % R == 0 ? L : 0;
        sum = (sum + v) % R;
        v = v * a % R;
    }
    return 0;
}

/* a^-1 mod m, for gcd(a, m) = 1. */
static unsigned long long sk_inverse(unsigned long long a, unsigned long long m)
{
    long long t = 0, t1 = 1, r = (long long)m, r1 = (long long)(a % m);
    while (r1) {
        const long long qt = r / r1, tt = t - qt * t1, rr = r - qt * r1;
        t = t1, t1 = tt, r = r1, r1 = rr;
    }
    return (unsigned long long)(t < 0 ? t + (long long)m : t);
}

unsigned xp_skew_suits(const xp_ckg *k)
{
    return k->c == 1 && k->R >= 512 && k->R < (1ull << 31) && k->C < (1ull << 31) ? sk_order(k->R, k->C) : 0;
}

/* Launches kernel over `all` items, a block a multiprocessor's share at most: each block loops over its items, so a
 * block that waits for a slot would run its items after the others. */
template <class Args> static int sk_launch(void (*kernel)(Args), const Args &A, unsigned long long all,
                                           unsigned threads, size_t smem, int sms, cudaStream_t st)
{
    int per = 0;
    if (xp_smem_optin((const void *)kernel, smem) != XPOSE_OK ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, threads, smem) != cudaSuccess || per < 1) {
        cudaGetLastError();
        return XPOSE_ERR_CUDA;
    }
    const unsigned long long most = (unsigned long long)per * (unsigned)sms;
    kernel<<<(unsigned)(all < most ? all : most), threads, smem, st>>>(A);
    return xp_cuda_launch_status();
}

/* Strips as wide as keep every multiprocessor busy: 512 bytes where they make two blocks a multiprocessor, else 256
 * where they make one, else 128. Wider strips spread a row's bytes over fewer DRAM pages ("inplace: skew form"). */
template <class E, int G> static int skew_launch(const SkewArgs &A, int sms, cudaStream_t st)
{
    const unsigned long long matrices = A.all / A.strips;
    SkewArgs B = A;
    B.strips = (unsigned)((A.row + 511) / 512);
    B.all = matrices * B.strips;
    if (B.all >= 2ull * (unsigned)sms)
        return sk_launch(skew_kernel<E, G, 512>, B, B.all, sk_threads(512), (size_t)(SK_RING + SK_W) * 512, sms, st);
    B.strips = (unsigned)((A.row + 255) / 256);
    B.all = matrices * B.strips;
    if (B.all >= (unsigned long long)sms)
        return sk_launch(skew_kernel<E, G, 256>, B, B.all, SK_THREADS, (size_t)(SK_RING + SK_W) * 256, sms, st);
    return sk_launch(skew_kernel<E, G, 128>, A, A.all, SK_THREADS, (size_t)(SK_RING + SK_W) * 128, sms, st);
}

/* Loads of 16 bytes where rows allow, else of the element (4 bytes for bytes and 2-byte elements where rows allow). */
template <class E> static int skew_es(const SkewArgs &A, unsigned g, int sms, cudaStream_t st)
{
    if (g >= 16)
        return skew_launch<E, 16>(A, sms, st);
    if constexpr (sizeof(E) < 4) {
        if (g >= 4)
            return skew_launch<E, 4>(A, sms, st);
    }
    if constexpr (sizeof(E) < 16)
        return skew_launch<E, sizeof(E)>(A, sms, st);
    return XPOSE_ERR_UNSUPPORTED; /* unreachable: 16-byte elements lie on 16 bytes */
}

template <int G> static int cyc_launch(const CycArgs &A, int sms, cudaStream_t st)
{
    return sk_launch(cyc_kernel<G>, A, A.all, SK_THREADS, (size_t)A.cap * A.pbytes, sms, st);
}

int xp_skew_perm(const xp_inplace_call *c, const xp_ckg *k, int gather, unsigned order, int sms)
{
    const cudaStream_t st = (cudaStream_t)c->stream;
    const size_t es = c->es, row = k->C * es;
    /* Loads of g bytes: the widest that every row's start allows. */
    unsigned g = 16;
    while (g > 1 && (row % g || (uintptr_t)c->data % g))
        g /= 2;
    SkewArgs S;
    memset(&S, 0, sizeof S);
    S.data = (char *)c->data;
    S.member = k->R * row;
    S.row = row;
    S.R = (unsigned)k->R;
    S.strips = (unsigned)((row + 127) / 128);
    S.all = (unsigned long long)S.strips * c->batch;
    S.down = !gather;
    CycArgs Y;
    memset(&Y, 0, sizeof Y);
    Y.data = S.data;
    Y.member = S.member;
    Y.row = row;
    Y.R = S.R;
    Y.pbytes = (unsigned)(SK_W * es);
    Y.pieces = (unsigned)((k->C + SK_W - 1) / SK_W);
    Y.cap = SK_BUF / Y.pbytes < SK_TAB ? SK_BUF / Y.pbytes : SK_TAB;
    Y.m = xp_bmod_make(k->R);
    /* Piece q: F(i) = V(C i + q SK_W): gathered, row C i + s moves to i, so y -> C^-1 (y - s); scattered (the
     * inverse), row i moves to C i + s. */
    const unsigned long long R = k->R, Cm = k->C % R, s1 = SK_W % R;
    const unsigned long long a = gather ? sk_inverse(Cm, R) : Cm;
    Y.b1 = gather ? (R - a * s1 % R) % R : s1;
    if (!order)
        return XPOSE_ERR_UNSUPPORTED;
    Y.apow[0] = 1, Y.asum[0] = 0;
    for (unsigned t = 1; t <= SK_TAB; t++) {
        Y.apow[t] = Y.apow[t - 1] * a % R;
        Y.asum[t] = (Y.asum[t - 1] + Y.apow[t - 1]) % R;
    }
    Y.spans = (R + SK_SPAN - 1) / SK_SPAN;
    /* Where cycles outrun the buffer their leaders crowd the low rows: each span then takes every spans-th row. */
    Y.sa = order > Y.cap ? 1 : SK_SPAN;
    Y.sb = order > Y.cap ? Y.spans : 1;
    Y.all = Y.spans * Y.pieces * c->batch;
    int rc = XPOSE_OK;
    for (int step = 0; step < 2 && rc == XPOSE_OK; step++) {
        if (step == !gather) { /* gather: the skew first; scatter: the pieces first */
            switch (es) {
            case 1: rc = skew_es<uint8_t>(S, g, sms, st); break;
            case 2: rc = skew_es<uint16_t>(S, g, sms, st); break;
            case 4: rc = skew_es<uint32_t>(S, g, sms, st); break;
            case 8: rc = skew_es<uint64_t>(S, g, sms, st); break;
            default: rc = skew_es<xp_v16>(S, g, sms, st); break;
            }
        } else {
            switch (g) {
            case 16: rc = cyc_launch<16>(Y, sms, st); break;
            case 8: rc = cyc_launch<8>(Y, sms, st); break;
            case 4: rc = cyc_launch<4>(Y, sms, st); break;
            case 2: rc = cyc_launch<2>(Y, sms, st); break;
            default: rc = cyc_launch<1>(Y, sms, st); break;
            }
        }
    }
    return rc;
}
