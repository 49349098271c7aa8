/* cpu_fast.h: where the cpu-fast driver meets its per-instruction-set kernels, and the instruction-set cap. */
#ifndef XP_CPU_FAST_H
#define XP_CPU_FAST_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_kernels.h"

#define XPF_LINE 64      /* bytes in a cache line */
#define XPF_BAND_LINES 4 /* a band (AVX2): 256 bytes of each destination row at once, in lines (run_bands) */

/* The SIMD kernels need GCC/Clang target attributes and x86-64 intrinsics; elsewhere only the portable path. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define XP_FAST_X86 1
#else
#define XP_FAST_X86 0
#endif

/* Transposes an ni x nj region of es-byte elements: dst(j, i) := src(i, j). Strides are in BYTES, so the
 * same kernel fills either the caller's matrix or an aligned staging buffer. */
typedef void (*xp_fast_region_fn)(const unsigned char *src, size_t lds, size_t ni, size_t nj, unsigned char *dst,
                                  size_t ldd);

/* Transposes an ni x nj region (whole SIMD blocks: ni a multiple of the set's block rows, nj of 16 / es) whose source
 * rows come in runs at their own addresses, each run's rows lds bytes apart: rows [0, head) of the region lie from
 * runs[0], then every `run` rows (run >= a block's rows, head <= run) from the next address of runs. */
typedef void (*xp_fast_runs_fn)(const unsigned char *const *runs, size_t head, size_t run, size_t lds, size_t ni,
                                size_t nj, unsigned char *dst, size_t ldd);

/* A member of gathered row runs staged whole (cpu_fast.c's run_member): its n runs of `run` rows (runs[k], rows lds
 * bytes apart, nj columns, n * run a multiple of 64 / es) transposed into buf (nj rows, ldb bytes apart, on lines).
 * Along the way, a line for every 64 bytes the blocks read: an ask for the same place `ahead` runs on (past the last
 * run: the next member's, `next` bytes on in the source; next 0: none), into L1, and a line of the last member's
 * transpose streamed out: `lines` whole lines, row_lines a row, from its buffer rows (from, ldb bytes apart) to its
 * destination rows (to, ldd bytes apart, on lines). */
typedef struct xp_fast_member_job {
    const unsigned char *const *runs;
    size_t n, run, lds, nj;
    unsigned char *buf;
    size_t ldb;
    uintptr_t next;
    size_t ahead;
    const unsigned char *from;
    unsigned char *to;
    size_t ldd, row_lines, lines;
} xp_fast_member_job;
typedef void (*xp_fast_member_fn)(const xp_fast_member_job *job);

/* Copies n bytes of a staged row to dst: the partial lines at either end with plain (masked) stores, the whole
 * lines in between with plain or non-temporal stores. */
typedef void (*xp_fast_row_fn)(unsigned char *dst, const unsigned char *src, size_t n);

/* Transposes an ni x nj tile of the matrix into destination rows that start at any 4-byte boundary, writing
 * whole aligned lines; first / last: the tile holds the matrix's first / last rows. A tile that is not the last
 * has a multiple of 64 bytes of rows, and one that is not the first reads the 64 bytes of rows above it. band:
 * 64-byte aligned room for the 1-byte kernels' registers carried between bands, XPF_BAND_BYTES_PER_COL a column
 * of the tile's whole blocks; unused at other element sizes. */
typedef void (*xp_fast_lines_fn)(const unsigned char *src, size_t lds, size_t ni, size_t nj, unsigned char *dst,
                                 size_t ldd, int first, int last, unsigned char *band);

/* 1-byte joined lines walk their tiles in bands (xpf_lines_bands), carrying one block's registers (1 KiB) per 16
 * columns: 64 bytes a column. */
#define XPF_BAND_BYTES_PER_COL 64

/* Bands (AVX2): n source rows (1 to 16 / es) of nj columns (a multiple of 32 / es) from src, transposed into pieces:
 * column j's n elements (16 bytes, the rows past n undefined) at piece + 16 * j, 64-byte aligned. cpu_fast.c's
 * run_bands gathers a destination row from the pieces of consecutive sub-bands. */
typedef void (*xp_fast_band_fn)(const unsigned char *src, size_t lds, size_t n, size_t nj, unsigned char *piece);
/* `lines` whole lines at each of `rows` destination rows from dst (on a line), ldd bytes apart, non-temporal: row r's
 * line l from the 16-byte pieces at piece[4l + k] + at + 16r, k = 0..3. */
typedef void (*xp_fast_band_lines_fn)(unsigned char *dst, size_t ldd, size_t rows, size_t lines,
                                      const unsigned char *const *piece, size_t at);

/* One instruction set's kernels, each by [non-temporal stores][xp_elem_index]; NULL where it has none. */
typedef struct xp_fast_isa {
    const char *name;
    size_t width; /* register bytes: region[1] needs its destination rows aligned to them */
    xp_fast_region_fn region[2][5];
    /* region[1] for tiles whose source rows lie back to back, which prefetch the next tile (1- to 4-byte elements) */
    xp_fast_region_fn region_dense[5];
    xp_fast_row_fn row[2];
    xp_fast_lines_fn lines[2][5]; /* NULL where the set has no two-register permute */
    xp_fast_runs_fn runs[2][5];   /* NULL where the set has none (scalar) */
    xp_fast_member_fn member[5];  /* 4- to 16-byte elements; NULL where the set has none */
    xp_fast_band_fn band[5];      /* bands; NULL where the set has none (all but AVX2) */
    xp_fast_band_lines_fn band_lines;
} xp_fast_isa;

extern const xp_fast_isa xp_fast_scalar;
#if XP_FAST_X86
extern const xp_fast_isa xp_fast_avx2;
extern const xp_fast_isa xp_fast_avx512;
#endif

/* The rest of a region whose first ni_v rows and nj_v columns the SIMD blocks already did: rows [ni_v, ni)
 * over all columns through rows_fn (a narrower instruction set's region; NULL: scalar), and columns
 * [nj_v, nj) of the first ni_v rows, scalar. */
void xp_fast_rim(size_t es, const unsigned char *src, size_t lds, size_t ni, size_t nj, size_t ni_v, size_t nj_v,
                 unsigned char *dst, size_t ldd, xp_fast_region_fn rows_fn);

/* Narrow matrices (cpu_fast_narrow.c): n source rows of C elements (pitch C) from src into the C rows of buf, each
 * XPN_ROWS(es) elements long (at most 4 KiB); NULL where the set, element size or C has none. */
#define XPF_NARROW_ROWS 1024
#define XPN_ROWS(es) ((es) <= 4 ? (size_t)XPF_NARROW_ROWS : 4096 / (size_t)(es))
typedef void (*xp_fast_narrow_fn)(const unsigned char *src, size_t n, unsigned char *buf);
xp_fast_narrow_fn xp_fast_narrow_pick(const xp_fast_isa *isa, size_t es, size_t cols);
/* Wide matrices, their inverse (cpu_fast_narrow.c): the C source rows (lds bytes apart) of n elements from src
 * interleaved into buf as n rows of C elements, back to back; NULL where the set, element size or C has none. */
typedef void (*xp_fast_wide_fn)(const unsigned char *src, size_t lds, size_t n, unsigned char *buf);
xp_fast_wide_fn xp_fast_wide_pick(const xp_fast_isa *isa, size_t es, size_t rows);

/* p0 of a cpu-fast row: the height of the tiles that store from registers (tile_heights in cpu_fast.c). */
enum { XPF_TILES_AUTO = 0, XPF_TILES_SHORT = 1, XPF_TILES_LONG = 2, XPF_TILES_MID = 3 };

int xp_cpu_fast(const xp_call *c);
/* Streaming-store copies (cpu_stream.c): n bytes, a multiple of XPF_LINE, to a line-aligned dst, in the widest set the
 * CPU has under XPOSE_CPU_ISA's cap (NULL off x86); the stores are weakly ordered, so a thread fences
 * (xp_stream_fence) before another may read them. */
typedef void (*xp_stream_lines_fn)(unsigned char *dst, const unsigned char *src, size_t n);
xp_stream_lines_fn xp_stream_lines_pick(void);
void xp_stream_fence(void);
/* The widest instruction set the CPU has, under XPOSE_CPU_ISA's cap: the kernels cpu-fast and the in-place
 * transposes run. */
const xp_fast_isa *xp_fast_pick_isa(void);

/* Members of a batch on an N-d grid, as a permutation's dimensions outside its tile lie (cpu_permute.c): member b
 * has the digits of b in the extents ext (the last dimension fastest) and lies at the sum of digit times stride, in
 * BYTES, from the source and the destination; source strides may be negative or zero. */
typedef struct xp_fast_grid {
    int rank;
    size_t ext[XPOSE_MAX_RANK];
    int64_t ss[XPOSE_MAX_RANK], sd[XPOSE_MAX_RANK];
    /* NULL, or where the rows of a member come from when no one pitch reaches them (several destination dimensions
     * combined into the tile's rows): row r of a member lies at its place on this grid (sd unused) from the
     * member's source; its destination rows stay contiguous. */
    const struct xp_fast_grid *rows;
    /* NULL, or where the destination rows of a member go when no one pitch reaches them (several source dimensions
     * combined into the tile's columns): column j's destination row lies at its place on this grid (ss unused) from
     * the member's destination; its source columns stay contiguous. Such tiles are staged. */
    const struct xp_fast_grid *cols;
    /* Members walked in source order (the source's fastest dimension varies fastest), each reading on where the last
     * one stopped: threads take them in long runs. */
    int source_order;
    /* The last dimension (extent 2) pairs members whose destination rows lie side by side: each tile of the first
     * member also does the second's, storing their lines in turn (cpu_permute.c's pair_lines). */
    int paired;
    /* The planner shaped the tiles (rows, cols) for AVX2 bands (xp_fast_bands_fit): they take them where they can. */
    int banded;
} xp_fast_grid;

/* A place on a grid: the digits of a member and its byte offsets from the source and the destination. */
typedef struct xp_fast_grid_pos {
    size_t idx[XPOSE_MAX_RANK];
    int64_t os, od;
} xp_fast_grid_pos;

/* The place of member b. */
static inline void xp_fast_grid_seek(const xp_fast_grid *g, size_t b, xp_fast_grid_pos *p)
{
    p->os = p->od = 0;
    for (int k = g->rank - 1; k >= 0; k--) {
        const size_t e = g->ext[k];
        p->idx[k] = b % e;
        b /= e;
        p->os += (int64_t)p->idx[k] * g->ss[k];
        p->od += (int64_t)p->idx[k] * g->sd[k];
    }
}

/* The next member's place, an odometer's step: no division. */
static inline void xp_fast_grid_next(const xp_fast_grid *g, xp_fast_grid_pos *p)
{
    for (int k = g->rank - 1; k >= 0; k--) {
        p->os += g->ss[k];
        p->od += g->sd[k];
        if (++p->idx[k] < g->ext[k])
            return;
        p->os -= (int64_t)g->ext[k] * g->ss[k];
        p->od -= (int64_t)g->ext[k] * g->sd[k];
        p->idx[k] = 0;
    }
}

/* Whether isa's bands (run_bands in cpu_fast.c) can take tiles of `rows` destination elements of es bytes in a
 * streamed call of `bytes`: cpu-fast's own test, and the permutation planner's before it widens tiles for them. */
int xp_fast_bands_fit(const xp_fast_isa *isa, size_t es, size_t rows, size_t bytes);

/* cpu-fast over the members of grid g: c->s is one member (rows, cols, leading dimensions), its batch the grid's
 * member count, its batch strides unused. Same tiles, kernels, stores and threads as xp_cpu_fast. */
int xp_cpu_fast_grid(const xp_call *c, const xp_fast_grid *g);
/* What xp_cpu_fast_grid would run (g may be NULL), as snprintf writes: instruction set, tile kind and size, stores;
 * c->dst NULL: for a destination that starts on a cache line. */
int xp_cpu_fast_describe(const xp_call *c, const xp_fast_grid *g, char *buf, size_t size);

/* How far XPOSE_CPU_ISA=scalar|avx2|avx512 lets the CPU variants go: 0, 1 or 2 (unset: 2); each variant then takes
 * the widest set at or under it that the CPU has (to compare the sets, or to test every path). */
static inline int xp_cpu_isa_cap(void)
{
    const char *cap = getenv("XPOSE_CPU_ISA");
    return !cap ? 2 : !strcmp(cap, "scalar") ? 0 : !strcmp(cap, "avx2") ? 1 : 2;
}

#endif
