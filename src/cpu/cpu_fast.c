/* cpu_fast.c: cpu-fast, the production CPU transpose: L1-sized tiles over OpenMP threads, SIMD kernels picked
 * at run time, and whole destination cache lines written with non-temporal stores from 256 KB on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_fast.h"
#if XP_FAST_X86
#include <immintrin.h>
#endif

/* Quoted names are entries of docs/tuning.md, which give the measurements behind each rule. */
#define XPF_TILE_COLS_BYTES 1024      /* a tile's width in source bytes */
#define XPF_NT_BYTES (256 * 1024)     /* non-temporal stores from here on ("cpu-fast: non-temporal stores") */
#define XPF_LINES_TILE_BYTES 512      /* a joined-lines tile's height in destination bytes ("cpu-fast: tile heights") */
#define XPF_BAND_COLS 2048            /* a 1-byte joined-lines tile's width: 128 KiB of band registers (band_bytes) */
#define XPF_OPEN_ROWS 4               /* rows of half-written lines a narrow block may stream ("cpu-fast: staging") */
#define XPF_BUF_BYTES (32 * 1024)     /* room for 64/es staged rows of at most 256 + 64 + 63 bytes */
#define XPF_RUN_BYTES (64 * 1024)     /* the least a run of tiles moves ("cpu-fast: tile runs") */
#define XPF_GROUP_BYTES 16384         /* a copy tile of short members moves at least this much */
#define XPF_GROUP_AHEAD 16            /* runs a grouped copy prefetches ahead (run_group) */
#define XPF_STREAM_AHEAD 4096         /* bytes a grouped copy of runs back to back prefetches ahead (run_group) */
#define XPF_GATHER_COLS_BYTES 256     /* a gathered tile's width in source bytes (gather) */
#define XPF_ORDER_RUN 64              /* members in source order, or dense tiles, a run takes at least (run_length) */
#define XPF_PAIR_BYTES 32             /* paired members take turns every this many source bytes of a row (run_pair) */
#define XPF_MAX_RUNS 64               /* the most runs of rows a tile read in place spans (plan.runs) */
#define XPF_MEMBER_BYTES (128u << 10) /* the largest member staged whole (plan.stage_member): two, half of an L2 */
#define XPF_MEMBER_AHEAD 8192         /* bytes a staged member's reads ask for ahead (run_member) */
#define XPF_CHUNK_BYTES 256           /* a staged chunk's rows, in destination bytes (run_chunk) */
#define XPF_BAND_BYTES (XPF_BAND_LINES * XPF_LINE) /* a band's rows, in destination bytes (run_bands) */
#define XPF_BAND_TILE_BYTES 1024 /* a band tile's rows, in destination bytes: the bands one thread takes in turn */
#define XPF_BAND_TILE_COLS 4096  /* the most columns of a band tile: (256 + 64) x 4096 bytes of pieces a thread */
#define XPF_BAND_PAGE 4096       /* pitches of whole pages: wider elements take bands there too */
#define XPF_BAND_SET_PITCH 65536 /* source pitches that put 16 rows in one set of an 8-way 512 KiB L2 (Zen 3) */
#define XPF_BAND_MIN_ROW 1024    /* the shortest source rows bands take, in bytes */
/* Destination rows past a line but under this many bytes, not whole lines, are wide too ("cpu-fast: wide matrices") */
#define XPF_WIDE_BYTES 256

/* The smallest call bands take, in bytes (1024^2 bytes ran slower in them, 2048^2 faster). */
#define XPF_BAND_MIN_CALL (2u << 20)

/* The widest instruction set the CPU has (docs/tuning.md, "cpu-fast: instruction set");
 * XPOSE_CPU_ISA=scalar|avx2|avx512 caps it (to compare them, or to test every path). */
const xp_fast_isa *xp_fast_pick_isa(void)
{
    int level = xp_cpu_isa_cap();
#if XP_FAST_X86
    __builtin_cpu_init();
    if (level >= 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
        return &xp_fast_avx512;
    if (level >= 1 && __builtin_cpu_supports("avx2"))
        return &xp_fast_avx2;
#else
    (void)level;
#endif
    return &xp_fast_scalar;
}

/* The height of the tiles that store from registers (the region and joined-lines paths, short_tile_rows): short on
 * AMD cores, middle on others, where each measured faster than the other and than tall ones; the lab rows
 * cpu-fast/short, /mid and /long pin one for the A/B on any machine; the scalar kernel has no blocks to size
 * (docs/tuning.md, "cpu-fast: short tiles"). */
static int tile_heights(const xp_fast_isa *isa, int tiles)
{
    if (!isa->width)
        return XPF_TILES_LONG;
    if (tiles != XPF_TILES_AUTO)
        return tiles;
#if XP_FAST_X86
    __builtin_cpu_init();
    return __builtin_cpu_is("amd") ? XPF_TILES_SHORT : XPF_TILES_MID;
#else
    return XPF_TILES_MID;
#endif
}

/* Short tiles: 16 source rows of 1- to 4-byte elements, 8 of 8- and 16-byte ones (middle ones: 32 and 16), and never
 * fewer than one SIMD block's rows nor than a destination line holds (the region path starts every tile but the first
 * on a line, and the first tile's staging assumes a tile at least a line tall; joined-lines tiles are whole lines
 * tall). */
static size_t short_tile_rows(size_t es, size_t block_rows, int heights)
{
    size_t rows = (es >= 8 ? 8 : 16) * (heights == XPF_TILES_MID ? 2 : 1);
    if (rows < block_rows)
        rows = block_rows;
    return rows * es < XPF_LINE ? XPF_LINE / es : rows;
}

/* Everything a thread needs for tile t of the batch; strides in bytes, tile sizes in elements. */
typedef struct plan {
    const unsigned char *src;
    unsigned char *dst;
    size_t es, rows, cols, lds, ldd, ss, sd;
    const xp_fast_grid *grid; /* members on an N-d grid (a permutation's outer dimensions), else b * ss, b * sd */
    size_t sd_lines;          /* what decides whether members share a line phase: sd, or every grid stride ORed */
    size_t ti, tj, lag;       /* tile rows start at k * ti - lag, on a destination line where rows share a phase */
    size_t tiles_i, tiles_j;
    size_t batch, group; /* members; of a copy of short members, how many one tile copies (run_group), else 1 */
    int staged;
    int copy;          /* xp_shape_is_copy: every tile is a copy */
    size_t block_rows; /* rows of one SIMD block */
    xp_fast_region_fn region;
    xp_fast_region_fn region_plain; /* for the staging buffer */
    xp_fast_row_fn row;
    xp_fast_lines_fn lines;    /* instead of staging, where rows start on 4-byte boundaries */
    size_t band_bytes;         /* 1-byte lines: each thread's room for the band registers (xp_fast_lines_fn), else 0 */
    xp_fast_narrow_fn narrow;  /* rows of 2-8 elements: split through the staging buffer (run_narrow) */
    int narrow_pad;            /* or rows under a line split by the region kernel, padded to whole blocks */
    int wide;                  /* 2 to a line's worth of rows, the destination dense: interleaved there (run_wide) */
    xp_fast_wide_fn wide_fn;   /* through these loops, or NULL: the plain region kernel */
    xp_fast_band_fn wide_band; /* or, rows short of a block, through sub-bands (AVX2), else NULL */
    size_t gather_rows;        /* gathered rows (grid->rows): the most rows a tile copies into its buffer, else 0 */
    int gather_runs;           /* gathered whole rows that run on in the source: copied a run at a time (gather) */
    int dense;            /* region tiles of whole source rows back to back: region_dense, the next tile prefetched */
    int stream;           /* grouped copies of members back to back in the source: prefetched as one stream */
    int stage_runs;       /* grouped copies of part lines back to back in the destination: through the buffer */
    xp_fast_runs_fn runs; /* gathered row runs read where they lie, no gathering copy (plan_tiles), else NULL */
    size_t stage_member;  /* members of row runs staged whole (run_member): the buffer's pitch in bytes, else 0 */
    int stage_chunks;     /* or chunks of a dense tile's rows (run_chunk), the buffer's pitch also stage_member */
    xp_fast_member_fn member; /* and their kernel */
    xp_fast_band_fn band;     /* bands (run_bands), else NULL */
    xp_fast_band_lines_fn band_lines;
    int band_back; /* bands: some destination row's line straddles a tile's first row (run_bands) */
} plan;

/* Transposes rows [i0, i0 + ni) of the tile into buf, then copies them out in whole destination lines.
 * A line that straddles two tiles belongs to the one holding its last byte, which therefore also transposes
 * the line's worth of rows before i0 (the previous tile's, still in cache); rows are also added after the
 * tile, up to whole SIMD blocks, so that only the matrix's last rows go through the scalar rim. Every line
 * is then written once, in full, with one store, whatever the alignment of dst and ldd, and no two
 * threads ever share a line; only the lines at either end of a row take masked stores. */
static void run_staged(const plan *p, const unsigned char *s, unsigned char *d, size_t i0, size_t ni, size_t j0,
                       size_t nj, unsigned char *buf)
{
    const xp_fast_grid *cols = p->grid ? p->grid->cols : NULL; /* scattered destination rows, or NULL */
    xp_fast_grid_pos pos = {{0}, 0, 0};
    size_t es = p->es, line = XPF_LINE / es, back = i0 < line ? i0 : line;
    /* Every destination row of the tile starting on a line (whole-line pitch, d on a line): no line straddles i0, so
     * the rows above it are not needed ("cpu-fast: staged tiles on whole lines"). */
    if (!cols && (p->ldd | (uintptr_t)d) % XPF_LINE == 0)
        back = 0;
    size_t c0 = i0 - back, h = p->block_rows, nc = (ni + back + h - 1) / h * h;
    if (c0 + nc > p->rows)
        nc = p->rows - c0;
    /* Whole source lines per chunk of columns, so that no SIMD block is cut and no column falls to the rim. */
    size_t stride = (nc * es + XPF_LINE - 1) & ~(size_t)(XPF_LINE - 1), chunk = XPF_BUF_BYTES / stride / line * line;
    int last = i0 + ni == p->rows;
    for (size_t j = 0; j < nj; j += chunk) {
        size_t nj_c = nj - j < chunk ? nj - j : chunk;
        p->region_plain(s - back * p->lds + j * es, p->lds, nc, nj_c, buf, stride);
        if (cols)
            xp_fast_grid_seek(cols, j0 + j, &pos);
        for (size_t k = 0; k < nj_c; k++) {
            /* element 0 of this destination row: d is the tile's, or with scattered rows the member's at i0 */
            unsigned char *row = cols ? d + pos.od - i0 * es : d + (j + k) * p->ldd - i0 * es;
            if (cols)
                xp_fast_grid_next(cols, &pos);
            uintptr_t first = (uintptr_t)(row + i0 * es) & ~(uintptr_t)(XPF_LINE - 1);
            uintptr_t end = (uintptr_t)(row + (i0 + ni) * es);
            uintptr_t a = first > (uintptr_t)row ? first : (uintptr_t)row;
            uintptr_t b = last ? end : end & ~(uintptr_t)(XPF_LINE - 1);
            if (b > a)
                p->row((unsigned char *)a, buf + k * stride + (a - (uintptr_t)(row + c0 * es)), b - a);
        }
    }
}

/* Rows [0, n) of a padded narrow chunk at s (rows p->lds bytes apart, `left` of the member's rows from s on) into
 * buf's cpad rows of `rows` elements: each row's block of cpad elements runs on into the next row, which the region
 * kernel transposes too (buf's rows from cols on are dropped); the member's last rows, whose blocks would read past
 * it, take the same kernel over their own cols elements only (its rim). */
static void narrow_pad(const plan *p, const unsigned char *s, size_t n, size_t left, size_t cpad, size_t rows,
                       unsigned char *buf)
{
    const size_t es = p->es, reach = cpad * es, bytes = left * p->lds;
    size_t safe = bytes < reach ? 0 : (bytes - reach) / p->lds + 1;
    safe = safe < n ? safe : n;
    p->region_plain(s, p->lds, safe, cpad, buf, rows * es);
    p->region_plain(s + safe * p->lds, p->lds, n - safe, p->cols, buf + safe * es, rows * es);
}

/* A tile of a narrow matrix: chunks of XPN_ROWS rows split into their destination rows in buf, which the row kernel
 * writes out in whole lines (streamed where the call is large), as staged tiles do. Padded chunks take as many rows
 * as the buffer holds of their cpad rows, in whole blocks. */
static void run_narrow(const plan *p, const unsigned char *s, unsigned char *d, size_t ni, size_t left,
                       unsigned char *buf)
{
    const size_t es = p->es, R = 16 / es, cpad = (p->cols + R - 1) / R * R;
    size_t rows = XPN_ROWS(es);
    if (p->narrow_pad) {
        const size_t fit = XPF_BUF_BYTES / (cpad * es) / p->block_rows * p->block_rows;
        rows = fit < rows ? fit : rows;
    }
    for (size_t k = 0; k < ni; k += rows) {
        const size_t n = ni - k < rows ? ni - k : rows;
        if (p->narrow_pad)
            narrow_pad(p, s + k * p->lds, n, left - k, cpad, rows, buf);
        else
            p->narrow(s + k * p->lds, n, buf);
        for (size_t c = 0; c < p->cols; c++)
            p->row(d + c * p->ldd + k * es, buf + c * rows * es, n * es);
    }
}

/* n columns from s of a wide matrix's C = p->rows rows into buf's n destination rows of C elements, back to back,
 * through sub-bands: 16 bytes of every destination row a sub-band, in pieces (AVX2's band kernel, whose rows past
 * the matrix's repeat its last), then each row's pieces copied 16 bytes at a time in order, each copy's bytes past
 * the row overwritten by the next row's; columns past the last band block through the region kernel. buf: n C
 * elements and 16 bytes more; pieces: 16 n bytes a sub-band. */
static void wide_band(const plan *p, const unsigned char *s, size_t n, unsigned char *buf, unsigned char *pieces)
{
    const size_t es = p->es, R = 16 / es, C = p->rows, row = C * es, nv = n - n % (2 * R);
    for (size_t q = 0; q * R < C; q++)
        p->wide_band(s + q * R * p->lds, p->lds, C - q * R < R ? C - q * R : R, nv, pieces + q * nv * 16);
    for (size_t j = 0; j < nv; j++)
        for (size_t q = 0; q * R < C; q++)
            memcpy(buf + j * row + q * 16, pieces + (q * nv + j) * 16, 16);
    p->region_plain(s + nv * es, p->lds, C, n - nv, buf + nv * row, row);
}

/* A tile of a wide matrix (all its rows, nj columns): chunks of columns interleaved in buf into whole destination
 * rows, which the row kernel writes out as one run (streamed where the call is large). A chunk is the loops' own
 * (XPN_ROWS), or what fills the buffer with the rows rounded up to lines. */
static void run_wide(const plan *p, const unsigned char *s, unsigned char *d, size_t nj, unsigned char *buf)
{
    /* sub-bands: half the buffer for the pieces (16 bytes a column for each 16 bytes of a row), half for the rows */
    const size_t half = XPF_BUF_BYTES / 2, subs = (p->rows * p->es + 15) / 16;
    const size_t rows_fit = (half - 16) / (p->rows * p->es), pieces_fit = half / (subs * 16);
    const size_t cols = p->wide_fn     ? XPN_ROWS(p->es)
                        : p->wide_band ? (rows_fit < pieces_fit ? rows_fit : pieces_fit) / 32 * 32
                                       : XPF_BUF_BYTES / ((p->rows * p->es + XPF_LINE - 1) / XPF_LINE * XPF_LINE);
    for (size_t k = 0; k < nj; k += cols) {
        const size_t n = nj - k < cols ? nj - k : cols;
        if (p->wide_band)
            wide_band(p, s + k * p->es, n, buf, buf + half);
        else if (p->wide_fn)
            p->wide_fn(s + k * p->es, p->lds, n, buf);
        else
            p->region_plain(s + k * p->es, p->lds, p->rows, n, buf, p->ldd);
        p->row(d + k * p->ldd, buf, n * p->ldd);
    }
}

/* The ring of a band tile's pieces: a slot (16 bytes of each destination row) for each sub-band of a band and of the
 * line's worth of rows above it. */
#define XPF_BAND_SLOTS ((XPF_BAND_BYTES + XPF_LINE) / 16)

/* The bytes of one slot of pieces for nj columns, and 256 more: slots of 64 KiB (4096 columns) would put the four
 * pieces of a destination line in one L1 and L2 set, with the other slots' lines. */
static size_t band_slot(size_t nj) { return nj * 16 + 4 * XPF_LINE; }

/* Row i of a band tile's member at s: i source rows on, or its place on the gathered rows' grid (sub-bands of whole
 * runs of the grid's last dimension, at pitch p->lds). */
static const unsigned char *band_row(const plan *p, const unsigned char *s, size_t i)
{
    if (!p->grid || !p->grid->rows)
        return s + i * p->lds;
    xp_fast_grid_pos pos;
    xp_fast_grid_seek(p->grid->rows, i, &pos);
    return s + pos.os;
}

/* Destination row dr's bytes of rows [i0, i1) of a band from its pieces (at bytes into each slot; rows from b0 there):
 * whole lines through band_lines where they are whole pieces, the rest through memory (a pitch off 16 bytes, the
 * matrix's ends). row: 256 + 64 bytes of room. */
static void band_row_out(const plan *p, unsigned char *dr, size_t i0, size_t i1, size_t b0,
                         const unsigned char *const *piece, size_t at, unsigned char *row)
{
    const size_t es = p->es, R = 16 / es;
    uintptr_t first = (uintptr_t)(dr + i0 * es) & ~(uintptr_t)(XPF_LINE - 1), from = (uintptr_t)(dr + b0 * es);
    uintptr_t a = first > from ? first : from, b = (uintptr_t)(dr + i1 * es);
    if (i1 != p->rows)
        b &= ~(uintptr_t)(XPF_LINE - 1);
    size_t skip = a - from;                                   /* the row's bytes before a in its pieces */
    if (b > a && (a | skip) % 16 == 0 && a % XPF_LINE == 0) { /* lines of whole pieces */
        const size_t lines = (b - a) / XPF_LINE;
        p->band_lines((unsigned char *)a, 0, 1, lines, piece + skip / 16, at);
        a += lines * XPF_LINE;
        skip += lines * XPF_LINE;
    }
    if (b <= a)
        return;
    for (size_t i = b0; i < i1; i += R)
        memcpy(row + (i - b0) * es, piece[(i - b0) / R] + at, 16);
    p->row((unsigned char *)a, row + skip, b - a);
}

/* A band tile ("cpu-fast: bands on AVX2"): rows [r0, r1) and columns [j0, j0 + nj) of the member at s, d. Sub-bands of
 * 16 / es rows (16 bytes of each destination row) are read across the tile's whole width, a few row streams that the
 * core's prefetchers follow, and transposed into 16-byte pieces that fill whole lines of the thread's ring; every
 * XPF_BAND_BYTES of rows, each destination row gathers its pieces and leaves in whole lines (four, where a power-of-two
 * pitch runs fewer lines a row at a fraction of the copy's speed). The ring keeps the pieces of the last line's worth
 * of rows, so that the line a destination row has across two bands is written whole by the second; a tile's first
 * band computes those rows itself (band_back). Columns short of a block go through the scalar rim. */
static void run_bands(const plan *p, const unsigned char *s, unsigned char *d, size_t r0, size_t r1, size_t j0,
                      size_t nj, unsigned char *ring)
{
    const size_t es = p->es, R = 16 / es, band = XPF_BAND_BYTES / es, back = XPF_LINE / es;
    const size_t nj_v = nj - nj % (32 / es), slots = XPF_BAND_SLOTS, slot = band_slot(nj_v);
    const size_t start = r0 > 0 && p->band_back ? r0 - back : r0; /* r0: a multiple of the tile's rows */
    _Alignas(64) unsigned char row[XPF_BAND_BYTES + XPF_LINE];
    const xp_fast_grid *cols = p->grid ? p->grid->cols : NULL; /* scattered destination rows, or NULL */
    xp_fast_grid_pos pos = {{0}, 0, 0};
    s += j0 * es;
    d += cols ? 0 : j0 * p->ldd;
    for (size_t i = start; i < r0; i += R)
        p->band(band_row(p, s, i), p->lds, R, nj_v, ring + (i - start) / R % slots * slot);
    for (size_t i0 = r0; i0 < r1 && nj_v; i0 += band) {
        const size_t i1 = r1 - i0 < band ? r1 : i0 + band;
        for (size_t i = i0; i < i1; i += R)
            p->band(band_row(p, s, i), p->lds, i1 - i < R ? i1 - i : R, nj_v, ring + (i - start) / R % slots * slot);
        /* rows [b0, i1) are in the ring: the line holding row i0 starts at most a line's worth of rows above it */
        const size_t b0 = i0 - start >= back ? i0 - back : start;
        const unsigned char *piece[XPF_BAND_SLOTS];
        for (size_t i = b0, k = 0; i < i1; i += R, k++)
            piece[k] = ring + (i - start) / R % slots * slot;
        /* Rows on lines (no band_back) and the band whole lines: each row takes the same lines of pieces, in one
         * call for a run of rows at one pitch (all of them, or a scattered grid's last dimension). */
        const int whole = !p->band_back && (i1 - i0) * es % XPF_LINE == 0;
        for (size_t c = 0, n; c < nj_v; c += n) {
            unsigned char *dr = d + c * p->ldd; /* element 0 of destination row c, the first of n at pitch */
            size_t pitch = p->ldd;
            n = nj_v - c;
            if (cols) {
                xp_fast_grid_seek(cols, j0 + c, &pos);
                const size_t left = cols->ext[cols->rank - 1] - pos.idx[cols->rank - 1];
                n = n < left ? n : left;
                dr = d + pos.od;
                pitch = (size_t)cols->sd[cols->rank - 1];
            }
            if (whole) {
                p->band_lines(dr + i0 * es, pitch, n, (i1 - i0) * es / XPF_LINE, piece + (i0 - b0) * es / 16, c * 16);
                continue;
            }
            for (size_t k = 0; k < n; k++, dr += pitch)
                band_row_out(p, dr, i0, i1, b0, piece, (c + k) * 16, row);
        }
    }
    if (nj_v < nj) /* never on a permutation's grids: their columns are whole blocks (plan_kernels) */
        xp_fast_rim(es, s + r0 * p->lds, p->lds, r1 - r0, nj, r1 - r0, nj_v, d + r0 * es, p->ldd, NULL);
}

/* Tiles go to the threads in runs of one tile row (tiles_j tiles, along the same source rows), longer where a tile row
 * moves less than XPF_RUN_BYTES (narrow matrices, small batch members: one dispatch of OpenMP's dynamic schedule costs
 * more than such a run), shorter where that would leave a thread fewer than 16 runs, handed out as threads come free:
 * one slow core then does not hold the call (docs/tuning.md, "cpu-fast: tile runs"). Where each tile reads on where the
 * last one stopped, runs are at least XPF_ORDER_RUN members in source order (a permutation's grid) or XPF_ORDER_RUN
 * dense tiles: short runs dealt out in turn leave each core's source streams full of holes (the other core's tiles)
 * that its prefetchers, the dense tiles' and the gathered tiles' prefetch of what comes next, fetch for nothing
 * ("permute: source-ordered runs"). */
static long long run_length(const plan *p, long long tiles, size_t bytes)
{
    long long per_thread = tiles / (16LL * xpose_get_threads()), run = (long long)p->tiles_j;
    long long least = (long long)(XPF_RUN_BYTES / (bytes / (size_t)tiles + 1)), in_order = 0;
    if (p->grid && p->grid->source_order)
        in_order = XPF_ORDER_RUN * (long long)(p->tiles_i * p->tiles_j);
    else if (p->dense)
        in_order = XPF_ORDER_RUN;
    least = least > in_order ? least : in_order;
    run = run > least ? run : least;
    return run < per_thread ? run : per_thread > 1 ? per_thread : 1;
}

/* A thread's last member on the grid: tiles come to a thread in runs, so the next member is mostly this one or the
 * one after, an odometer's step instead of a division per dimension (members of a permutation can be 1 KiB). */
typedef struct cursor {
    size_t b; /* SIZE_MAX: none yet */
    xp_fast_grid_pos pos;
    unsigned char *owed; /* staged rows (stage_rows): the last transpose's destination, still to go, or NULL */
    size_t owed_bytes;   /* its rows' bytes */
    size_t half;         /* the half of the thread's buffer that holds it */
} cursor;

/* Where member b starts in the source and the destination: b * ss and b * sd, or its place on the grid. */
static void member(const plan *p, size_t b, cursor *cur, const unsigned char **s, unsigned char **d)
{
    if (!p->grid) {
        *s = p->src + b * p->ss;
        *d = p->dst + b * p->sd;
        return;
    }
    if (cur->b != SIZE_MAX && b == cur->b + 1)
        xp_fast_grid_next(p->grid, &cur->pos);
    else if (b != cur->b)
        xp_fast_grid_seek(p->grid, b, &cur->pos);
    cur->b = b;
    *s = p->src + cur->pos.os;
    *d = p->dst + cur->pos.od;
}

/* Read prefetches of the lines of n bytes from s (at most XPF_GROUP_BYTES: the runs of a grouped copy). */
static void prefetch_run(const unsigned char *s, size_t n)
{
    for (size_t k = 0; k < n; k += XPF_LINE)
        __builtin_prefetch(s + k, 0, 3);
}

/* Tile t of a plan whose members are one short copy each: `group` members in a row, each copied by the row kernel
 * (whole destination lines, streamed where the call is large), walked on the grid by the odometer's steps. */
static void run_group(const plan *p, size_t t, unsigned char *buf)
{
    const size_t b0 = t * p->group, n = p->batch - b0 < p->group ? p->batch - b0 : p->group;
    const size_t bytes = p->rows * p->cols * p->es;
    if (!p->grid) {
        for (size_t m = b0; m < b0 + n; m++)
            p->row(p->dst + m * p->sd, p->src + m * p->ss, bytes);
        return;
    }
    xp_fast_grid_pos pos, ahead;
    xp_fast_grid_seek(p->grid, b0, &pos);
    /* Runs back to back in the source (plan.stream): each asks for the lines XPF_STREAM_AHEAD bytes past its own into
     * L2, where the next runs lie. The hardware prefetchers alone, or the asks below (into L1, by run), left the copy
     * 5-20 % short of cpu-stream ("permute: copied runs in source order"). */
    if (p->stream) {
        for (size_t m = 0; m < n; m++, xp_fast_grid_next(p->grid, &pos)) {
            const uintptr_t s = (uintptr_t)(p->src + pos.os) + XPF_STREAM_AHEAD; /* may lie past the tensor */
            for (size_t k = 0; k < bytes; k += XPF_LINE)
                __builtin_prefetch((const void *)(s + k), 0, 2);
            p->row(p->dst + pos.od, p->src + pos.os, bytes);
        }
        return;
    }
    /* A permutation's runs lie apart, each too short for the prefetchers to follow: each run's lines are asked for
     * XPF_GROUP_AHEAD runs before it is copied, so that several runs' reads are in flight at once. */
    ahead = pos;
    for (size_t m = 0; m < XPF_GROUP_AHEAD && m < n; m++, xp_fast_grid_next(p->grid, &ahead))
        prefetch_run(p->src + ahead.os, bytes);
    /* plan.stage_runs: runs that follow each other in the destination are copied into buf (a group moves at most
     * XPF_GROUP_BYTES, half of it) and leave together, as whole lines, when the destination jumps or the group ends:
     * each run on its own would write the lines it shares with its neighbours in masked pieces. */
    int64_t start = pos.od;
    size_t fill = 0;
    for (size_t m = 0; m < n; m++, xp_fast_grid_next(p->grid, &pos)) {
        if (m + XPF_GROUP_AHEAD < n) {
            prefetch_run(p->src + ahead.os, bytes);
            xp_fast_grid_next(p->grid, &ahead);
        }
        if (!p->stage_runs) {
            p->row(p->dst + pos.od, p->src + pos.os, bytes);
            continue;
        }
        if (pos.od != start + (int64_t)fill) {
            p->row(p->dst + start, buf, fill);
            start = pos.od;
            fill = 0;
        }
        memcpy(buf + fill, p->src + pos.os, bytes);
        fill += bytes;
    }
    if (fill)
        p->row(p->dst + start, buf, fill);
}

/* Rows a gathered tile copies beyond its own, above and below: what the staged and joined-lines paths read of the
 * rows around a tile (a destination line's worth, a SIMD block). The region path reads its own rows only, so its
 * tiles gather none: a third fewer rows copied for 64-row tiles of floats. */
static size_t gather_margin(const plan *p) { return p->staged || p->lines || p->lag ? XPF_LINE / p->es : 0; }

/* An integer: past the last member the address lies outside the tensor. */
static uintptr_t next_member(const plan *p) { return (uintptr_t)(p->grid->rank ? p->grid->ss[p->grid->rank - 1] : 0); }

/* Rows [r0, r1) of the member at s, where they run on in the source (plan.gather_runs), one run at a time: each run
 * ends where the row grid's last dimension does. With gbuf, each run is copied there at pitch p->lds, after asking for
 * the same rows of the next member (the grid's fastest step; a member's tiles ahead) into L2: runs of a few KiB far
 * apart are too short for the prefetchers to follow ("permute: gathered rows in source order"). With runs, its address
 * and length in bytes go to runs[k] and lens[k]. Returns the runs' count. */
static size_t walk_runs(const plan *p, const unsigned char *s, size_t r0, size_t r1, unsigned char *gbuf,
                        const unsigned char **runs, size_t *lens)
{
    const xp_fast_grid *g = p->grid->rows;
    const uintptr_t next = next_member(p);
    const int last = g->rank - 1;
    xp_fast_grid_pos pos;
    xp_fast_grid_seek(g, r0, &pos);
    size_t k = 0;
    for (size_t r = r0, n; r < r1; r += n, k++) {
        if (r > r0) { /* the next run: the last one's end, then one odometer step (no division) */
            pos.os += (int64_t)(g->ext[last] - 1 - pos.idx[last]) * g->ss[last];
            pos.idx[last] = g->ext[last] - 1;
            xp_fast_grid_next(g, &pos);
        }
        n = g->ext[last] - pos.idx[last];
        n = n < r1 - r ? n : r1 - r;
        if (gbuf) {
            for (size_t b = 0; next && b < n * p->lds; b += XPF_LINE)
                __builtin_prefetch((const void *)((uintptr_t)(s + pos.os + b) + next), 0, 2);
            memcpy(gbuf, s + pos.os, n * p->lds);
            gbuf += n * p->lds;
        } else {
            runs[k] = s + pos.os;
            lens[k] = n * p->lds;
        }
    }
    return k;
}

/* Asks for bytes [from, to) of the next member's runs (the n runs of a tile, lens[k] bytes each, end to end, as
 * walk_runs lists them; the next member lies next_member bytes on) into L2, a line at a time. */
static void ask_next(const plan *p, const unsigned char *const *runs, const size_t *lens, size_t n, size_t from,
                     size_t to)
{
    const uintptr_t next = next_member(p);
    size_t k = 0, base = 0; /* the run holding byte off, and where it starts */
    for (size_t off = from; next && off < to; off += XPF_LINE) {
        while (k < n && off >= base + lens[k])
            base += lens[k++];
        if (k == n)
            break;
        __builtin_prefetch((const void *)((uintptr_t)runs[k] + (off - base) + next), 0, 2);
    }
}

/* A region tile of gathered row runs read where they lie (plan.runs): rows [i0, i0 + ni) of the member at s, every
 * column, into d (the tile's first destination element). One column of blocks (16 source bytes) at a time, each after
 * asking for its share of the next member's runs, so that those reads go out among the tile's stores instead of in
 * one burst before them ("permute: gathered row runs read in place"). */
static void run_in_place(const plan *p, const unsigned char *s, unsigned char *d, size_t i0, size_t ni, size_t nj)
{
    const unsigned char *runs[XPF_MAX_RUNS], *at[XPF_MAX_RUNS];
    size_t lens[XPF_MAX_RUNS];
    const size_t n = walk_runs(p, s, i0, i0 + ni, NULL, runs, lens), run = p->grid->rows->ext[p->grid->rows->rank - 1];
    const size_t R = 16 / p->es, passes = nj / R, bytes = ni * p->lds;
    for (size_t j = 0; j < passes; j++) {
        ask_next(p, runs, lens, n, bytes * j / passes, bytes * (j + 1) / passes);
        for (size_t k = 0; k < n; k++)
            at[k] = runs[k] + j * R * p->es;
        p->runs(at, run - i0 % run, run, p->lds, ni, R, d + j * R * p->ldd, p->ldd);
    }
}

/* The staged transpose a thread still owes once its tiles are done (cur->owed, in half cur->half of gbuf). */
static void settle(const plan *p, cursor *cur, const unsigned char *gbuf)
{
    const unsigned char *from = gbuf + cur->half * p->cols * p->stage_member;
    for (size_t j = 0; cur->owed && j < p->cols; j++)
        p->row(cur->owed + j * p->ldd, from + j * p->stage_member, cur->owed_bytes);
    cur->owed = NULL;
}

/* The n runs of `run` rows at runs[] (every column), whose transpose goes to d, through the member kernel into one half
 * of gbuf: on the way it asks for the source XPF_MEMBER_AHEAD bytes (whole runs) further on, past the last run into
 * the next ones, `next` bytes on, and streams the last staged transpose's destination lines out of the other half, so
 * that reads, arithmetic and streaming stores overlap ("permute: staged members of row runs"). */
static void stage_rows(const plan *p, const unsigned char *const *runs, size_t n, size_t run, uintptr_t next,
                       unsigned char *d, unsigned char *gbuf, cursor *cur)
{
    const size_t mine = cur->owed ? 1 - cur->half : 0, half = p->cols * p->stage_member;
    xp_fast_member_job job = {.runs = runs, .n = n, .run = run, .lds = p->lds, .nj = p->cols};
    job.buf = gbuf + mine * half, job.ldb = p->stage_member;
    job.next = next, job.ahead = (XPF_MEMBER_AHEAD + run * p->lds - 1) / (run * p->lds);
    job.from = gbuf + (1 - mine) * half, job.to = cur->owed, job.ldd = p->ldd;
    job.row_lines = cur->owed_bytes / XPF_LINE, job.lines = cur->owed ? p->cols * job.row_lines : 0;
    p->member(&job);
    cur->owed = d;
    cur->owed_bytes = n * run * p->es;
    cur->half = mine;
}

/* A member of gathered row runs taken whole (plan.stage_member), at s, into d. */
static void run_member(const plan *p, const unsigned char *s, unsigned char *d, unsigned char *gbuf, cursor *cur)
{
    const unsigned char *runs[XPF_MAX_RUNS];
    size_t lens[XPF_MAX_RUNS];
    const size_t n = walk_runs(p, s, 0, p->rows, NULL, runs, lens), run = p->grid->rows->ext[p->grid->rows->rank - 1];
    stage_rows(p, runs, n, run, next_member(p), d, gbuf, cur);
}

/* Rows [i0, i0 + ni) of a dense tile's member at s (plan.stage_chunks: source rows back to back), into d, as runs of
 * 16 / es rows, the asks going on into the next chunk. */
static void run_chunk(const plan *p, const unsigned char *s, unsigned char *d, size_t i0, size_t ni,
                      unsigned char *gbuf, cursor *cur)
{
    const unsigned char *runs[XPF_MAX_RUNS];
    const size_t R = 16 / p->es, n = ni / R;
    for (size_t k = 0; k < n; k++)
        runs[k] = s + (i0 + k * R) * p->lds;
    stage_rows(p, runs, n, R, ni * p->lds, d + i0 * p->es, gbuf, cur);
}

/* The source of a gathered tile: rows [r0, r1) of the member at s, columns [j0, j0 + nj), each from its place on the
 * row grid, copied into gbuf at pitch p->lds (so the kernels then read a plain tile of uniform pitch, in L1/L2). */
static void gather(const plan *p, const unsigned char *s, size_t r0, size_t r1, size_t j0, size_t nj,
                   unsigned char *gbuf)
{
    const xp_fast_grid *g = p->grid->rows;
    s += j0 * p->es;
    if (p->gather_runs) { /* whole rows back to back in the source and in gbuf: one copy per run of them */
        walk_runs(p, s, r0, r1, gbuf, NULL, NULL);
        return;
    }
    xp_fast_grid_pos pos;
    xp_fast_grid_seek(g, r0, &pos);
    for (size_t r = r0; r < r1; r++, gbuf += p->lds, xp_fast_grid_next(g, &pos))
        memcpy(gbuf, s + pos.os, nj * p->es);
}

/* Rows [i0, i0 + ni) and columns [j0, j0 + nj) of the member at s, d. */
static void tile_body(const plan *p, const unsigned char *s, unsigned char *d, size_t i0, size_t ni, size_t j0,
                      size_t nj, unsigned char *buf, unsigned char *gbuf, unsigned char *band)
{
    if (p->band) {
        run_bands(p, s, d, i0, i0 + ni, j0, nj, gbuf);
        return;
    }
    if (p->runs && ni % p->block_rows == 0) { /* whole blocks only (j0 is 0: a tile takes the rows whole) */
        run_in_place(p, s, d + i0 * p->es, i0, ni, nj);
        return;
    }
    if (p->gather_rows) {
        const size_t m = gather_margin(p), g0 = i0 > m ? i0 - m : 0, g1 = i0 + ni + m < p->rows ? i0 + ni + m : p->rows;
        gather(p, s, g0, g1, j0, nj, gbuf);
        s = gbuf + (i0 - g0) * p->lds;
    } else
        s += i0 * p->lds + j0 * p->es;
    d += (p->grid && p->grid->cols ? 0 : j0 * p->ldd) + i0 * p->es;
    if (p->copy)
        p->row(d, s, ni * nj * p->es);
    else if (p->narrow || p->narrow_pad)
        run_narrow(p, s, d, ni, p->rows - i0, buf);
    else if (p->wide)
        run_wide(p, s, d, nj, buf);
    else if (p->lines)
        p->lines(s, p->lds, ni, nj, d, p->ldd, i0 == 0, i0 + ni == p->rows, band);
    else if (p->staged || (i0 == 0 && p->lag > 0))
        run_staged(p, s, d, i0, ni, j0, nj, buf);
    else
        p->region(s, p->lds, ni, nj, d, p->ldd);
}

/* A region tile of a pair of members (xp_fast_grid.paired), the second at ds, dd from the first: their blocks take
 * turns every XPF_PAIR_BYTES of source columns, so that the two lines that lie side by side in the destination leave
 * within a few stores of each other, not a whole tile apart. 16^6 double reversed (8 x 16 tiles), median % of the
 * yardstick over 14 rounds: one thread 82 -> 89, two 82 -> 85.5; taking turns every 16 doubles (a whole tile) through
 * this loop measured as before, every 2 slower (docs/tuning.md, "permute: paired lines in turn"). */
static void run_pair(const plan *p, const unsigned char *s, unsigned char *d, int64_t ds, int64_t dd, size_t ni,
                     size_t nj)
{
    const size_t step = XPF_PAIR_BYTES / p->es > 0 ? XPF_PAIR_BYTES / p->es : 1;
    for (size_t j = 0; j < nj; j += step) {
        const size_t n = nj - j < step ? nj - j : step;
        p->region(s + j * p->es, p->lds, ni, n, d + j * p->ldd, p->ldd);
        p->region(s + ds + j * p->es, p->lds, ni, n, d + dd + j * p->ldd, p->ldd);
    }
}

/* band: the lines kernels' room for band registers, or NULL */
static void run_tile(const plan *p, size_t t, cursor *cur, unsigned char *buf, unsigned char *gbuf, unsigned char *band)
{
    if (p->group > 1) {
        run_group(p, t, buf);
        return;
    }
    size_t per = p->tiles_i * p->tiles_j, b = t / per, ti = t % per / p->tiles_j, tj = t % p->tiles_j;
    size_t i0 = ti * p->ti > p->lag ? ti * p->ti - p->lag : 0, i1 = (ti + 1) * p->ti - p->lag, j0 = tj * p->tj;
    size_t ni = (i1 < p->rows ? i1 : p->rows) - i0, nj = p->cols - j0 < p->tj ? p->cols - j0 : p->tj;
    const unsigned char *s;
    unsigned char *d;
    /* Paired members: the first's tiles do the second's too (its place one step of the grid's last dimension on). */
    const int paired = p->grid && p->grid->paired;
    if (paired && b % 2)
        return;
    member(p, b, cur, &s, &d);
    if (p->stage_chunks) { /* every column: j0 is 0 */
        run_chunk(p, s, d, i0, ni, gbuf, cur);
        return;
    }
    if (p->stage_member) { /* the whole member: i0 and j0 are 0 */
        run_member(p, s, d, gbuf, cur);
        return;
    }
    if (paired) {
        /* the second through the cursor too, which then steps on to the next pair without a division */
        const unsigned char *s2;
        unsigned char *d2;
        member(p, b + 1, cur, &s2, &d2);
        if (!p->copy && !p->band && !p->narrow && !p->narrow_pad && !p->wide && !p->lines && !p->staged &&
            !p->gather_rows && !(i0 == 0 && p->lag > 0)) {
            run_pair(p, s + i0 * p->lds + j0 * p->es, d + j0 * p->ldd + i0 * p->es, s2 - s, d2 - d, ni, nj);
            return;
        }
        tile_body(p, s2, d2, i0, ni, j0, nj, buf, gbuf, band);
    }
    tile_body(p, s, d, i0, ni, j0, nj, buf, gbuf, band);
}

/* Non-temporal stores are weakly ordered: each thread publishes its own before the call returns. */
static void publish(int nt)
{
#if XP_FAST_X86
    if (nt)
        _mm_sfence();
#else
    (void)nt;
#endif
}

/* The call's matrices, strides in bytes, and the height of one SIMD block. */
static void plan_layout(plan *p, const xp_call *c, const xp_fast_grid *g, const xp_fast_isa *isa)
{
    const xp_shape *s = &c->s;
    memset(p, 0, sizeof *p);
    p->src = c->src;
    p->dst = c->dst;
    p->es = s->es;
    p->rows = s->rows;
    p->cols = s->cols;
    p->lds = s->lds * s->es;
    p->ldd = s->ldd * s->es;
    p->ss = s->ss * s->es;
    p->sd = p->sd_lines = s->sd * s->es;
    if ((p->grid = g) != NULL) {
        p->sd_lines = 0;
        for (int k = 0; k < g->rank; k++)
            p->sd_lines |= (size_t)g->sd[k];
    }
    p->copy = xp_shape_is_copy(s);
    p->block_rows = isa->width ? isa->width / s->es : 1;
}

int xp_fast_bands_fit(const xp_fast_isa *isa, size_t es, size_t rows, size_t bytes)
{
    return es <= 8 && isa->band[xp_elem_index(es)] && isa->row[1] && bytes >= XPF_NT_BYTES &&
           bytes >= XPF_BAND_MIN_CALL && rows * es >= XPF_BAND_BYTES;
}

/* The kernels of a call of `bytes` bytes. Where every destination row starts at the same offset in its line, tiles
 * store straight from the registers; else rows on 4-byte boundaries join lines in registers ("cpu-fast: joined
 * lines") and the rest are staged, as are registers narrower than a line whose blocks would leave more than
 * XPF_OPEN_ROWS half-written lines open (AVX2's 1-byte blocks: "cpu-fast: staging"; its 2-byte blocks store whole
 * lines in pairs instead: "cpu-fast: 2-byte block pairs on AVX2"). Returns whether stores are non-temporal: they
 * neither read the destination nor evict the source ("cpu-fast: non-temporal stores"). */
static int plan_kernels(plan *p, const xp_call *c, const xp_fast_isa *isa, size_t bytes)
{
    const xp_shape *s = &c->s;
    int e = xp_elem_index(s->es);
    int nt = isa->row[1] && bytes >= XPF_NT_BYTES;
    p->region = isa->region[nt][e];
    p->region_plain = isa->region[0][e];
    p->row = isa->row[nt];
    /* AVX2's 2-byte region blocks go in pairs that store whole lines (xpf_block_pair) where the tiles are plain */
    const int pairs = isa->width * 2 == XPF_LINE && s->es == 2 && !(p->grid && (p->grid->rows || p->grid->cols));
    p->staged = p->ldd % XPF_LINE != 0 || (s->batch > 1 && p->sd_lines % XPF_LINE != 0) ||
                (nt && isa->width < XPF_LINE && 16 / s->es > XPF_OPEN_ROWS && !pairs);
    /* AVX2 bands ("cpu-fast: bands on AVX2"): bytes where they would be staged, 2- to 8-byte elements where their
     * destination pitch is whole 4 KiB pages; plain tiles of streaming calls, members of a band's rows and a KiB of
     * columns or more (a permutation's 32 x 32 and 64 x 64 float members ran at half and three quarters the speed).
     * Source pitches of whole pages ("cpu-fast: bands on source pages"): staged tiles, 2-byte blocks (16 rows in
     * one L1 set), and 4-byte tiles of a KiB of rows whose 16 rows share an L2 set. */
    const int src_pages = p->lds % XPF_BAND_PAGE == 0 &&
                          (p->staged || s->es == 2 ||
                           (s->es == 4 && p->lds % XPF_BAND_SET_PITCH == 0 && s->rows * s->es >= XPF_BAND_TILE_BYTES));
    /* A permutation's tiles shaped for bands (xp_fast_grid.banded): scattered destination rows take whole blocks of
     * columns (no rim), gathered source rows whole sub-bands at one pitch (their last extent a multiple of one). */
    const xp_fast_grid *cols = p->grid ? p->grid->cols : NULL, *rows = p->grid ? p->grid->rows : NULL;
    const int shaped = p->grid && p->grid->banded && (!cols || s->cols % (32 / s->es) == 0) &&
                       (!rows || rows->ext[rows->rank - 1] % (16 / s->es) == 0);
    const int banded = s->es == 1 ? p->staged : s->es <= 8 && (p->ldd % XPF_BAND_PAGE == 0 || src_pages || shaped);
    if (banded && xp_fast_bands_fit(isa, s->es, s->rows, bytes) && !p->copy && (shaped || !(cols || rows)) &&
        s->cols * s->es >= XPF_BAND_MIN_ROW) {
        p->band = isa->band[e];
        p->band_lines = isa->band_lines;
        size_t lines = p->ldd | p->sd_lines | (uintptr_t)c->dst;
        for (int k = 0; cols && k < cols->rank; k++)
            lines |= (size_t)cols->sd[k];
        p->band_back = lines % XPF_LINE != 0;
        p->staged = 0;
        return nt;
    }
    if (p->grid && p->grid->cols) /* scattered destination rows: only the staged tiles place rows one by one */
        p->staged = 1;
    else if (p->staged && isa->lines[nt][e] && (p->ldd | p->sd_lines | (uintptr_t)c->dst) % 4 == 0) {
        p->lines = isa->lines[nt][e];
        p->staged = 0;
    }
    return nt;
}

/* One-row and one-column matrices: long tiles along the one long side, so that a copy moves big chunks. */
static void plan_degenerate(plan *p, const xp_call *c)
{
    const xp_shape *s = &c->s;
    if (s->rows == 1) {
        p->tj = 1 << 16;
        p->staged = 0;
        p->lag = 0;
        p->lines = NULL;
    }
    if (s->cols == 1) {
        p->ti = 1 << 16;
        p->staged = 0;
        p->lag = 0;
        p->lines = NULL;
        /* A gather into one destination row per member: 16-byte elements fill whole blocks (one column), whose
         * streaming stores need lines that tiles 2^16 rows apart only reach where the row starts on one. */
        if ((uintptr_t)c->dst % XPF_LINE != 0 || (s->batch > 1 && p->sd_lines % XPF_LINE != 0))
            p->region = p->region_plain;
    }
}

/* Tile heights (32-64 source rows, or short ones: "cpu-fast: tile heights", "cpu-fast: short tiles") and
 * widths, the shift that starts register-stored tiles on a destination line, and the tile counts. */
/* The staging kernel's buffer pitch for rows of n bytes (run_member, run_chunk): a line's multiple, never 4 KiB (its
 * rows would share L1 sets). */
static size_t stage_pitch(size_t n)
{
    const size_t pitch = (n + XPF_LINE - 1) / XPF_LINE * XPF_LINE;
    return pitch + (pitch % 4096 == 0 ? XPF_LINE : 0);
}

/* Whether every destination row of rows n bytes long starts and ends on a line, in every member: the staging kernel
 * streams them out whole lines at a time. */
static int stage_lines(const plan *p, const xp_call *c, size_t n)
{
    return (n | p->ldd | p->sd_lines | (uintptr_t)c->dst) % XPF_LINE == 0;
}

static void plan_tiles(plan *p, const xp_call *c, const xp_fast_isa *isa)
{
    const xp_shape *s = &c->s;
    const int heights = tile_heights(isa, c->p0);
    p->ti = s->es <= 4 ? 64 : 32;
    if (p->staged && p->ti * s->es < 256) /* a staged tile's line of margin costs rows */
        p->ti = 256 / s->es;
    p->tj = XPF_TILE_COLS_BYTES / s->es;
    if (p->band) { /* strips of at most XPF_BAND_TILE_COLS columns, as even as whole blocks make them */
        const size_t cb = 32 / s->es, cols_v = s->cols - s->cols % cb;
        const size_t strips = (cols_v + XPF_BAND_TILE_COLS - 1) / XPF_BAND_TILE_COLS;
        p->tj = (cols_v / strips + cb - 1) / cb * cb;
        /* shorter tiles, down to one band, until the call has 4 tiles a thread (1024^2 bytes was one tile) */
        const size_t least = 4 * (size_t)xpose_get_threads();
        for (p->ti = XPF_BAND_TILE_BYTES / s->es;
             p->ti * s->es > XPF_BAND_BYTES && (s->rows + p->ti - 1) / p->ti * strips * s->batch < least;)
            p->ti /= 2;
    } else if (p->lines) { /* short joined lines from 4-byte elements on only, middle ones from 8 (4001^2 floats:
                              * 32 rows ran at 56-71 % of the copy, 16 at 69-93) */
        p->ti = s->es >= 4 && heights != XPF_TILES_LONG
                    ? short_tile_rows(s->es, p->block_rows, s->es >= 8 ? heights : XPF_TILES_SHORT)
                    : XPF_LINES_TILE_BYTES / s->es;
        if (s->es == 1) /* bands across the tile ("cpu-fast: 1-byte joined lines in bands") */
            p->tj = XPF_BAND_COLS;
    } else if (!p->staged) {
        if (heights != XPF_TILES_LONG)
            p->ti = short_tile_rows(s->es, p->block_rows, heights);
        p->lag = (p->ti - (-(uintptr_t)c->dst & (XPF_LINE - 1)) / s->es % p->ti) % p->ti;
    }
    plan_degenerate(p, c);
    /* Dense rows of 2-8 elements (4 of 8 and 16 bytes): whole chunks split through the narrow loops; 2 to a line's
     * worth of rows into a dense destination (or up to XPF_WIDE_BYTES, not whole lines): interleaved through the same
     * loops where rows fall short of a SIMD block, else through the region kernel ("cpu-fast: wide matrices"). */
    const int plain = !p->copy && isa->width && !(p->grid && (p->grid->rows || p->grid->cols));
    const int e = xp_elem_index(s->es);
    const size_t row_bytes = s->cols * s->es;
    xp_fast_narrow_fn loops = plain && s->cols >= 2 ? xp_fast_narrow_pick(isa, s->es, s->cols) : NULL;
    /* 1- and 2-byte rows under a line, not whole 16-byte blocks, that no loops take (or 5-7 elements on AVX2, where
     * the loops measured slower): the region kernel over blocks padded into the next row ("cpu-fast: padded narrow
     * rows") */
    const int pad = plain && s->es <= 2 && s->cols >= 2 && row_bytes < XPF_LINE && row_bytes % 16 != 0 &&
                    (!loops || (isa->width == 32 && s->cols >= 5 && s->cols <= 7));
    if (plain && s->lds == s->cols && s->rows >= XPF_NARROW_ROWS && (loops || pad)) {
        p->narrow = pad ? NULL : loops;
        p->narrow_pad = pad;
        p->ti = 8 * XPF_NARROW_ROWS;
        p->tj = s->cols;
        p->lag = 0;
        p->band = 0;
    } else if (plain && s->ldd == s->rows && s->cols >= XPF_NARROW_ROWS && s->rows >= 2 &&
               (s->rows * s->es < XPF_LINE || (s->rows * s->es < XPF_WIDE_BYTES && s->rows * s->es % XPF_LINE != 0))) {
        p->wide = 1;
        p->wide_fn = s->rows < p->block_rows ? xp_fast_wide_pick(isa, s->es, s->rows) : NULL;
        /* 1- and 2-byte rows that no loops take and that are not whole blocks of rows: sub-bands ("cpu-fast: wide
         * matrices through sub-bands") */
        p->wide_band = !p->wide_fn && s->es <= 2 && s->rows % p->block_rows != 0 ? isa->band[e] : NULL;
        p->ti = s->rows;
        p->tj = 8 * XPF_NARROW_ROWS;
        p->lag = 0;
        p->band = 0;
    }
    /* Gathered rows: narrower tiles, so that the rows a tile copies (its own and the margins) stay in L1 and L2; the
     * tile reads them from its buffer at a pitch that never lands a block's rows in one cache set. */
    if (p->grid && p->grid->rows && !p->band) {
        const xp_fast_grid *g = p->grid->rows;
        p->tj = XPF_GATHER_COLS_BYTES / s->es;
        const size_t w = (s->cols < p->tj ? s->cols : p->tj) * s->es;
        p->lds = (w + XPF_LINE - 1) / XPF_LINE * XPF_LINE + XPF_LINE;
        /* Rows shorter than a tile that follow each other in the source (the row grid's last dimension steps by one
         * row: (2,0,4,1,3)'s rows of 28 floats): a tile takes them whole, in runs of one copy each at their own pitch
         * (at most 256 bytes: a block's rows never share a cache set), not a call per row of 112 bytes. */
        p->gather_runs = s->cols <= p->tj && g->ss[g->rank - 1] == (int64_t)(s->cols * s->es);
        if (p->gather_runs)
            p->lds = s->cols * s->es;
        /* Region tiles of such runs read them where they lie, none copied, where every block takes whole columns
         * (16 / es of them) and at most two runs (each run at least a block tall): "permute: gathered row runs read
         * in place". */
        const size_t run = g->ext[g->rank - 1];
        const int e = xp_elem_index(s->es), nt = p->region == isa->region[1][e];
        if (p->gather_runs && !gather_margin(p) && !p->copy && isa->runs[nt][e] &&
            (nt || p->region == isa->region[0][e]) && s->cols % (16 / s->es) == 0 && run >= p->block_rows &&
            p->ti / run + 2 <= XPF_MAX_RUNS)
            p->runs = isa->runs[nt][e];
        /* Streamed members of whole columns whose destination rows are whole lines, small enough for L2: one tile
         * each, staged whole (run_member). */
        const size_t pitch = stage_pitch(s->rows * s->es);
        if (p->runs && nt && !p->grid->paired && isa->member[e] && s->cols <= p->tj && s->rows / run <= XPF_MAX_RUNS &&
            s->cols * pitch <= XPF_MEMBER_BYTES && stage_lines(p, c, s->rows * s->es)) {
            p->stage_member = pitch;
            p->member = isa->member[e];
            p->ti = s->rows;
        }
        p->gather_rows = p->ti + 2 * gather_margin(p);
    }
    /* Tiles that take whole source rows back to back (NHWC -> NCHW's rows of 64 floats): region kernels that prefetch
     * the next tile, not further along rows the tile already holds ("cpu-fast: dense tiles prefetch the next tile"). */
    if (p->region == isa->region[1][e] && isa->region_dense[e] && !p->copy && !p->narrow && !p->narrow_pad &&
        !p->wide && !p->lines && !p->staged && !p->band && !p->gather_rows && p->lds == s->cols * s->es &&
        s->cols <= p->tj) {
        p->region = isa->region_dense[e];
        p->dense = 1;
        /* Streamed, on whole destination lines: chunks of XPF_CHUNK_BYTES of rows staged through the member kernel
         * ("cpu-fast: staged chunks of dense tiles"). */
        const size_t pitch = stage_pitch(XPF_CHUNK_BYTES);
        if (isa->member[e] && !(p->grid && p->grid->paired) && s->cols % (16 / s->es) == 0 &&
            s->cols * pitch <= XPF_MEMBER_BYTES && stage_lines(p, c, s->rows * s->es)) {
            p->stage_chunks = 1;
            p->stage_member = pitch;
            p->member = isa->member[e];
            p->ti = XPF_CHUNK_BYTES / s->es;
            p->lag = 0;
        }
    }
    if (p->lines && s->es == 1) /* a tile's columns, 64 bytes each, in whole blocks of 16 */
        p->band_bytes = ((s->cols < p->tj ? s->cols : p->tj) & ~(size_t)15) * XPF_BAND_BYTES_PER_COL;
    p->tiles_i = (s->rows + p->lag + p->ti - 1) / p->ti;
    p->tiles_j = (s->cols + p->tj - 1) / p->tj;
    /* Copies of members shorter than a tile (a permutation's runs, short rows of a batch): several members a tile. */
    const size_t member_bytes = s->rows * s->cols * s->es;
    p->batch = s->batch;
    p->group =
        p->copy && p->tiles_i * p->tiles_j == 1 && member_bytes < XPF_GROUP_BYTES ? XPF_GROUP_BYTES / member_bytes : 1;
    /* Members in source order each starting where the last one ends: the source is one sequential stream. */
    p->stream = p->group > 1 && p->grid && p->grid->source_order && p->grid->rank > 0 &&
                p->grid->ss[p->grid->rank - 1] == (int64_t)member_bytes;
    /* Members of part lines (or off the line) that follow each other in the destination: staged (run_group), which
     * a permutation's runs walked in blocks need ("permute: copied runs in blocks"). */
    p->stage_runs = p->group > 1 && p->grid && p->grid->rank > 0 &&
                    p->grid->sd[p->grid->rank - 1] == (int64_t)member_bytes &&
                    (member_bytes | (uintptr_t)c->dst) % XPF_LINE != 0;
}

/* Tiles of the whole call. */
static size_t tile_count(const plan *p) { return (p->batch + p->group - 1) / p->group * p->tiles_i * p->tiles_j; }

/* A thread's room for the band registers of 1-byte joined lines (p->band_bytes): its staging buffer buf where they fit
 * (no other path of such tiles uses it), else *owned, allocated; NULL where the plan needs none or the allocation
 * failed (band_failed says which). */
static unsigned char *band_room(const plan *p, unsigned char *buf, unsigned char **owned)
{
    *owned = NULL;
    if (p->band_bytes <= XPF_BUF_BYTES)
        return p->band_bytes ? buf : NULL;
    return *owned = aligned_alloc(XPF_LINE, p->band_bytes); /* band_bytes: a multiple of 1 KiB */
}

static int band_failed(const plan *p, const unsigned char *band) { return p->band_bytes && !band; }

/* A thread's buffer of n bytes (NULL: none needed, or none to be had), on a line: the bands' pieces are stored aligned. */
static unsigned char *room(size_t n)
{
    return n ? aligned_alloc(XPF_LINE, (n + XPF_LINE - 1) & ~(size_t)(XPF_LINE - 1)) : NULL;
}

/* Every tile of the plan: on the calling thread where the call is small (a team costs more than it moves) or one
 * tile, else over the OpenMP threads in runs (run_length). */
static int run_tiles(const plan *p, long long tiles, size_t bytes, int nt)
{
    /* each thread's buffer for gathered tiles, or for the pieces of bands (run_bands) */
    size_t room_bytes = p->band ? XPF_BAND_SLOTS * band_slot(p->tj) : p->gather_rows * p->lds;
    if (p->stage_member && room_bytes < 2 * p->cols * p->stage_member)
        room_bytes = 2 * p->cols * p->stage_member;
    int failed = 0;
    if (bytes < XP_CPU_SERIAL_BYTES || tiles == 1) {
        _Alignas(64) unsigned char buf[XPF_BUF_BYTES];
        unsigned char *gbuf = room(room_bytes), *owned, *band = band_room(p, buf, &owned);
        if ((room_bytes && !gbuf) || band_failed(p, band)) {
            free(gbuf);
            free(owned);
            return XPOSE_ERR_NO_MEMORY;
        }
        cursor cur = {SIZE_MAX, {{0}, 0, 0}, NULL, 0, 0};
        for (long long t = 0; t < tiles; t++)
            run_tile(p, (size_t)t, &cur, buf, gbuf, band);
        settle(p, &cur, gbuf);
        publish(nt);
        free(gbuf);
        free(owned);
        return XPOSE_OK;
    }
    long long run = run_length(p, tiles, bytes);
    (void)run; /* read by the OpenMP schedule only */
#pragma omp parallel num_threads(xpose_get_threads()) reduction(| : failed)
    {
        _Alignas(64) unsigned char buf[XPF_BUF_BYTES];
        unsigned char *gbuf = room(room_bytes), *owned, *band = band_room(p, buf, &owned);
        failed = (room_bytes && !gbuf) || band_failed(p, band);
        cursor cur = {SIZE_MAX, {{0}, 0, 0}, NULL, 0, 0};
#pragma omp for schedule(dynamic, run)
        for (long long t = 0; t < tiles; t++)
            if (!failed)
                run_tile(p, (size_t)t, &cur, buf, gbuf, band);
        settle(p, &cur, gbuf);
        publish(nt);
        free(gbuf);
        free(owned);
    }
    return failed ? XPOSE_ERR_NO_MEMORY : XPOSE_OK;
}

static int run_fast(const xp_call *c, const xp_fast_grid *g)
{
    const xp_shape *s = &c->s;
    const xp_fast_isa *isa = xp_fast_pick_isa();
    const size_t bytes = s->batch * s->rows * s->cols * s->es;
    plan p;
    plan_layout(&p, c, g, isa);
    const int nt = plan_kernels(&p, c, isa, bytes);
    plan_tiles(&p, c, isa);
    return run_tiles(&p, (long long)tile_count(&p), bytes, nt);
}

int xp_cpu_fast(const xp_call *c) { return run_fast(c, NULL); }

int xp_cpu_fast_describe(const xp_call *c, const xp_fast_grid *g, char *buf, size_t size)
{
    const xp_shape *s = &c->s;
    const xp_fast_isa *isa = xp_fast_pick_isa();
    plan p;
    plan_layout(&p, c, g, isa);
    const int nt = plan_kernels(&p, c, isa, s->batch * s->rows * s->cols * s->es);
    plan_tiles(&p, c, isa);
    const char *kind = p.copy                       ? "copy"
                       : p.band                     ? "band"
                       : p.narrow_pad               ? "padded narrow"
                       : p.narrow                   ? "narrow"
                       : p.wide_band                ? "sub-banded wide"
                       : p.wide                     ? "wide"
                       : p.lines                    ? "joined-lines"
                       : p.stage_chunks             ? "staged dense"
                       : p.staged || p.stage_member ? "staged"
                       : p.dense                    ? "dense region"
                                                    : "region";
    const int rows = p.gather_rows || (p.band && g && g->rows); /* bands read gathered rows where they lie */
    const char *gathered = rows && g->cols  ? " of gathered rows and scattered columns"
                           : p.stage_chunks ? " in chunks"
                           : p.stage_member ? " of row runs, a member at a time"
                           : p.runs         ? " of row runs read in place"
                           : p.gather_runs  ? " of gathered row runs"
                           : rows           ? " of gathered rows"
                           : g && g->cols   ? " of scattered columns"
                                            : "";
    if (p.group > 1)
        return snprintf(buf, size, "%s copy tiles of %zu members%s%s", isa->name, p.group,
                        p.stream       ? " read as one stream"
                        : p.stage_runs ? " staged"
                                       : "",
                        nt ? " nt" : "");
    return snprintf(buf, size, "%s %s tiles %zux%zu%s%s", isa->name, kind, p.ti, p.tj, gathered, nt ? " nt" : "");
}

int xp_cpu_fast_grid(const xp_call *c, const xp_fast_grid *g) { return run_fast(c, g); }
