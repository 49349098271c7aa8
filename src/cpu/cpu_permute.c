/* cpu_permute.c: the CPU's general N-d permutation (what xp_perm_as_shape leaves): cpu-fast's tiles and threads over
 * the dimensions outside the tile, or, for strides no SIMD tile can read, a strided element loop. */
#include <stdio.h>
#include <string.h>
#include "cpu_fast.h"
#include "../core/xp_permute.h"

/* How a canonical permutation runs on the CPU (docs/design.md, "Permutations"):
 * - ROWS: the destination's fastest dimension is the source's too (both strides 1): every destination row is one
 *   contiguous source run, so a copy of runs over the other dimensions (cpu-fast's copy tiles on a grid), in source
 *   order where the runs are whole lines.
 * - TILES: the source has a dimension a of stride 1 and the destination's fastest dimension b has stride 1: for every
 *   index of the other dimensions, a 2-D transpose of ext[b] x ext[a] elements, which is cpu-fast's job (its tiles,
 *   SIMD kernels, streaming stores and threads, over the members of an N-d grid).
 * - ELEMS: anything else (no source dimension of stride 1, a destination whose fastest stride is not 1, a reversed
 *   source row pitch): a strided loop over 2-D blocks, correct for every stride, at scalar speed. */
typedef enum { ROUTE_ROWS, ROUTE_TILES, ROUTE_ELEMS } route_kind;

typedef struct route {
    route_kind kind;
    int a, b;       /* the tile's dimensions: source-side (columns) and destination-fastest (rows) */
    int b0;         /* TILES: the tile's rows are dimensions b0..b, contiguous in the destination (b0 < b: gathered) */
    int by_source;  /* TILES of whole-line rows: members walked in source order (line_rows) */
    int paired;     /* by_source rows of one line: the destination dimension continuing them walked in pairs */
    int banded;     /* TILES for AVX2 bands (plan_band_tile) */
    size_t block;   /* ROWS in destination order: runs a block takes (block_runs), 1 for none */
    uint32_t tile;  /* the dimensions inside a member (a bit each): the tile's rows and columns */
    xp_call c;      /* ROWS, TILES: one member, as cpu-fast takes it */
    xp_fast_grid g; /* every other dimension, strides in bytes */
    xp_fast_grid rows; /* TILES with b0 < b: dimensions b0..b, whose source rows cpu-fast gathers */
    xp_fast_grid cols; /* TILES with cols.rank > 1: a and the dimensions after it in the source, rows scattered */
} route;

/* A tile's edges from a member's two dimensions can be short (16^6 reversed: rows of 16 elements), and a tile then pays
 * its fixed costs (placing it, partial lines and masked stores at both ends of every row) for a few hundred bytes, and
 * reads or writes runs too short for the prefetchers. Each edge combines more dimensions where the tensor runs on:
 * - columns shorter than XP_PERM_COL_BYTES in the source take the dimensions that continue them in the source (a
 *   stride the columns so far span); their destination rows then lie apart by no one pitch, so the tile is staged and
 *   places them one by one (xp_fast_grid.cols);
 * - rows shorter than XP_PERM_ROW_BYTES in the destination take the destination dimensions that continue them; their
 *   source rows then lie apart by no one pitch, so cpu-fast copies them into a buffer first (xp_fast_grid.rows).
 * Measured on the CI VM, one thread, % of a copy (noisy: +-10): 64^4 reversed 47 -> 64, (16,32^4) (4,1,3,0,2) 66 -> 77,
 * 8x16^5 reversed 35 -> 53, (24,28,24,28,28) (2,0,4,1,3) 32 -> 50; gathering rows of 128 bytes or more, or into tiles
 * wider than 256 bytes, lost 5-30 points on these cases. */
#define XP_PERM_COL_BYTES 1024
#define XP_PERM_ROW_BYTES 128

/* Tiles whose destination rows make a band (256 bytes or more) take AVX2 bands where they can (xp_fast_bands_fit):
 * their columns then grow to XP_PERM_BAND_COL_BYTES, read as a few long row streams, while every destination row,
 * wherever it lies, gets 256 bytes at once ("permute: band tiles of scattered rows"). */
#define XP_PERM_BAND_COL_BYTES 16384

/* Where every destination row of a member is whole cache lines (its rows, dimensions b0..b, span a multiple of 64
 * bytes, each row starting on a line), its members are walked in SOURCE order instead (the outer dimension of smallest
 * source stride fastest): each block then stores whole lines with streaming stores, which need no order, while the
 * source is read as a few sequential streams that the prefetchers follow. With b0 == b the tile stays ext[b] x ext[a]
 * (no gathering or staging pass). Measured on the CI VM, one thread, ms (A/B, medians): 16^6 double reversed 13.7 ->
 * 10.9, (96,75,96,75) (2,1,3,0) 7.1 -> 5.4, 64^4 reversed 10.4 -> 9.7, (16,32^4) (4,1,3,0,2) 9.2 -> 8.6 (docs/tuning.md,
 * "permute: source-ordered members"). Rows of part lines (28 floats) lose there (10 -> 19 ms): their lines are then
 * written in pieces far apart in time; gathered into whole lines ((2,0,4,1,3): dimensions 3-4, 784 floats) they gain
 * (docs/tuning.md, "permute: gathered rows in source order"). */
static int line_rows(const xp_perm *p, int a, int b0, size_t rows)
{
    if ((rows * p->es) % XPF_LINE != 0)
        return 0;
    for (int k = 0; k < b0; k++) /* the dimensions outside the rows (b0..b, the last ones) */
        if (((size_t)p->ds[k] * p->es) % XPF_LINE != 0)
            return 0;
    return a >= 0 && p->ss[a] == 1;
}

static uint64_t mag(int64_t v) { return v < 0 ? -(uint64_t)v : (uint64_t)v; }

/* Members walked in source order whose destination rows are one line each (16^6 double reversed: tiles of 8 x 16
 * elements) store every line alone: its neighbour in the destination, the next member along the dimension that
 * continues the rows there, comes thousands of members later. That dimension is split in two, its last step walked
 * innermost: each tile's lines then go out in pairs, and the source is still read as sequential streams (twice as
 * many). Pairs of one member and the next measured faster than single lines and than runs of 4 or 8 (which read 4 or 8
 * times as many streams): 16^6 double reversed, one thread 7.9-8.2 -> 7.2-7.5 ms (docs/tuning.md, "permute: paired
 * lines"). Returns whether it split one (its extent even, not already the fastest). */
static int pair_lines(xp_fast_grid *g, int64_t row_bytes)
{
    for (int k = 0; k + 1 < g->rank; k++)
        if (g->sd[k] == row_bytes && g->ext[k] % 2 == 0) {
            const int r = g->rank++;
            g->ext[r] = 2;
            g->ss[r] = g->ss[k];
            g->sd[r] = g->sd[k];
            g->ext[k] /= 2;
            g->ss[k] *= 2;
            g->sd[k] *= 2;
            g->paired = 1;
            return 1;
        }
    return 0;
}

/* Runs (ROWS) left in destination order whose runs are short (512x512x60 (1,0,2): 240 bytes, 120 KiB apart in the
 * source) read every run as a stream of its own, too short for the prefetchers: 38-51 % of cpu-stream. The grid's
 * fastest dimension (the destination's, its runs side by side there) is split, blocks of K runs walked innermost, and
 * the source's fastest dimension moved between: K runs, back to back in the destination, then the K runs that follow
 * each of them in the source, so the source is read as K streams and the destination written K runs at a time
 * (gathered into whole lines: plan.stage_runs in cpu_fast.c). K: a power of two, the most whose runs span at most
 * XP_PERM_BLOCK_BYTES, that divides the dimension's extent; 1 (none) where runs span more than half of that
 * (docs/tuning.md, "permute: copied runs in blocks"). Returns K. */
#define XP_PERM_BLOCK_BYTES 2048
static size_t block_runs(xp_fast_grid *g, size_t run_bytes)
{
    const int L = g->rank - 1;
    size_t K = 1;
    while (2 * K * run_bytes <= XP_PERM_BLOCK_BYTES)
        K *= 2;
    for (; L >= 1 && K >= 2 && g->ext[L] % K != 0; K /= 2) {
    }
    int sm = -1; /* the source's fastest dimension among the others (a broadcast one never) */
    for (int k = 0; k < L; k++)
        if (g->ss[k] != 0 && (sm < 0 || mag(g->ss[k]) < mag(g->ss[sm])))
            sm = k;
    if (L < 1 || K < 2 || g->ext[L] == K || sm < 0)
        return 1;
    const size_t ext = g->ext[sm], e = g->ext[L];
    const int64_t ss = g->ss[sm], sd = g->sd[sm], lss = g->ss[L], lsd = g->sd[L];
    for (int k = sm; k < L; k++) { /* sm out; then the last as blocks, sm, the runs of a block */
        g->ext[k] = g->ext[k + 1];
        g->ss[k] = g->ss[k + 1];
        g->sd[k] = g->sd[k + 1];
    }
    g->ext[L - 1] = e / K;
    g->ss[L - 1] = lss * (int64_t)K;
    g->sd[L - 1] = lsd * (int64_t)K;
    g->ext[L] = ext;
    g->ss[L] = ss;
    g->sd[L] = sd;
    g->ext[L + 1] = K;
    g->ss[L + 1] = lss;
    g->sd[L + 1] = lsd;
    g->rank = L + 2;
    return K;
}

/* The dimensions outside the tile, as a grid of byte strides: in destination order (slowest first), or with
 * by_source in source order (largest |source stride| first, so the source's fastest varies fastest; a stable
 * insertion sort, rank <= 32). */
static void outer_grid(const xp_perm *p, uint32_t tile, int by_source, xp_fast_grid *g)
{
    g->rank = 0;
    g->rows = g->cols = NULL;
    g->source_order = by_source;
    g->paired = 0;
    for (int k = 0; k < p->rank; k++) {
        if (tile >> k & 1u)
            continue;
        const size_t e = p->ext[k];
        const int64_t ss = p->ss[k] * (int64_t)p->es, sd = p->ds[k] * (int64_t)p->es;
        int j = g->rank++;
        for (; by_source && j > 0 && mag(g->ss[j - 1]) < mag(ss); j--) {
            g->ext[j] = g->ext[j - 1];
            g->ss[j] = g->ss[j - 1];
            g->sd[j] = g->sd[j - 1];
        }
        g->ext[j] = e;
        g->ss[j] = ss;
        g->sd[j] = sd;
    }
}

static size_t grid_count(const xp_fast_grid *g)
{
    size_t n = 1;
    for (int k = 0; k < g->rank; k++)
        n *= g->ext[k];
    return n;
}

/* The second block dimension of the element loop: of the dimensions other than b, the source's fastest (smallest
 * |stride|, a broadcast one last), or -1 where b is the only dimension. */
static int elems_dim(const xp_perm *p, int b)
{
    int a = -1;
    uint64_t best = 0;
    for (int k = 0; k < p->rank; k++) {
        uint64_t s = p->ss[k] == 0 ? UINT64_MAX : (uint64_t)(p->ss[k] < 0 ? -p->ss[k] : p->ss[k]);
        if (k != b && (a < 0 || s < best)) {
            a = k;
            best = s;
        }
    }
    return a;
}

/* The tile's columns: a, then while its source rows are short, the dimension whose source stride is the columns'
 * count so far (the source runs on into it), outside the tile's rows. cols lists them slowest first. */
static void plan_cols(const xp_perm *p, route *r, size_t col_bytes)
{
    int dims[XPOSE_MAX_RANK], n = 0;
    dims[n++] = r->a;
    size_t cols = p->ext[r->a];
    for (int grew = 1; grew && cols * p->es < col_bytes;) {
        grew = 0;
        for (int k = 0; k < p->rank && !grew; k++)
            if (!(r->tile >> k & 1u) && k != r->a && p->ss[k] == (int64_t)cols) {
                int seen = 0;
                for (int m = 0; m < n; m++)
                    seen |= dims[m] == k;
                if (!seen) {
                    dims[n++] = k;
                    cols *= p->ext[k];
                    grew = 1;
                }
            }
    }
    r->c.s.cols = cols;
    r->cols.rank = n;
    for (int m = 0; m < n; m++) { /* slowest first: the last added */
        const int k = dims[n - 1 - m];
        r->cols.ext[m] = p->ext[k];
        r->cols.ss[m] = 0;
        r->cols.sd[m] = p->ds[k] * (int64_t)p->es;
        r->tile |= 1u << k;
    }
}

/* The tile's rows: destination dimensions b0..b, contiguous there; b0 < b gathers their source rows (r->rows). */
static void plan_rows(const xp_perm *p, route *r, int b0)
{
    r->b0 = b0;
    r->c.s.rows = 1;
    for (int k = b0; k <= r->b; k++) {
        r->c.s.rows *= p->ext[k];
        r->tile |= 1u << k;
    }
    if (b0 < r->b) {
        r->rows.rank = r->b - b0 + 1;
        for (int k = b0; k <= r->b; k++) {
            r->rows.ext[k - b0] = p->ext[k];
            r->rows.ss[k - b0] = p->ss[k] * (int64_t)p->es;
            r->rows.sd[k - b0] = 0;
        }
    }
}

/* TILES of one member's rows and columns as cpu-fast's own rules take them: members in source order where its rows
 * are whole lines, else short rows joined by the destination dimensions that continue them and short columns by the
 * source's. */
static void plan_tile(const xp_perm *p, route *r)
{
    const int a = r->a, b = r->b;
    r->by_source = line_rows(p, a, b, p->ext[b]);
    /* Short destination rows: the next destination dimensions join them, where the destination runs on. */
    int b0 = b;
    for (size_t rows = p->ext[b];
         !r->by_source && b0 - 1 > a && rows * p->es < XP_PERM_ROW_BYTES && p->ds[b0 - 1] == (int64_t)rows;)
        rows *= p->ext[--b0];
    plan_rows(p, r, b0);
    if (b0 < b)
        r->by_source = line_rows(p, a, b0, r->c.s.rows);
    if (!r->by_source || b0 < b) /* else the tile's columns stay dimension a alone: its rows' pitch is then one */
        plan_cols(p, r, XP_PERM_COL_BYTES);
    if (r->cols.rank > 1) /* scattered columns: measured in destination order only */
        r->by_source = 0;
}

/* TILES for AVX2 bands (xp_fast_bands_fit), where the destination rows make a band or the dimensions that continue
 * them there do (their source rows then gathered a band's sub-band at a time: the rows' last extent a multiple of one,
 * 16 bytes of rows), and the columns grow to XP_PERM_BAND_COL_BYTES (destination rows scattered): a few long source
 * row streams, and 256 bytes of every destination row at once. Returns whether it planned one; r is left alone if not
 * (tiles of one pitch each way are plain tiles, which take bands by cpu-fast's own rules). */
static int plan_band_tile(const xp_perm *p, route *r)
{
    const int a = r->a, b = r->b;
    const size_t bytes = p->count * p->es;
    if (p->es > 8 || p->ext[a] % (32 / p->es) != 0 || p->ss[b] < 0)
        return 0;
    const xp_fast_isa *isa = xp_fast_pick_isa();
    size_t rows = p->ext[b];
    int b0 = b;
    while (!xp_fast_bands_fit(isa, p->es, rows, bytes) && b0 - 1 > a && p->ds[b0 - 1] == (int64_t)rows)
        rows *= p->ext[--b0];
    if (!xp_fast_bands_fit(isa, p->es, rows, bytes) || (b0 < b && p->ext[b] % (16 / p->es) != 0))
        return 0;
    route t = *r;
    plan_rows(p, &t, b0);
    plan_cols(p, &t, XP_PERM_BAND_COL_BYTES);
    if ((b0 == b && t.cols.rank == 1) || t.c.s.cols * p->es < XP_PERM_COL_BYTES)
        return 0;
    t.banded = 1;
    *r = t;
    return 1;
}

/* dst: the destination, or NULL for one that starts on a cache line (describe). */
static void plan_route(const xp_perm *p, const void *dst, route *r)
{
    memset(r, 0, sizeof *r);
    const int b = p->rank - 1;
    int a = -1;
    for (int k = 0; k < p->rank && a != b; k++)
        if (p->ss[k] == 1)
            a = k;
    r->b = r->b0 = b;
    r->a = a;
    r->c.s.es = p->es;
    if (p->ds[b] == 1 && a == b) {
        r->kind = ROUTE_ROWS;
        /* Runs of whole lines into a destination on a line: in source order too. In destination order runs of 256
         * bytes lie 128 KiB apart in the source (512x512x64 (1,0,2)), each too short for the prefetchers; in source
         * order the source is read as one stream while every run still streams whole lines wherever it lands
         * (docs/tuning.md, "permute: copied runs in source order"). Off the line, each line shared by two runs would be
         * written in two pieces far apart in time. */
        r->by_source = (uintptr_t)dst % XPF_LINE == 0 && line_rows(p, b, b, p->ext[b]);
        r->a = -1;
        r->c.s.rows = 1;
        r->c.s.cols = r->c.s.lds = p->ext[b];
        r->c.s.ldd = 1;
    } else if (p->ds[b] == 1 && a >= 0 && a != b && p->ss[b] >= 0) {
        r->kind = ROUTE_TILES;
        r->c.s.rows = p->ext[b];
        r->c.s.cols = p->ext[a];
        r->c.s.lds = (size_t)p->ss[b];
        r->c.s.ldd = (size_t)p->ds[a];
        if (!plan_band_tile(p, r))
            plan_tile(p, r);
    } else {
        r->kind = ROUTE_ELEMS;
        r->a = elems_dim(p, b);
    }
    r->tile |= (r->a >= 0 ? 1u << r->a : 0) | 1u << b;
    outer_grid(p, r->tile, r->by_source, &r->g);
    r->g.banded = r->banded;
    if (r->by_source && r->b0 == b && r->c.s.rows * p->es == XPF_LINE)
        r->paired = pair_lines(&r->g, XPF_LINE);
    if (r->kind == ROUTE_ROWS && !r->by_source)
        r->block = block_runs(&r->g, p->ext[b] * p->es);
    if (r->b0 < b)
        r->g.rows = &r->rows;
    if (r->cols.rank > 1)
        r->g.cols = &r->cols;
    r->c.s.batch = grid_count(&r->g);
}

/* The element loop: ni x nj elements, i and j steps in bytes, any sign; memcpy of a constant size is one move. */
#define XP_ELEMS_(N, T)                                                                                                \
    static void elems_##N(const unsigned char *s, int64_t si, int64_t sj, unsigned char *d, int64_t di, int64_t dj,    \
                          size_t ni, size_t nj)                                                                        \
    {                                                                                                                  \
        for (size_t i = 0; i < ni; i++, s += si, d += di)                                                              \
            for (size_t j = 0; j < nj; j++)                                                                            \
                memcpy(d + (int64_t)j * dj, s + (int64_t)j * sj, sizeof(T));                                           \
    }
XP_FOR_EACH_ELEM(XP_ELEMS_)

typedef void (*elems_fn)(const unsigned char *s, int64_t si, int64_t sj, unsigned char *d, int64_t di, int64_t dj,
                         size_t ni, size_t nj);

#define XP_ELEMS_TILE 64 /* elements along each side of a block: 64 x 64 x 16 bytes at most, in L1 and L2 */

/* Block t of the element loop: member t / per of the grid, then blocks of dimension a (i), then of b (j). */
static void elems_block(const xp_perm *p, const route *r, elems_fn fn, const unsigned char *src, unsigned char *dst,
                        size_t t)
{
    const int64_t es = (int64_t)p->es;
    const size_t na = r->a >= 0 ? p->ext[r->a] : 1, nb = p->ext[r->b];
    const size_t ta = (na + XP_ELEMS_TILE - 1) / XP_ELEMS_TILE, tb = (nb + XP_ELEMS_TILE - 1) / XP_ELEMS_TILE;
    const size_t m = t / (ta * tb), i0 = t / tb % ta * XP_ELEMS_TILE, j0 = t % tb * XP_ELEMS_TILE;
    const int64_t sa = r->a >= 0 ? p->ss[r->a] * es : 0, da = r->a >= 0 ? p->ds[r->a] * es : 0;
    const int64_t sb = p->ss[r->b] * es, db = p->ds[r->b] * es;
    xp_fast_grid_pos pos;
    xp_fast_grid_seek(&r->g, m, &pos);
    const int64_t os = pos.os + (int64_t)i0 * sa + (int64_t)j0 * sb, od = pos.od + (int64_t)i0 * da + (int64_t)j0 * db;
    fn(src + os, sa, sb, dst + od, da, db, na - i0 < XP_ELEMS_TILE ? na - i0 : XP_ELEMS_TILE,
       nb - j0 < XP_ELEMS_TILE ? nb - j0 : XP_ELEMS_TILE);
}

static void run_elems(const xp_perm *p, const route *r, const void *src, void *dst)
{
    static const elems_fn fns[5] = {elems_1, elems_2, elems_4, elems_8, elems_16};
    const elems_fn fn = fns[xp_elem_index(p->es)];
    const size_t na = r->a >= 0 ? p->ext[r->a] : 1, nb = p->ext[r->b];
    const long long blocks = (long long)(r->c.s.batch * ((na + XP_ELEMS_TILE - 1) / XP_ELEMS_TILE) *
                                         ((nb + XP_ELEMS_TILE - 1) / XP_ELEMS_TILE));
    const int serial = p->count * p->es < XP_CPU_SERIAL_BYTES || blocks == 1;
#pragma omp parallel for schedule(dynamic, 16) num_threads(xpose_get_threads()) if (!serial)
    for (long long t = 0; t < blocks; t++)
        elems_block(p, r, fn, src, dst, (size_t)t);
}

int xp_cpu_permute(const xp_perm *p, const void *src, void *dst)
{
    route r;
    plan_route(p, dst, &r);
    if (r.kind == ROUTE_ELEMS) {
        run_elems(p, &r, src, dst);
        return XPOSE_OK;
    }
    r.c.src = src;
    r.c.dst = dst;
    return xp_cpu_fast_grid(&r.c, &r.g);
}

int xp_cpu_permute_describe(const xp_perm *p, char *buf, size_t size)
{
    route r;
    plan_route(p, NULL, &r);
    char fast[96];
    if (r.kind != ROUTE_ELEMS)
        xp_cpu_fast_describe(&r.c, &r.g, fast, sizeof fast);
    switch (r.kind) {
    case ROUTE_ROWS:
        if (r.block > 1)
            return snprintf(buf, size, "rows/cpu-fast/%zu runs of %zu elements, in blocks of %zu (%s)", r.c.s.batch,
                            r.c.s.cols, r.block, fast);
        return snprintf(buf, size, "rows/cpu-fast/%zu runs of %zu elements%s (%s)", r.c.s.batch, r.c.s.cols,
                        r.by_source ? ", in source order" : "", fast);
    case ROUTE_TILES: {
        /* The tile's column dimensions (slowest first, source-contiguous) and row dimensions (b0..b). */
        const char *order = r.paired      ? ", members in source order, lines paired"
                            : r.by_source ? ", members in source order"
                                          : "";
        char cols[64] = "";
        size_t len = 0;
        for (int k = 0; k < p->rank && len < sizeof cols; k++)
            if ((r.tile >> k & 1u) && (k < r.b0 || k > r.b))
                len += (size_t)snprintf(cols + len, sizeof cols - len, "%s%d", len ? "," : "", k);
        if (r.b0 < r.b)
            return snprintf(buf, size, "tiles/cpu-fast/%zux%zu x%zu, dims %d-%d x %s%s (%s)", r.c.s.rows, r.c.s.cols,
                            r.c.s.batch, r.b0, r.b, cols, order, fast);
        return snprintf(buf, size, "tiles/cpu-fast/%zux%zu x%zu, dims %d x %s%s (%s)", r.c.s.rows, r.c.s.cols,
                        r.c.s.batch, r.b, cols, order, fast);
    }
    default:
        return snprintf(buf, size, "elements/strided loop/%dx%d blocks over dims %d x %d", XP_ELEMS_TILE,
                        r.a >= 0 ? XP_ELEMS_TILE : 1, r.a, r.b);
    }
}

int xp_cpu_shape_describe(const xp_shape *s, char *buf, size_t size)
{
    xp_call c;
    memset(&c, 0, sizeof c);
    c.s = *s;
    return xp_cpu_fast_describe(&c, NULL, buf, size);
}
