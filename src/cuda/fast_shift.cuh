/* fast_shift.cuh: 1-byte tiles whose rows do not all start on a 16-byte vector: source rows kept in shared memory as
 * the aligned vectors that cover them and shifted as they are gathered; destination segments shifted across lanes. */
#ifndef XP_FAST_SHIFT_CUH
#define XP_FAST_SHIFT_CUH

#include "fast_tile.cuh"

/* Why: the skewed tile (fast_skew.cuh) places every byte of a misaligned source row at its true column in shared
 * memory and gathers output vectors byte by byte: 32 shared-memory instructions per 16 bytes moved (docs/tuning.md,
 * "fast: shifted tiles"). Here a tile loads 128 source rows of 256 columns (FastTile<1>'s segments):
 * - loaded row r starts m_r bytes into a vector; its 256 columns lie in 17 aligned vectors (16 where m_r = 0),
 *   stored as loaded, one shared-memory store each. Column c of row r sits at byte c + m_r of the row.
 * - the gathers are the aligned kernel's (Gather<G, 1>: a word of 4 columns from each of 16 rows, byte permutes),
 *   each word read as two and joined by a funnel shift. The rows a warp instruction reads lie 16 apart and share
 *   m_r (16 x lds is a multiple of 16), so with 16 bytes of padding after every 16 rows its lanes hit 32 banks.
 *   Lane g of 8 holds output vector g: loaded rows 16g .. 16g + 15 of one column.
 * - where every destination row starts on a vector (HALO 0) the tile is the 128 rows, and lane g stores vector g.
 * - otherwise the tile owns, in destination row j, the window of source rows [r0 - d_j, r0 + 128 - HALO - d_j),
 *   d_j < HALO being how far row j's byte for source row r0 lies into a vector (HALO 16) or a 32-byte sector
 *   (HALO 32): every window starts on one, and the windows of tiles r0 = 0, 128 - HALO, ... partition the row. The
 *   tile loads rows r0 - HALO .. r0 + 127 - HALO. With d_j = 16 a + b (b < 16), aligned vector t of a window is the
 *   last b bytes of output vector t + HALO / 16 - a - 1 and the first 16 - b of the next: lane g >= HALO / 16 takes
 *   those two by shuffles and stores vector g - HALO / 16. Sector windows write whole sectors; vector windows load
 *   fewer halo rows but leave the sector where two windows meet to two blocks (shift_halo in fast.cu picks).
 * - tall tiles (vector windows only; tall_pays in fast.cu says where) own 128 rows and load 144, 9 row groups: lane g
 *   still builds group g, the unit's 8 lanes build group 8 together (tall_pairs), and lane 0, whose group only
 *   serves lane 1, stores window vector 7 from groups 7 and 8 ("fast: tall windows").
 * Every store is a whole aligned vector except at the matrix's first and last rows: segments whose end vectors were
 * written in parts, shared with the tiles above and below, ran far slower ("fast: shifted tiles"). */
template <int HALO, bool TALL = false> struct ShiftGeo {
    struct G {
        enum { ES = 1, TR = XP_SHIFT_TR(HALO, TALL), TC = XP_SHIFT_TC };
    }; /* the tile's own rows: tile_at's geometry */
    enum {
        LR = G::TR + HALO, /* rows loaded, from r0 - HALO */
        NCH = G::TC / 16,
        RS = (NCH + 1) * 16, /* bytes per loaded row: 17 vectors */
        PAD = 16,            /* bytes after every 16 rows */
        SMEM = LR * RS + LR / 16 * PAD,
        LOADS = LR * NCH / FAST_THREADS,             /* vectors 0-15 of the rows; vector 16 of row t by thread t */
        ITEMS = G::TC / 4 / 4 / (FAST_THREADS / 32), /* warp items (8 output vectors x 4 read units) per warp */
    };
    static_assert(LR <= FAST_THREADS && LR * NCH % FAST_THREADS == 0 && (HALO == 0 || HALO == 16 || HALO == 32),
                  "one extra vector a thread; windows of vectors or sectors");
    static_assert(!TALL || HALO == 16, "tall tiles: vector windows only (9 row groups)");
    static_assert(SMEM == XP_SHIFT_SMEM(HALO, TALL), "the planner's shared memory (fast_geometry.h)");
};

__device__ __forceinline__ unsigned shift_row(unsigned r) { return r * ShiftGeo<0>::RS + r / 16 * ShiftGeo<0>::PAD; }

/* Bytes [16 - d, 32 - d) of the 32 bytes a (first) and b, d in 0..15. */
__device__ __forceinline__ uint4 shift_window(uint4 a, uint4 b, unsigned d)
{
    const unsigned e = 16 - d, wb = e >> 2, sh = (e & 3) * 8; /* first word of the window, bits into it */
    const unsigned x[9] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, 0};
    unsigned p[9], q[9], z[5];
#pragma unroll
    for (int k = 0; k < 9; k++) /* words x[k + wb], by the bits of wb */
        p[k] = (wb & 4) ? (k + 4 < 9 ? x[k + 4] : 0) : x[k];
#pragma unroll
    for (int k = 0; k < 9; k++)
        q[k] = (wb & 2) ? (k + 2 < 9 ? p[k + 2] : 0) : p[k];
#pragma unroll
    for (int k = 0; k < 5; k++)
        z[k] = (wb & 1) ? q[k + 1] : q[k];
    return make_uint4(__funnelshift_r(z[0], z[1], sh), __funnelshift_r(z[1], z[2], sh), __funnelshift_r(z[2], z[3], sh),
                      __funnelshift_r(z[3], z[4], sh));
}

/* Word u (columns 4u .. 4u + 3) of loaded row `row`, whose first column sits (mb + row * l) % 16 bytes into the row. */
__device__ __forceinline__ unsigned shift_word(const unsigned char *sm, unsigned row, unsigned u, unsigned mb,
                                               unsigned l)
{
    const unsigned m = (mb + row * l) & 15, at = shift_row(row) + 4 * u + (m & ~3u);
    return __funnelshift_r(*(const unsigned *)(sm + at), *(const unsigned *)(sm + at + 4), (m & 3) * 8);
}

/* Tall tiles' ninth row group (loaded rows 128-143) of a read unit's 4 columns, spread over the unit's 8 lanes: lane g
 * holds the words of rows 128 + 2g (e0) and 129 + 2g (e1); after one exchange with lane g ^ 1, xy[0] and xy[1] of an
 * even lane g are word g / 2 (rows 4 (g / 2) .. + 3 of the group) of columns 0 and 1, of an odd lane of columns 2
 * and 3. One lane gathering the 16 words alone would add as many shared-memory instructions as the other 8 groups. */
__device__ __forceinline__ void tall_pairs(unsigned e0, unsigned e1, unsigned g, unsigned (&xy)[2])
{
    const unsigned a = __byte_perm(e0, e1, 0x5140), b = __byte_perm(e0, e1, 0x7362); /* columns 0 and 1; 2 and 3 */
    const bool odd = g & 1;
    const unsigned got = __shfl_xor_sync(0xffffffffu, odd ? a : b, 1); /* the rows of lane g ^ 1 */
    const unsigned lo = odd ? got : a, hi = odd ? b : got;
    xy[0] = __byte_perm(lo, hi, 0x5410);
    xy[1] = __byte_perm(lo, hi, 0x7632);
}

/* The ninth group's vector of column q (tall_pairs' words), for the lanes of a unit whose first lane is `base`. */
__device__ __forceinline__ uint4 tall_group(const unsigned (&xy)[2], unsigned base, int q)
{
    const unsigned v = xy[q & 1], h = (unsigned)q >> 1;
    return make_uint4(__shfl_sync(0xffffffffu, v, base + h), __shfl_sync(0xffffffffu, v, base + 2 + h),
                      __shfl_sync(0xffffffffu, v, base + 4 + h), __shfl_sync(0xffffffffu, v, base + 6 + h));
}

/* v from lane `from`. */
__device__ __forceinline__ uint4 shfl_vec(uint4 v, unsigned from)
{
    return make_uint4(__shfl_sync(0xffffffffu, v.x, from), __shfl_sync(0xffffffffu, v.y, from),
                      __shfl_sync(0xffffffffu, v.z, from), __shfl_sync(0xffffffffu, v.w, from));
}

/* One tile: its first source row r0 and column c0 of the matrix at src_mat (span end: `end`), into dst_mat. EDGE:
 * source rows outside the matrix are not read, vectors past nc columns or outside the span are read only in part,
 * and stored vectors keep only bytes of rows inside the matrix; without it the caller knows none of that happens
 * (fast_shift_kernel). */
template <int HALO, bool EDGE, bool TALL = false>
__device__ __forceinline__ void shift_tile(const char *src_mat, char *dst_mat, const char *end, size_t rows, size_t lds,
                                           size_t ldd, size_t r0, size_t c0, unsigned nc, unsigned char *sm)
{
    typedef ShiftGeo<HALO, TALL> K;
    const unsigned t = threadIdx.x, l = (unsigned)(lds & 15);
    const long long top = (long long)r0 - HALO; /* source row of loaded row 0 */
    const char *col0 = src_mat + c0;            /* column c0 of source row 0 */
    const unsigned mb = (unsigned)(((uintptr_t)col0 + (unsigned long long)top * lds) & 15);
    /* Thread t loads vector t % 16 of rows t / 16 + 16 it (which share their offset m), then vector 16 of row t. */
    const unsigned r = t / K::NCH, ch = t % K::NCH, m = (mb + r * l) & 15, mx = (mb + t * l) & 15;
    const char *first = col0 + (top + r) * (long long)lds - m + ch * 16;
    const char *xp = col0 + (top + t) * (long long)lds - mx + K::NCH * 16;
    uint4 v[K::LOADS], x = make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int it = 0; it < K::LOADS; it++) { /* all loads in flight before any use */
        const char *p = first + (long long)(16 * it) * (long long)lds;
        const long long i = top + r + 16 * it;
        v[it] = make_uint4(0, 0, 0, 0);
        if (!EDGE)
            v[it] = __ldg((const uint4 *)p);
        else if (i >= 0 && i < (long long)rows && ch * 16 < m + nc)
            v[it] = load16_part<1>(p, src_mat, end, (int)m - (int)ch * 16, (int)(m + nc) - (int)ch * 16);
    }
    const long long xi = top + t;
    const bool xok = t < K::LR && mx != 0 && (!EDGE || (xi >= 0 && xi < (long long)rows && K::NCH * 16 < mx + nc));
    if (xok)
        x = EDGE ? load16_part<1>(xp, src_mat, end, (int)mx - K::NCH * 16, (int)(mx + nc) - K::NCH * 16)
                 : __ldg((const uint4 *)xp);
#pragma unroll
    for (int it = 0; it < K::LOADS; it++)
        *(uint4 *)(sm + shift_row(r + 16 * it) + ch * 16) = v[it];
    if (t < K::LR)
        *(uint4 *)(sm + shift_row(t) + K::NCH * 16) = x;
    __syncthreads();
    const unsigned lane = t & 31, warp = t / 32, g = lane & 7;
#pragma unroll
    for (int it = 0; it < K::ITEMS; it++) {
        const unsigned u = (warp + it * (FAST_THREADS / 32)) * 4 + (lane >> 3); /* read unit: columns 4u .. 4u + 3 */
        unsigned w[16], xy[2];
#pragma unroll
        for (int k = 0; k < 16; k++)
            w[k] = shift_word(sm, g * 16 + k, u, mb, l);
        if (TALL)
            tall_pairs(shift_word(sm, 128 + 2 * g, u, mb, l), shift_word(sm, 129 + 2 * g, u, mb, l), g, xy);
        /* the group lane g builds the stored vector from: g, or in tall tiles 8 for lane 0 (whose group 0 only
         * serves lane 1) */
        const unsigned gs = TALL && g == 0 ? 8 : g;
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const unsigned col = 4 * u + q;
            uint4 o = byte_column(w, q);
            char *seg = dst_mat + (c0 + col) * ldd + r0; /* destination row c0 + col from source row r0 */
            long long s0 = (long long)r0 + 16 * gs;      /* source row of the stored vector's first byte */
            if constexpr (HALO != 0) {
                const unsigned dd = (unsigned)((uintptr_t)seg & (HALO - 1)), a = dd >> 4;
                const uint4 prev = shfl_vec(o, (lane & ~7u) | ((g - a - 1) & 7));
                if (HALO > 16)
                    o = shfl_vec(o, (lane & ~7u) | ((g - a) & 7));
                if (TALL) {
                    const uint4 o8 = tall_group(xy, lane & ~7u, q);
                    if (g == 0)
                        o = o8;
                }
                o = shift_window(prev, o, dd & 15);
                s0 -= HALO + dd;
            }
            if ((HALO && !TALL && g < HALO / 16) || (EDGE && col >= nc))
                continue;
            char *out = seg + (s0 - (long long)r0);
            if (EDGE)
                store16_part<1>(out, o, -s0, (long long)rows - s0);
            else
                *(uint4 *)out = o;
        }
    }
}

#endif
