/* cpu_fast.c: cpu-fast, the production CPU transpose: L1-sized tiles over OpenMP threads, SIMD kernels picked
 * at run time, and whole destination cache lines written with non-temporal stores from 256 KB on. */
#include <stdlib.h>
#include <string.h>
#include "cpu_fast.h"
#if XP_FAST_X86
#include <immintrin.h>
#endif

#define XPF_TILE_COLS_BYTES 1024 /* a tile's width in source bytes */
#define XPF_NT_BYTES (256 * 1024) /* from here on non-temporal stores won at every size measured */
#define XPF_LINES_TILE_BYTES 512 /* a joined-lines tile's height in destination bytes */
#define XPF_WC_LINES 10 /* lines a core keeps open for streaming stores (10-12 on recent Intel cores) */
#define XPF_BUF_BYTES (32 * 1024) /* room for 64/es staged rows of at most 256 + 64 + 63 bytes */

/* XPOSE_CPU_ISA=scalar|avx2|avx512 caps the instruction set (to compare them, or to test every path). */
static const xp_fast_isa *pick_isa(void)
{
    const char *cap = getenv("XPOSE_CPU_ISA");
    int level = !cap ? 2 : !strcmp(cap, "scalar") ? 0 : !strcmp(cap, "avx2") ? 1 : 2;
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

/* Whether the tiles that store from registers (the region and joined-lines paths) are short (short_tile_rows): with
 * the SIMD kernels on an AMD core, or where a lab row asks (cpu-fast/short, cpu-fast/long: the A/B on any machine).
 * Tiles of 32-64 rows (joined lines: 512 bytes) were measured best on Intel cores; on a 2-core AMD EPYC (Zen 4) VM
 * short tiles ran 1.2-2.4x faster for 2- to 16-byte elements at 1024^2-8192^2, one and two threads, power-of-two
 * pitches or not, and joined lines of 4- and 8-byte elements up to 1.7x (docs/performance.md, CPU fifth pass). A
 * plausible reading, not measured (no counters on that VM): fewer source rows read at once are fewer streams for the
 * core's prefetchers. The AVX2 kernels (capped by XPOSE_CPU_ISA on the same core) gained as much or more: 8192^2
 * c128 892 -> 69 ms, float 81 -> 27, u16 34 -> 19 (one thread). */
static int short_tiles(const xp_fast_isa *isa, int tiles)
{
    if (!isa->width || tiles != XPF_TILES_AUTO) /* the lab rows choose for themselves (scalar: no blocks to size) */
        return isa->width && tiles == XPF_TILES_SHORT;
#if XP_FAST_X86
    __builtin_cpu_init();
    return __builtin_cpu_is("amd");
#else
    return 0;
#endif
}

/* Short tiles: 16 source rows of 1- to 4-byte elements, 8 of 8- and 16-byte ones, and never fewer than one SIMD block's
 * rows nor than a destination line holds (the region path starts every tile but the first on a line, and the first
 * tile's staging assumes a tile at least a line tall; joined-lines tiles are whole lines tall). */
static size_t short_tile_rows(size_t es, size_t block_rows)
{
    size_t rows = es >= 8 ? 8 : 16;
    if (rows < block_rows)
        rows = block_rows;
    return rows * es < XPF_LINE ? XPF_LINE / es : rows;
}

/* Everything a thread needs for tile t of the batch; strides in bytes, tile sizes in elements. */
typedef struct plan {
    const unsigned char *src;
    unsigned char *dst;
    size_t es, rows, cols, lds, ldd, ss, sd;
    size_t ti, tj, lag; /* tile rows start at k * ti - lag, on a destination line where rows share a phase */
    size_t tiles_i, tiles_j;
    int staged;
    int copy; /* xp_shape_is_copy: every tile is a copy */
    size_t block_rows; /* rows of one SIMD block */
    xp_fast_region_fn region;
    xp_fast_region_fn region_plain; /* for the staging buffer */
    xp_fast_row_fn row;
    xp_fast_lines_fn lines; /* instead of staging, where rows start on 4-byte boundaries */
} plan;

/* Transposes rows [i0, i0 + ni) of the tile into buf, then copies them out in whole destination lines.
 * A line that straddles two tiles belongs to the one holding its last byte, which therefore also transposes
 * the line's worth of rows before i0 (the previous tile's, still in cache); rows are also added after the
 * tile, up to whole SIMD blocks, so that only the matrix's last rows go through the scalar rim. Every line
 * is then written once, in full, with one store, whatever the alignment of dst and ldd, and no two
 * threads ever share a line; only the lines at either end of a row take masked stores. */
static void run_staged(const plan *p, const unsigned char *s, unsigned char *d, size_t i0, size_t ni, size_t nj,
                       unsigned char *buf)
{
    size_t es = p->es, line = XPF_LINE / es, back = i0 < line ? i0 : line;
    size_t c0 = i0 - back, h = p->block_rows, nc = (ni + back + h - 1) / h * h;
    if (c0 + nc > p->rows)
        nc = p->rows - c0;
    /* Whole source lines per chunk of columns, so that no SIMD block is cut and no column falls to the rim. */
    size_t stride = (nc * es + XPF_LINE - 1) & ~(size_t)(XPF_LINE - 1), chunk = XPF_BUF_BYTES / stride / line * line;
    int last = i0 + ni == p->rows;
    for (size_t j = 0; j < nj; j += chunk) {
        size_t nj_c = nj - j < chunk ? nj - j : chunk;
        p->region_plain(s - back * p->lds + j * es, p->lds, nc, nj_c, buf, stride);
        for (size_t k = 0; k < nj_c; k++) {
            unsigned char *row = d + (j + k) * p->ldd - i0 * es; /* element 0 of this destination row */
            uintptr_t first = (uintptr_t)(row + i0 * es) & ~(uintptr_t)(XPF_LINE - 1);
            uintptr_t end = (uintptr_t)(row + (i0 + ni) * es);
            uintptr_t a = first > (uintptr_t)row ? first : (uintptr_t)row;
            uintptr_t b = last ? end : end & ~(uintptr_t)(XPF_LINE - 1);
            if (b > a)
                p->row((unsigned char *)a, buf + k * stride + (a - (uintptr_t)(row + c0 * es)), b - a);
        }
    }
}

/* Tiles go to the threads in runs of one tile row (tiles_j tiles, along the same source rows), shorter where that
 * would leave a thread fewer than 16 runs. Handed out as threads come free, not split in fixed halves: on a shared
 * host one core can run a transpose far slower than the other for seconds while a copy hardly notices (4000^2
 * bytes on one core: 1.3 or 1.9 ms), and a fixed split then waits for the slow half. */
static long long run_length(const plan *p, long long tiles)
{
    long long per_thread = tiles / (16LL * xpose_get_threads()), run = (long long)p->tiles_j;
    return run < per_thread ? run : per_thread > 1 ? per_thread : 1;
}

static void run_tile(const plan *p, size_t t, unsigned char *buf)
{
    size_t per = p->tiles_i * p->tiles_j, b = t / per, ti = t % per / p->tiles_j, tj = t % p->tiles_j;
    size_t i0 = ti * p->ti > p->lag ? ti * p->ti - p->lag : 0, i1 = (ti + 1) * p->ti - p->lag, j0 = tj * p->tj;
    size_t ni = (i1 < p->rows ? i1 : p->rows) - i0, nj = p->cols - j0 < p->tj ? p->cols - j0 : p->tj;
    const unsigned char *s = p->src + b * p->ss + i0 * p->lds + j0 * p->es;
    unsigned char *d = p->dst + b * p->sd + j0 * p->ldd + i0 * p->es;
    if (p->copy)
        memcpy(d, s, ni * nj * p->es);
    else if (p->lines)
        p->lines(s, p->lds, ni, nj, d, p->ldd, i0 == 0, i0 + ni == p->rows);
    else if (p->staged || (i0 == 0 && p->lag > 0))
        run_staged(p, s, d, i0, ni, nj, buf);
    else
        p->region(s, p->lds, ni, nj, d, p->ldd);
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

int xp_cpu_fast(const xp_call *c)
{
    const xp_shape *s = &c->s;
    const xp_fast_isa *isa = pick_isa();
    plan p;
    memset(&p, 0, sizeof p);
    p.src = c->src;
    p.dst = c->dst;
    p.es = s->es;
    p.rows = s->rows;
    p.cols = s->cols;
    p.lds = s->lds * s->es;
    p.ldd = s->ldd * s->es;
    p.ss = s->ss * s->es;
    p.sd = s->sd * s->es;
    p.copy = xp_shape_is_copy(s);
    p.block_rows = isa->width ? isa->width / s->es : 1;
    size_t bytes = s->batch * s->rows * s->cols * s->es;
    int e = xp_elem_index(s->es);
    /* Non-temporal stores neither read the destination first nor evict the source. */
    int nt = isa->row[1] && bytes >= XPF_NT_BYTES;
    p.region = isa->region[nt][e];
    p.region_plain = isa->region[0][e];
    p.row = isa->row[nt];
    /* Where every row starts at the same offset in its line, the tiles are shifted so that all but the first
     * start on a line, and store straight from the registers; elsewhere each tile is staged. Staged too:
     * streaming from registers narrower than a line, where a block leaves a half line open in more rows
     * than the core has write-combining buffers, so that partial lines go to memory (AVX2 bytes: 16 rows,
     * 7-8x slower than staged at 4000 and 8192; AVX2 u16, 8 rows, measured no gain from staging). */
    p.staged = p.ldd % XPF_LINE != 0 || (s->batch > 1 && p.sd % XPF_LINE != 0) ||
               (nt && isa->width < XPF_LINE && 16 / s->es > XPF_WC_LINES);
    /* Rows off line phase but on 4-byte boundaries (4000 bytes, say): lines joined in registers instead of
     * staged, which took one more pass through the cache and did not overlap the stores with the loads
     * (4000 u8: 0.45 -> 0.55-0.6 of memcpy, 1 and 2 threads). */
    if (p.staged && isa->lines[nt][e] && (p.ldd | p.sd | (uintptr_t)c->dst) % 4 == 0) {
        p.lines = isa->lines[nt][e];
        p.staged = 0;
    }
    /* Tiles of 32 to 64 source rows measured best (fewer streams to prefetch, fewer aliasing rows at
     * power-of-two strides); a staged tile spans at least 256 bytes, for its line of margin costs rows. */
    p.ti = s->es <= 4 ? 64 : 32;
    if (p.staged && p.ti * s->es < 256)
        p.ti = 256 / s->es;
    p.tj = XPF_TILE_COLS_BYTES / s->es;
    /* Tiles of the joined-lines path start on a block, and each transposes the block above it again: 512
     * bytes of rows keep that to 1/8 (256 and 1024 measured no better). */
    if (p.lines) /* short tiles here from 4-byte elements on: 1- and 2-byte ones lost with them (CPU fifth pass) */
        p.ti = s->es >= 4 && short_tiles(isa, c->p0) ? short_tile_rows(s->es, p.block_rows)
                                                      : XPF_LINES_TILE_BYTES / s->es;
    else if (!p.staged) {
        if (short_tiles(isa, c->p0))
            p.ti = short_tile_rows(s->es, p.block_rows);
        p.lag = (p.ti - (-(uintptr_t)c->dst & (XPF_LINE - 1)) / s->es % p.ti) % p.ti;
    }
    /* Degenerate shapes: long tiles along the one long side, so that a copy moves big chunks. */
    if (s->rows == 1) {
        p.tj = 1 << 16;
        p.staged = 0;
        p.lag = 0;
        p.lines = NULL;
    }
    if (s->cols == 1) {
        p.ti = 1 << 16;
        p.staged = 0;
        p.lag = 0;
        p.lines = NULL;
        /* A gather into one destination row per member: 16-byte elements fill whole blocks (one column), whose
         * streaming stores need lines that tiles 2^16 rows apart only reach where the row starts on one. */
        if ((uintptr_t)c->dst % XPF_LINE != 0 || (s->batch > 1 && p.sd % XPF_LINE != 0))
            p.region = p.region_plain;
    }
    p.tiles_i = (s->rows + p.lag + p.ti - 1) / p.ti;
    p.tiles_j = (s->cols + p.tj - 1) / p.tj;
    long long tiles = (long long)(s->batch * p.tiles_i * p.tiles_j);
    if (bytes < XP_CPU_SERIAL_BYTES || tiles == 1) { /* no OpenMP region at all: a team costs more than this */
        _Alignas(64) unsigned char buf[XPF_BUF_BYTES];
        for (long long t = 0; t < tiles; t++)
            run_tile(&p, (size_t)t, buf);
        publish(nt);
        return XPOSE_OK;
    }
    long long run = run_length(&p, tiles);
    (void)run; /* read by the OpenMP schedule only */
#pragma omp parallel num_threads(xpose_get_threads())
    {
        _Alignas(64) unsigned char buf[XPF_BUF_BYTES];
#pragma omp for schedule(dynamic, run)
        for (long long t = 0; t < tiles; t++)
            run_tile(&p, (size_t)t, buf);
        publish(nt);
    }
    return XPOSE_OK;
}
