/* cpu_fast_simd.h: cpu-fast's SIMD body, written once and compiled per instruction set. The including file
 * defines xpf_vec, XPF_W (register bytes), XPF_TARGET, XPF_P (its intrinsics' prefix), xpf_load_lane, xpf_load,
 * xpf_store, xpf_stream, xpf_copy_short, xpf_copy_line, XPF_NARROWER(nt, e) (the region of the set that takes
 * the rows short of a block, or NULL), and XPF_ISA / XPF_NAME (the table this file fills); where the set has a
 * two-register permute, XPF_MERGE, xpf_merge_index, xpf_merge_at and xpf_store_bytes (the joined-lines kernels). */

#define XPF_LANES (XPF_W / 16)
#define XPF_UNROLL _Pragma("GCC unroll 16")
#define XPF_INLINE static inline __attribute__((always_inline)) XPF_TARGET

/* Interleaves the low (hi = 0) or high halves of a and b, in g-byte units, inside each 128-bit lane. */
XPF_INLINE xpf_vec xpf_unpack(int hi, size_t g, xpf_vec a, xpf_vec b)
{
    switch (g) {
    case 1: return hi ? XPF_P(unpackhi_epi8)(a, b) : XPF_P(unpacklo_epi8)(a, b);
    case 2: return hi ? XPF_P(unpackhi_epi16)(a, b) : XPF_P(unpacklo_epi16)(a, b);
    case 4: return hi ? XPF_P(unpackhi_epi32)(a, b) : XPF_P(unpacklo_epi32)(a, b);
    default: return hi ? XPF_P(unpackhi_epi64)(a, b) : XPF_P(unpacklo_epi64)(a, b);
    }
}

/* Row k of a lane's square goes into register bitrev(k): the unpack rounds then leave column m in register m.
 * A table (not a loop) so that the compiler folds it for every unrolled k. */
XPF_INLINE size_t xpf_bitrev(size_t k, size_t n)
{
    static const unsigned char rev16[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
    return rev16[k] / (16 / n);
}

/* The log2(R) unpack rounds (R = 16 / es; granularity es, 2es, ... 8 bytes) that transpose each 128-bit lane's R x R
 * square of registers 0 .. R - 1, loaded with row q in register bitrev(q): register m then holds column m. */
XPF_INLINE void xpf_unpack_rounds(size_t es, xpf_vec v[16])
{
    const size_t R = 16 / es;
    xpf_vec w[16];
    XPF_UNROLL
    for (size_t s = 1; s < R; s *= 2) {
        XPF_UNROLL
        for (size_t k = 0; k < R / 2; k++) {
            w[2 * k] = xpf_unpack(0, es * s, v[k], v[k + R / 2]);
            w[2 * k + 1] = xpf_unpack(1, es * s, v[k], v[k + R / 2]);
        }
        XPF_UNROLL
        for (size_t k = 0; k < R; k++)
            v[k] = w[k];
    }
}

/* One block: R = 16/es columns (16 bytes) of LANES*R rows. Lane l of register k is loaded from row
 * l*R + bitrev(k); x86 unpacks interleave inside 128-bit lanes, so log2(R) rounds (granularity es, 2es,
 * ... 8 bytes) transpose each lane's R x R square, and register m ends up holding destination row m whole:
 * LANES*R consecutive elements, one full register. Gathering lanes on the load side costs inserts
 * that run on two ports, where extracting them on the store side would cost one port and partial lines.
 * Rows past the first `left` continue at `next` (pitch lds still): rows that come in runs at their own addresses,
 * read where they lie (xpf_region_runs). */
XPF_INLINE void xpf_transpose_split(size_t es, const unsigned char *src, size_t lds, size_t left,
                                    const unsigned char *next, xpf_vec v[16])
{
    const size_t R = 16 / es;
    /* Rows in order through one moving pointer, which the empty asm keeps the compiler from turning back into
     * up to 64 precomputed row offsets: those would not fit the integer registers and would be spilled. */
    XPF_UNROLL
    for (size_t l = 0; l < XPF_LANES; l++) {
        XPF_UNROLL
        for (size_t q = 0; q < R; q++) {
            v[xpf_bitrev(q, R)] = xpf_load_lane(v[xpf_bitrev(q, R)], l, src);
            src = l * R + q + 1 == left ? next : src + lds;
            __asm__("" : "+r"(src));
        }
    }
    xpf_unpack_rounds(es, v);
}

/* A block of rows lds apart (the switch never taken: the compiler drops it). */
XPF_INLINE void xpf_transpose_block(size_t es, const unsigned char *src, size_t lds, xpf_vec v[16])
{
    xpf_transpose_split(es, src, lds, SIZE_MAX, src, v);
}

/* Blocks walk down a tile one 16-byte column at a time, so every source row of the tile is a stream of its own that
 * moves on by a line only every fourth pass: 64-512 streams, more than the core's prefetchers follow. So each block
 * asks for the line AHEAD bytes past its own column in a quarter of its rows (over the four passes of a line every row
 * gets one), read-only into L2: 256 bytes on the region path, 128 on joined lines; 1- to 8-byte elements only
 * (docs/tuning.md, "cpu-fast: prefetch ahead"). */
#define XPF_AHEAD_REGION 256
#define XPF_AHEAD_LINES 128

/* Read prefetches into L2 of n rows, lds bytes apart, from the one at `first`. An integer, not a pointer: past the
 * matrix's last column the addresses lie outside it, which a prefetch may reach but C pointer arithmetic may not. */
XPF_INLINE void xpf_prefetch_rows(uintptr_t first, size_t lds, size_t n)
{
    for (size_t k = 0; k < n; k++, first += lds)
        __builtin_prefetch((const void *)first, 0, 2);
}

XPF_INLINE void xpf_prefetch_ahead(size_t es, const unsigned char *src, size_t lds, size_t col_b, size_t ahead)
{
    const size_t q = XPF_LANES * (16 / es) / 4; /* a quarter of the block's rows */
    if (es <= 8)
        xpf_prefetch_rows((uintptr_t)src + (col_b / 16) % 4 * q * lds + ahead, lds, q);
}

/* A transposed block's R destination rows, each one register, stored from dst (aligned to the register width). */
XPF_INLINE void xpf_store_rows(size_t es, const xpf_vec v[16], unsigned char *dst, size_t ldd, int nt)
{
    XPF_UNROLL
    for (size_t m = 0; m < 16 / es; m++) {
        if (nt)
            xpf_stream(dst + m * ldd, v[m]);
        else
            xpf_store(dst + m * ldd, v[m]);
    }
}

/* A block stored straight from the registers: destination rows aligned to the register width. */
XPF_INLINE void xpf_block(size_t es, const unsigned char *src, size_t lds, unsigned char *dst, size_t ldd, int nt)
{
    xpf_vec v[16];
    xpf_transpose_block(es, src, lds, v);
    xpf_store_rows(es, v, dst, ldd, nt);
}

#if XPF_W < XPF_LINE
/* Two blocks down a column, rows 0 .. 2H - 1 from src: each of the R destination rows gets a whole line, the two
 * registers stored back to back, where one block's half lines would leave R lines half written at once (2-byte
 * elements on AVX2: "cpu-fast: 2-byte block pairs on AVX2"). */
XPF_INLINE void xpf_block_pair(size_t es, const unsigned char *src, size_t lds, unsigned char *dst, size_t ldd, int nt)
{
    const size_t R = 16 / es, H = XPF_LANES * R;
    xpf_vec a[16], b[16];
    xpf_transpose_block(es, src, lds, a);
    xpf_transpose_block(es, src + H * lds, lds, b);
    XPF_UNROLL
    for (size_t m = 0; m < R; m++) { /* one register each (xpf_store_rows of one 16-byte row) */
        xpf_store_rows(16, &a[m], dst + m * ldd, ldd, nt);
        xpf_store_rows(16, &b[m], dst + m * ldd + XPF_W, ldd, nt);
    }
}
#endif

#if XPF_W == 32
/* One sub-band (xp_fast_band_fn): R = 16 / es rows from src, rows past the first n repeating row n - 1. `full` is
 * constant per caller, so the loads of a block take fixed offsets where all rows are there. */
XPF_INLINE void xpf_sub_band(size_t es, const unsigned char *src, size_t lds, size_t n, size_t nj, unsigned char *piece,
                             int full)
{
    const size_t R = 16 / es;
    size_t off[16];
    XPF_UNROLL
    for (size_t q = 0; q < R; q++)
        off[q] = (full || q < n ? q : n - 1) * lds;
    for (size_t j = 0; j < nj; j += 2 * R, piece += 2 * R * 16) {
        /* Both lanes of a register from one row (2R columns): the unpack rounds leave lane 0 of register m holding
         * column m and lane 1 column R + m, each as R rows: one piece. */
        xpf_vec v[16];
        XPF_UNROLL
        for (size_t q = 0; q < R; q++)
            v[xpf_bitrev(q, R)] = xpf_load(src + off[q] + j * es);
        xpf_unpack_rounds(es, v);
        XPF_UNROLL
        for (size_t m = 0; m < R; m++) {
            _mm_store_si128((__m128i *)(piece + m * 16), _mm256_castsi256_si128(v[m]));
            _mm_store_si128((__m128i *)(piece + (R + m) * 16), _mm256_extracti128_si256(v[m], 1));
        }
    }
}

#define XPF_BAND_(N, T)                                                                                                \
    static XPF_TARGET void xpf_band_##N(const unsigned char *src, size_t lds, size_t n, size_t nj,                     \
                                        unsigned char *piece)                                                          \
    {                                                                                                                  \
        if (n == 16 / N)                                                                                               \
            xpf_sub_band(N, src, lds, n, nj, piece, 1);                                                                \
        else                                                                                                           \
            xpf_sub_band(N, src, lds, n, nj, piece, 0);                                                                \
    }
XP_FOR_EACH_ELEM(XPF_BAND_)

/* Whole lines of a banded destination row (xp_fast_band_lines_fn): line l from pieces 4l .. 4l + 3, two 16-byte loads a
 * register; gathering them through memory first would read 32 bytes over two 16-byte stores still in flight, which the
 * core cannot forward. */
XPF_INLINE void xpf_band_line(unsigned char *dst, const unsigned char *const *piece, size_t at)
{
    xpf_stream(dst, _mm256_loadu2_m128i((const __m128i *)(piece[1] + at), (const __m128i *)(piece[0] + at)));
    xpf_stream(dst + 32, _mm256_loadu2_m128i((const __m128i *)(piece[3] + at), (const __m128i *)(piece[2] + at)));
}

static XPF_TARGET void xpf_band_lines(unsigned char *dst, size_t ldd, size_t rows, size_t lines,
                                      const unsigned char *const *piece, size_t at)
{
    if (lines == XPF_BAND_LINES) /* a whole band: the loop unrolled */
        for (size_t r = 0; r < rows; r++, dst += ldd, at += 16) {
            XPF_UNROLL
            for (size_t l = 0; l < XPF_BAND_LINES; l++)
                xpf_band_line(dst + l * XPF_LINE, piece + 4 * l, at);
        }
    else
        for (size_t r = 0; r < rows; r++, dst += ldd, at += 16)
            for (size_t l = 0; l < lines; l++)
                xpf_band_line(dst + l * XPF_LINE, piece + 4 * l, at);
}
#define XPF_BAND {xpf_band_1, xpf_band_2, xpf_band_4, xpf_band_8, xpf_band_16}, xpf_band_lines
#else
#define XPF_BAND {NULL}, NULL
#endif

/* 1-byte blocks read 16 bytes of each of 64 rows (AVX-512; 32 with AVX2), and the XPF_W / 16 blocks across a register's
 * width read the same lines again. Where the source pitch is a multiple of this, those rows fall in one L1 set, which
 * cannot hold them from one block to the next. There the strip of rows one register wide is first copied into a
 * contiguous buffer, a whole register per row, and the blocks read the buffer (docs/tuning.md, "cpu-fast: strips on
 * 4 KiB pitches"), each strip copied under the previous strip's blocks ("cpu-fast: overlapped strips"). AVX-512's
 * 1-byte and 4-byte region blocks read whole lines there instead (xpf_region_lines1, xpf_block_lines4). */
#define XPF_ALIAS_PITCH 4096

/* Rows 0 .. h - 1 of a strip one register wide, from src (pitch lds) into strip (pitch XPF_W), after asking for the
 * line `ahead` bytes further along each row (0: none), which a later strip of the same rows reads (xpf_prefetch_ahead
 * says why). */
XPF_INLINE void xpf_copy_strip(size_t h, const unsigned char *src, size_t lds, unsigned char *strip, size_t ahead)
{
    if (ahead)
        xpf_prefetch_rows((uintptr_t)src + ahead, lds, h);
    XPF_UNROLL
    for (size_t r = 0; r < h; r++)
        xpf_store(strip + r * XPF_W, xpf_load(src + r * lds));
}

/* Whether es-byte blocks of H rows read from source pitch lds go through strips (XPF_ALIAS_PITCH says why): 1-byte
 * blocks, and 2-byte ones only where a block writes whole destination lines (AVX-512): the AVX2 blocks' half lines, 16
 * rows of them open at once across a strip, ran slower ("cpu-fast: strips on 4 KiB pitches"). */
XPF_INLINE int xpf_strips_pay(size_t es, size_t H, size_t lds)
{
    return (es == 1 || (es == 2 && H * es >= XPF_LINE)) && lds % XPF_ALIAS_PITCH == 0;
}

#if XPF_W == 64
/* 16 x 16 dwords in registers: dword n of r[k] becomes dword k of r[n] (unpacks of 4 and 8 bytes inside lanes, then two
 * rounds of 128-bit lane shuffles). */
XPF_INLINE void xpf_transpose_dwords(__m512i r[16])
{
    __m512i a[16];
    XPF_UNROLL
    for (int k = 0; k < 16; k += 2) { /* lane L of a[k], a[k + 1]: rows k, k + 1 interleaved, columns 4L .. 4L + 3 */
        a[k] = _mm512_unpacklo_epi32(r[k], r[k + 1]);
        a[k + 1] = _mm512_unpackhi_epi32(r[k], r[k + 1]);
    }
    XPF_UNROLL
    for (int m = 0; m < 16; m += 4) { /* lane L of r[m + c]: rows m .. m + 3 of column 4L + c */
        r[m] = _mm512_unpacklo_epi64(a[m], a[m + 2]);
        r[m + 1] = _mm512_unpackhi_epi64(a[m], a[m + 2]);
        r[m + 2] = _mm512_unpacklo_epi64(a[m + 1], a[m + 3]);
        r[m + 3] = _mm512_unpackhi_epi64(a[m + 1], a[m + 3]);
    }
    XPF_UNROLL
    for (int c = 0; c < 4; c++) { /* even and odd lanes of rows 0-7, then of rows 8-15 */
        a[4 * c] = _mm512_shuffle_i32x4(r[c], r[4 + c], 0x88);
        a[4 * c + 1] = _mm512_shuffle_i32x4(r[c], r[4 + c], 0xDD);
        a[4 * c + 2] = _mm512_shuffle_i32x4(r[8 + c], r[12 + c], 0x88);
        a[4 * c + 3] = _mm512_shuffle_i32x4(r[8 + c], r[12 + c], 0xDD);
    }
    XPF_UNROLL
    for (int c = 0; c < 4; c++) { /* column 4L + c: lane L of each quarter of rows */
        r[c] = _mm512_shuffle_i32x4(a[4 * c], a[4 * c + 2], 0x88);
        r[8 + c] = _mm512_shuffle_i32x4(a[4 * c], a[4 * c + 2], 0xDD);
        r[4 + c] = _mm512_shuffle_i32x4(a[4 * c + 1], a[4 * c + 3], 0x88);
        r[12 + c] = _mm512_shuffle_i32x4(a[4 * c + 1], a[4 * c + 3], 0xDD);
    }
}

/* The line at *src, after asking for the line `ahead` bytes on into L2; *src moves on by lds (through the empty asm, as
 * in xpf_transpose_split). */
XPF_INLINE __m512i xpf_load_line(const unsigned char **src, size_t lds, size_t ahead)
{
    const unsigned char *p = *src;
    __builtin_prefetch(p + ahead, 0, 2);
    __m512i v = _mm512_loadu_si512((const void *)p);
    p += lds;
    __asm__("" : "+r"(p));
    *src = p;
    return v;
}

/* 4-byte blocks read 16 bytes of each of 16 rows, and the next three blocks across the line read the same lines again
 * a whole tile's rows later. On a source pitch of whole 4 KiB pages the tile's rows fall in one L1 set (and in a few
 * L2 sets), and those lines are gone by then. There a block takes 16 rows of a whole line each instead (16 x 16
 * floats: four rounds of in-lane unpacks and lane shuffles) and stores 16 whole destination lines, so every source
 * line is read once, and the line `ahead` bytes on in each of its rows is asked for into L2 (docs/tuning.md, "cpu-fast:
 * whole-line float blocks"). */
XPF_INLINE void xpf_block_lines4(const unsigned char *src, size_t lds, unsigned char *dst, size_t ldd, int nt,
                                 size_t ahead)
{
    __m512i r[16];
    XPF_UNROLL
    for (int k = 0; k < 16; k++)
        r[k] = xpf_load_line(&src, lds, ahead);
    xpf_transpose_dwords(r);
    xpf_store_rows(1, r, dst, ldd, nt);
}

/* 1-byte blocks on the same pitches: 64 rows of a whole line (64 x 64 bytes) each, in two steps through a 4 KiB stage,
 * so that the next block's loads can run under this block's shuffles (xpf_region). Gathering: rows 4m .. 4m + 3
 * interleaved (bytes, then pairs) make dwords of one column's four rows; stage[16g + m] holds those of columns 16L + 4g
 * .. 16L + 4g + 3 of each lane L. This piece p does rows 16p .. 16p + 15 (m = 4p .. 4p + 3). */
XPF_INLINE void xpf_gather_bytes(const unsigned char *src, size_t lds, size_t p, __m512i *stage, size_t ahead)
{
    src += 16 * p * lds;
    XPF_UNROLL
    for (size_t m = 4 * p; m < 4 * p + 4; m++) {
        __m512i a = xpf_load_line(&src, lds, ahead), b = xpf_load_line(&src, lds, ahead);
        __m512i c = xpf_load_line(&src, lds, ahead), d = xpf_load_line(&src, lds, ahead);
        __m512i x0 = _mm512_unpacklo_epi8(a, b), x1 = _mm512_unpackhi_epi8(a, b);
        __m512i y0 = _mm512_unpacklo_epi8(c, d), y1 = _mm512_unpackhi_epi8(c, d);
        _mm512_store_si512((void *)&stage[m], _mm512_unpacklo_epi16(x0, y0));
        _mm512_store_si512((void *)&stage[16 + m], _mm512_unpackhi_epi16(x0, y0));
        _mm512_store_si512((void *)&stage[32 + m], _mm512_unpacklo_epi16(x1, y1));
        _mm512_store_si512((void *)&stage[48 + m], _mm512_unpackhi_epi16(x1, y1));
    }
}

/* Scattering set g: its 16 registers transposed as 16 x 16 dwords leave column 16L + 4g + c, all 64 rows, one whole
 * destination line, in register 4L + c. */
XPF_INLINE void xpf_scatter_bytes(const __m512i *stage, size_t g, unsigned char *dst, size_t ldd, int nt)
{
    __m512i r[16];
    XPF_UNROLL
    for (int k = 0; k < 16; k++)
        r[k] = _mm512_load_si512((const void *)&stage[16 * g + k]);
    xpf_transpose_dwords(r);
    XPF_UNROLL
    for (size_t n = 0; n < 16; n++)
        xpf_store_rows(16, &r[n], dst + (n / 4 * 16 + 4 * g + n % 4) * ldd, ldd, nt);
}

/* The 1-byte region's whole blocks on those pitches, down each column of blocks, then across: block t + 1's rows are
 * gathered a quarter at a time, one quarter before each of block t's four scatters (two stages), as the overlapped
 * strips do. Against the strips (the same loads of 64 rows of a line, then 16-byte lane loads from the buffer), the
 * stage's dword form leaves full-register loads and in-register shuffles only: 8192^2 u8 gained 5-15 points of
 * cpu-stream (docs/tuning.md, "cpu-fast: whole-line byte blocks"). Returns the columns done (whole lines). */
XPF_INLINE size_t xpf_region_lines1(const unsigned char *src, size_t lds, size_t ni_v, size_t nj_v, unsigned char *dst,
                                    size_t ldd, int nt, size_t ahead)
{
    _Alignas(64) __m512i stage[2][64];
    const size_t n_i = ni_v / 64, n = n_i * (nj_v / 64);
    if (!n)
        return 0;
    for (size_t p = 0; p < 4; p++)
        xpf_gather_bytes(src, lds, p, stage[0], ahead);
    for (size_t t = 0; t < n; t++) {
        const size_t i = t % n_i * 64, j = t / n_i * 64;
        const unsigned char *next = t + 1 < n ? src + (t + 1) % n_i * 64 * lds + (t + 1) / n_i * 64 : NULL;
        XPF_UNROLL
        for (size_t p = 0; p < 4; p++) {
            if (next)
                xpf_gather_bytes(next, lds, p, stage[(t + 1) & 1], ahead);
            xpf_scatter_bytes(stage[t & 1], p, dst + j * ldd + i, ldd, nt);
        }
    }
    return nj_v / 64 * 64;
}
#endif

/* Columns outer, rows inner: each destination row of the strip is written front to back, so that
 * non-temporal stores fill whole lines while they are still in one write-combining buffer. `dense`: the tile's
 * source rows lie back to back (lds is nj elements), so the line AHEAD bytes along a row is the next row's, already
 * the tile's; the blocks then ask for the lines of the next tile (ni rows further), which follows in the source
 * (docs/tuning.md, "cpu-fast: dense tiles prefetch the next tile"). */
XPF_INLINE void xpf_region(size_t es, const unsigned char *src, size_t lds, size_t ni, size_t nj, unsigned char *dst,
                           size_t ldd, int nt, int dense)
{
    const size_t ahead = dense ? ni * lds : XPF_AHEAD_REGION;
    const size_t R = 16 / es, H = XPF_LANES * R;
    size_t ni_v = ni - ni % H, nj_v = nj - nj % R, j = 0;
#if XPF_W == 64
    const int lines1 = es == 1 && lds % XPF_ALIAS_PITCH == 0; /* whole-line byte blocks instead of strips */
    if (lines1)
        j = xpf_region_lines1(src, lds, ni_v, nj_v, dst, ldd, nt, ahead);
#else
    const int lines1 = 0;
#endif
    if (!lines1 && xpf_strips_pay(es, H, lds)) {
        /* Strips in order down each column of strips, then across; while the blocks of strip t read one buffer, each
         * copies a quarter of strip t + 1's rows into the other, so that the copy's loads wait under the blocks'
         * work instead of before it (XPF_ALIAS_PITCH has the measurements). */
        _Alignas(64) unsigned char bufs[2][XPF_LANES * 16 * XPF_W]; /* H rows of one register, twice */
        const size_t SW = XPF_W / es, n_i = ni_v / H, n = n_i * (nj_v / SW), Q = H / XPF_LANES;
        if (n)
            xpf_copy_strip(H, src, lds, bufs[0], XPF_AHEAD_REGION);
        for (size_t t = 0; t < n; t++) {
            const size_t i = t % n_i * H, jt = t / n_i * SW;
            const unsigned char *next = t + 1 < n ? src + (t + 1) % n_i * H * lds + (t + 1) / n_i * SW * es : NULL;
            unsigned char *cur = bufs[t & 1], *nbuf = bufs[(t + 1) & 1];
            XPF_UNROLL
            for (size_t b = 0; b < XPF_LANES; b++) {
                if (next)
                    xpf_copy_strip(Q, next + b * Q * lds, lds, nbuf + b * Q * XPF_W, XPF_AHEAD_REGION);
                xpf_block(es, cur + b * 16, XPF_W, dst + (jt + b * 16 / es) * ldd + i * es, ldd, nt);
            }
        }
        j = n ? nj_v / SW * SW : 0;
    }
#if XPF_W == 64
    if (es == 4 && lds % XPF_ALIAS_PITCH == 0)
        for (; j + 16 <= nj_v; j += 16)
            for (size_t i = 0; i < ni_v; i += H)
                xpf_block_lines4(src + i * lds + j * es, lds, dst + j * ldd + i * es, ldd, nt, ahead);
#endif
    for (; j < nj_v; j += R) {
        size_t i = 0;
#if XPF_W < XPF_LINE
        if (es == 2)
            for (; i + 2 * H <= ni_v; i += 2 * H) {
                xpf_prefetch_ahead(es, src + i * lds + j * es, lds, j * es, ahead);
                xpf_prefetch_ahead(es, src + (i + H) * lds + j * es, lds, j * es, ahead);
                xpf_block_pair(es, src + i * lds + j * es, lds, dst + j * ldd + i * es, ldd, nt);
            }
#endif
        for (; i < ni_v; i += H) {
            xpf_prefetch_ahead(es, src + i * lds + j * es, lds, j * es, ahead);
            xpf_block(es, src + i * lds + j * es, lds, dst + j * ldd + i * es, ldd, nt);
        }
    }
    /* Rows short of a block go to the next narrower set, which has shorter blocks (AVX2: half as many). */
    xp_fast_rim(es, src, lds, ni, nj, ni_v, nj_v, dst, ldd, XPF_NARROWER(nt, xp_elem_index(es)));
}

/* One function per element size and store kind, so that every loop above unrolls into registers. */
#define XPF_REGION_(N, T)                                                                                              \
    static XPF_TARGET void xpf_region_##N(const unsigned char *src, size_t lds, size_t ni, size_t nj,                  \
                                          unsigned char *dst, size_t ldd)                                              \
    {                                                                                                                  \
        xpf_region(N, src, lds, ni, nj, dst, ldd, 0, 0);                                                               \
    }                                                                                                                  \
    static XPF_TARGET void xpf_region_nt_##N(const unsigned char *src, size_t lds, size_t ni, size_t nj,               \
                                             unsigned char *dst, size_t ldd)                                           \
    {                                                                                                                  \
        xpf_region(N, src, lds, ni, nj, dst, ldd, 1, 0);                                                               \
    }                                                                                                                  \
    static XPF_TARGET void xpf_region_dense_##N(const unsigned char *src, size_t lds, size_t ni, size_t nj,            \
                                                unsigned char *dst, size_t ldd)                                        \
    {                                                                                                                  \
        xpf_region(N, src, lds, ni, nj, dst, ldd, 1, 1);                                                               \
    }
XP_FOR_EACH_ELEM(XPF_REGION_)

/* The block of rows from place r of run k (left rows of it from there) at source column byte jb, transposed into v: a
 * block that straddles two runs switches rows at the boundary (runs are at least a block tall). */
XPF_INLINE void xpf_runs_block(size_t es, const unsigned char *const *runs, size_t k, size_t r, size_t left, size_t lds,
                               size_t jb, xpf_vec v[16])
{
    const unsigned char *s = runs[k] + r * lds + jb;
    if (left >= XPF_LANES * (16 / es))
        xpf_transpose_block(es, s, lds, v);
    else
        xpf_transpose_split(es, s, lds, left, runs[k + 1] + jb, v);
}

/* The place of the next block of rows: run k, row r of it, left rows of it from there. */
XPF_INLINE void xpf_runs_step(size_t H, size_t run, size_t *k, size_t *r, size_t *left)
{
    if (*left > H) {
        *r += H;
        *left -= H;
    } else {
        ++*k;
        *r = H - *left;
        *left = run - *r;
    }
}

/* A region whose source rows come in runs at their own addresses (a permutation's gathered rows, xp_fast_runs_fn), read
 * where they lie instead of copied into a buffer of one pitch first. Whole blocks only; columns outer, as in xpf_region,
 * so that each destination row's lines fill while in one write-combining buffer. */
XPF_INLINE void xpf_region_runs(size_t es, const unsigned char *const *runs, size_t head, size_t run, size_t lds,
                                size_t ni, size_t nj, unsigned char *dst, size_t ldd, int nt)
{
    const size_t R = 16 / es, H = XPF_LANES * R;
    xpf_vec v[16];
    for (size_t j = 0; j < nj; j += R)
        for (size_t i = 0, k = 0, r = 0, left = head; i < ni; i += H) {
            xpf_runs_block(es, runs, k, r, left, lds, j * es, v);
            xpf_runs_step(H, run, &k, &r, &left);
            xpf_store_rows(es, v, dst + j * ldd + i * es, ldd, nt);
        }
}

#define XPF_RUNS_(N, T)                                                                                                \
    static XPF_TARGET void xpf_runs_##N(const unsigned char *const *runs, size_t head, size_t run, size_t lds,         \
                                        size_t ni, size_t nj, unsigned char *dst, size_t ldd)                          \
    {                                                                                                                  \
        xpf_region_runs(N, runs, head, run, lds, ni, nj, dst, ldd, 0);                                                 \
    }                                                                                                                  \
    static XPF_TARGET void xpf_runs_nt_##N(const unsigned char *const *runs, size_t head, size_t run, size_t lds,      \
                                           size_t ni, size_t nj, unsigned char *dst, size_t ldd)                       \
    {                                                                                                                  \
        xpf_region_runs(N, runs, head, run, lds, ni, nj, dst, ldd, 1);                                                 \
    }
XP_FOR_EACH_ELEM(XPF_RUNS_)

/* A staged member's block (xp_fast_member_fn): R = 16 / es rows of 16 bytes (row q at row[q] + jb) transposed in
 * 128-bit registers into R rows of 16 bytes at dst, ldb bytes apart (on 16 bytes). */
XPF_INLINE void xpf_member_block(size_t es, const unsigned char *const *row, size_t jb, unsigned char *dst, size_t ldb)
{
    if (es == 4) {
        __m128 r0 = _mm_loadu_ps((const float *)(row[0] + jb)), r1 = _mm_loadu_ps((const float *)(row[1] + jb));
        __m128 r2 = _mm_loadu_ps((const float *)(row[2] + jb)), r3 = _mm_loadu_ps((const float *)(row[3] + jb));
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        _mm_store_ps((float *)dst, r0);
        _mm_store_ps((float *)(dst + ldb), r1);
        _mm_store_ps((float *)(dst + 2 * ldb), r2);
        _mm_store_ps((float *)(dst + 3 * ldb), r3);
    } else if (es == 8) {
        __m128d r0 = _mm_loadu_pd((const double *)(row[0] + jb)), r1 = _mm_loadu_pd((const double *)(row[1] + jb));
        _mm_store_pd((double *)dst, _mm_unpacklo_pd(r0, r1));
        _mm_store_pd((double *)(dst + ldb), _mm_unpackhi_pd(r0, r1));
    } else {
        _mm_store_si128((__m128i *)dst, _mm_loadu_si128((const __m128i *)(row[0] + jb)));
    }
}

/* One line of the side work (xp_fast_member_fn): the next ask, and the next line of the last member streamed out. */
XPF_INLINE void xpf_member_side(const xp_fast_member_job *J, uintptr_t *ask, const unsigned char **from,
                                unsigned char **to, size_t *left, size_t *in_row)
{
    if (*ask) {
        __builtin_prefetch((const void *)*ask, 0, 3);
        *ask += XPF_LINE;
    }
    if (*left) {
        xpf_copy_line(*to, *from, 1);
        *from += XPF_LINE, *to += XPF_LINE;
        --*left;
        if (++*in_row == J->row_lines) { /* on to the next row */
            *in_row = 0;
            *from += J->ldb - J->row_lines * XPF_LINE;
            *to += J->ldd - J->row_lines * XPF_LINE;
        }
    }
}

/* A staged member (xp_fast_member_fn): rows outer, R at a time, each row of blocks reading its R rows front to back;
 * every 64 bytes read, one ask and one line out. The core's prefetchers do not run far enough ahead of a transpose's
 * loads for its reads and its arithmetic to overlap; asks and stores in bursts lose part of the gain, and index
 * arithmetic in the loop more of it ("permute: staged members of row runs"). */
XPF_INLINE void xpf_member(size_t es, const xp_fast_member_job *J)
{
    const size_t R = 16 / es, rows = J->n * J->run;
    const unsigned char *from = J->from;
    unsigned char *to = J->to;
    size_t left = J->lines, in_row = 0, credit = 0;
    for (size_t i = 0, k = 0, r = 0; i < rows; i += R) {
        const size_t ka = k + J->ahead;
        uintptr_t ask = ka < J->n                  ? (uintptr_t)J->runs[ka] + r * J->lds
                        : J->next && ka < 2 * J->n ? (uintptr_t)J->runs[ka - J->n] + J->next + r * J->lds
                                                   : 0;
        const unsigned char *row[4];
        for (size_t q = 0; q < R; q++) {
            row[q] = J->runs[k] + r * J->lds;
            if (++r == J->run)
                k++, r = 0;
        }
        unsigned char *out = J->buf + i * es;
        for (size_t j = 0; j < J->nj; j += R, out += R * J->ldb) {
            if ((credit += 16 * R) >= XPF_LINE) {
                credit -= XPF_LINE;
                xpf_member_side(J, &ask, &from, &to, &left, &in_row);
            }
            xpf_member_block(es, row, j * es, out, J->ldb);
        }
    }
    for (uintptr_t none = 0; left;)
        xpf_member_side(J, &none, &from, &to, &left, &in_row);
}

#define XPF_MEMBER_(N)                                                                                                 \
    static XPF_TARGET void xpf_member_##N(const xp_fast_member_job *job) { xpf_member(N, job); }
XPF_MEMBER_(4)
XPF_MEMBER_(8)
XPF_MEMBER_(16)

#ifdef XPF_MERGE
/* The phase of each of the R destination rows from dst (pitch ldd) in its line, and prev cleared. */
XPF_INLINE void xpf_lines_start(size_t es, unsigned char *dst, size_t ldd, unsigned ph[16], xpf_vec prev[16])
{
    XPF_UNROLL
    for (size_t m = 0; m < 16 / es; m++) {
        ph[m] = (unsigned)((uintptr_t)(dst + m * ldd) & (XPF_W - 1));
        prev[m] = XPF_P(setzero_si512)();
    }
}

/* Block k's lines of the R destination rows from dst, each joined from the block before (prev) and this one (cur);
 * the first block of the matrix (head) stores only its own bytes. cur becomes prev. */
XPF_INLINE void xpf_lines_store(size_t es, const xpf_vec cur[16], xpf_vec prev[16], const unsigned ph[16],
                                unsigned char *dst, size_t ldd, size_t k, int head, int nt)
{
    XPF_UNROLL
    for (size_t m = 0; m < 16 / es; m++) {
        unsigned char *p = dst + m * ldd + k * XPF_W - ph[m];
        xpf_vec line = XPF_MERGE(prev[m], cur[m], ph[m]);
        if (head)
            xpf_store_bytes(p, line, ph[m], XPF_W);
        else if (nt)
            xpf_stream(p, line);
        else
            xpf_store(p, line);
        prev[m] = cur[m];
    }
}

/* The bytes of the last block (prev, the K-th) that start the line the next tile would have written. */
XPF_INLINE void xpf_lines_tail(size_t es, const xpf_vec prev[16], const unsigned ph[16], unsigned char *dst, size_t ldd,
                               size_t K)
{
    XPF_UNROLL
    for (size_t m = 0; m < 16 / es; m++)
        if (ph[m])
            xpf_store_bytes(dst + m * ldd + K * XPF_W - ph[m], XPF_MERGE(prev[m], prev[m], ph[m]), 0, ph[m]);
}

/* 1-byte tiles of joined lines, walked in bands: 64 source rows at a time across the whole tile (2 KiB of each
 * row, "cpu-fast: 1-byte joined lines in bands"), the registers of each block column's last block kept in `band`
 * (1 KiB a block column) for the band below. A column walk down the tile keeps its 16 registers of the block above in
 * registers, but reads every row of the tile 16 bytes at a time, one pass per column, and ran at two thirds of
 * cpu-stream; bands read each row's lines whole and in order within a few blocks, as the region path's tiles do.
 * Block columns lie 16 * ldd bytes apart, a multiple of the line (ldd is one of 4): all share the first one's phases
 * and merge indices. */
XPF_INLINE void xpf_lines_bands(const unsigned char *src, size_t lds, size_t K, size_t nj, unsigned char *dst,
                                size_t ldd, int first, int last, int nt, unsigned char *band)
{
    const size_t H = XPF_LANES * 16, nb = nj / 16;
    xpf_vec(*prev)[16] = (xpf_vec(*)[16])(void *)band;
    _Alignas(64) xpf_vec idx[16];
    xpf_vec cur[16];
    unsigned ph[16];
    XPF_UNROLL
    for (size_t m = 0; m < 16; m++) {
        ph[m] = (unsigned)((uintptr_t)(dst + m * ldd) & (XPF_W - 1));
        idx[m] = xpf_merge_index(ph[m]);
    }
    /* The indices escape: kept in memory, not in registers the blocks need. */
    __asm__("" : : "r"(idx) : "memory");
    for (size_t b = 0; b < nb; b++) {
        if (first) /* the first block stores its own bytes only (xpf_store_bytes) */
            for (size_t m = 0; m < 16; m++)
                cur[m] = XPF_P(setzero_si512)();
        else
            xpf_transpose_block(1, src - H * lds + b * 16, lds, cur);
        XPF_UNROLL
        for (size_t m = 0; m < 16; m++)
            prev[b][m] = cur[m];
    }
    for (size_t k = 0; k < K; k++)
        for (size_t b = 0; b < nb; b++) {
            const unsigned char *s = src + k * H * lds + b * 16;
            xpf_prefetch_ahead(1, s, lds, b * 16, XPF_AHEAD_LINES);
            xpf_transpose_block(1, s, lds, cur);
            XPF_UNROLL
            for (size_t m = 0; m < 16; m++) {
                unsigned char *p = dst + (b * 16 + m) * ldd + k * XPF_W - ph[m];
                xpf_vec line = xpf_merge_at(prev[b][m], cur[m], idx[m]);
                if (first && k == 0)
                    xpf_store_bytes(p, line, ph[m], XPF_W);
                else if (nt)
                    xpf_stream(p, line);
                else
                    xpf_store(p, line);
                prev[b][m] = cur[m];
            }
        }
    if (last)
        for (size_t b = 0; b < nb; b++) {
            XPF_UNROLL
            for (size_t m = 0; m < 16; m++)
                if (ph[m])
                    xpf_store_bytes(dst + (b * 16 + m) * ldd + K * XPF_W - ph[m],
                                    xpf_merge_at(prev[b][m], prev[b][m], idx[m]), 0, ph[m]);
        }
}

/* A tile whose destination rows start 4-byte aligned at any offset into a line. Register m of block k holds bytes [64k,
 * 64k + 64) of destination row m, counted from the tile's first row; the aligned line that ends among them is the last
 * ph bytes of block k - 1 followed by the first 64 - ph of block k (ph: the row's offset in its line), which one
 * two-source permute joins. So every line is written whole, once, straight from the registers, with no staging pass.
 * The line straddling the tile's top belongs to this tile, which therefore transposes the block above first (the
 * previous tile's rows); the one straddling its bottom belongs to the next tile. At the matrix's first and last rows,
 * masked stores; rows short of a block go to the narrower set with plain stores ("cpu-fast: joined lines"). 1- and
 * 2-byte strips on source pitches of whole 4 KiB pages go through a buffer first, as in xpf_region (XPF_ALIAS_PITCH
 * says why), with four blocks of carried-over registers a strip ("cpu-fast: overlapped strips"); the other 1-byte
 * columns in bands (xpf_lines_bands). */
XPF_INLINE void xpf_lines(size_t es, const unsigned char *src, size_t lds, size_t ni, size_t nj, unsigned char *dst,
                          size_t ldd, int first, int last, int nt, unsigned char *band)
{
    const size_t R = 16 / es, H = XPF_LANES * R, K = ni / H, nj_v = nj - nj % R;
    size_t j = 0;
    /* Strips through a buffer (XPF_ALIAS_PITCH) in the tiles between the matrix's first and last only: in those two
     * they lost ("cpu-fast: strips on 4 KiB pitches"). */
    if (xpf_strips_pay(es, H, lds) && !first && !last) {
        enum { B = XPF_W / 16 };                 /* blocks across a strip */
        const size_t Q = H / B, SW = XPF_W / es; /* rows copied under each block; columns a strip */
        _Alignas(64) unsigned char bufs[2][XPF_LANES * 16 * XPF_W];
        for (; j + SW <= nj_v; j += SW) {
            xpf_vec prev[B][16], cur[16];
            unsigned ph[B][16];
            XPF_UNROLL
            for (size_t b = 0; b < B; b++)
                xpf_lines_start(es, dst + (j + R * b) * ldd, ldd, ph[b], prev[b]);
            /* The block above (never the matrix's first tile), then strips k = 0 .. K - 1, each copied a quarter at
             * a time under the blocks of the strip before it, as in xpf_region. */
            xpf_copy_strip(H, src - H * lds + j * es, lds, bufs[1], 0);
            for (size_t k = 0; k <= K; k++) {
                const unsigned char *next = k < K ? src + k * H * lds + j * es : NULL; /* strip k, under strip k - 1 */
                unsigned char *cur_buf = bufs[(k + 1) & 1], *nbuf = bufs[k & 1];
                XPF_UNROLL
                for (size_t b = 0; b < B; b++) {
                    if (next)
                        xpf_copy_strip(Q, next + b * Q * lds, lds, nbuf + b * Q * XPF_W, XPF_AHEAD_LINES);
                    if (k == 0) {
                        xpf_transpose_block(es, cur_buf + 16 * b, XPF_W, prev[b]);
                    } else {
                        xpf_transpose_block(es, cur_buf + 16 * b, XPF_W, cur);
                        xpf_lines_store(es, cur, prev[b], ph[b], dst + (j + R * b) * ldd, ldd, k - 1, 0, nt);
                    }
                }
            }
        }
    }
    if (es == 1 && j < nj_v && (K > 0 || !first)) {
        xpf_lines_bands(src + j, lds, K, nj_v - j, dst + j * ldd, ldd, first, last, nt, band);
        j = nj_v;
    }
    for (; j < nj_v && (K > 0 || !first); j += R) {
        xpf_vec prev[16], cur[16];
        unsigned ph[16];
        xpf_lines_start(es, dst + j * ldd, ldd, ph, prev);
        if (!first)
            xpf_transpose_block(es, src - H * lds + j * es, lds, prev);
        for (size_t k = 0; k < K; k++) {
            xpf_prefetch_ahead(es, src + k * H * lds + j * es, lds, j * es, XPF_AHEAD_LINES);
            xpf_transpose_block(es, src + k * H * lds + j * es, lds, cur);
            xpf_lines_store(es, cur, prev, ph, dst + j * ldd, ldd, k, first && k == 0, nt);
        }
        if (last)
            xpf_lines_tail(es, prev, ph, dst + j * ldd, ldd, K);
    }
    xp_fast_rim(es, src, lds, ni, nj, K * H, nj_v, dst, ldd, XPF_NARROWER(0, xp_elem_index(es)));
}

#define XPF_LINES_(N, T)                                                                                               \
    static XPF_TARGET void xpf_lines_##N(const unsigned char *src, size_t lds, size_t ni, size_t nj,                   \
                                         unsigned char *dst, size_t ldd, int first, int last, unsigned char *band)     \
    {                                                                                                                  \
        xpf_lines(N, src, lds, ni, nj, dst, ldd, first, last, 0, band);                                                \
    }                                                                                                                  \
    static XPF_TARGET void xpf_lines_nt_##N(const unsigned char *src, size_t lds, size_t ni, size_t nj,                \
                                            unsigned char *dst, size_t ldd, int first, int last, unsigned char *band)  \
    {                                                                                                                  \
        xpf_lines(N, src, lds, ni, nj, dst, ldd, first, last, 1, band);                                                \
    }
XP_FOR_EACH_ELEM(XPF_LINES_)
#define XPF_LINES_TABLE                                                                                                \
    {                                                                                                                  \
        {xpf_lines_1, xpf_lines_2, xpf_lines_4, xpf_lines_8, xpf_lines_16},                                            \
        {                                                                                                              \
            xpf_lines_nt_1, xpf_lines_nt_2, xpf_lines_nt_4, xpf_lines_nt_8, xpf_lines_nt_16                            \
        }                                                                                                              \
    }
#else
#define XPF_LINES_TABLE                                                                                                \
    {                                                                                                                  \
        {                                                                                                              \
            NULL                                                                                                       \
        }                                                                                                              \
    }
#endif

/* Lines of dst are written whole, from unaligned loads of the staged row. */
XPF_INLINE void xpf_row(unsigned char *dst, const unsigned char *src, size_t n, int nt)
{
    size_t head = (size_t)(-(uintptr_t)dst & 63), i;
    if (head > n)
        head = n;
    /* A masked store with an empty mask still claims its cache line: skip it rather than fetch the line. */
    if (head)
        xpf_copy_short(dst, src, head);
    for (i = head; i + 64 <= n; i += 64)
        xpf_copy_line(dst + i, src + i, nt);
    if (i < n)
        xpf_copy_short(dst + i, src + i, n - i);
}

static XPF_TARGET void xpf_row_plain(unsigned char *dst, const unsigned char *src, size_t n)
{
    xpf_row(dst, src, n, 0);
}
static XPF_TARGET void xpf_row_nt(unsigned char *dst, const unsigned char *src, size_t n) { xpf_row(dst, src, n, 1); }

const xp_fast_isa XPF_ISA = {
    XPF_NAME,
    XPF_W,
    {{xpf_region_1, xpf_region_2, xpf_region_4, xpf_region_8, xpf_region_16},
     {xpf_region_nt_1, xpf_region_nt_2, xpf_region_nt_4, xpf_region_nt_8, xpf_region_nt_16}},
    {xpf_region_dense_1, xpf_region_dense_2, xpf_region_dense_4, xpf_region_dense_8, xpf_region_dense_16},
    {xpf_row_plain, xpf_row_nt},
    XPF_LINES_TABLE,
    {{xpf_runs_1, xpf_runs_2, xpf_runs_4, xpf_runs_8, xpf_runs_16},
     {xpf_runs_nt_1, xpf_runs_nt_2, xpf_runs_nt_4, xpf_runs_nt_8, xpf_runs_nt_16}},
    {NULL, NULL, xpf_member_4, xpf_member_8, xpf_member_16},
    XPF_BAND};
