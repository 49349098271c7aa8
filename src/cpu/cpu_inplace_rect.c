/* cpu_inplace_rect.c: the CPU in-place transpose of rectangular matrices: the passes of xp_inplace_math.h, each
 * group (a row, or a strip of columns) permuted through a thread's buffer of at most XP_INPLACE_SLICE bytes. */
#include <string.h>
#include "../core/xp_inplace_math.h"
#include "cpu_inplace.h"

/* One call's plan: the decomposition, the buffers, the threads. */
typedef struct rect_plan {
    xp_ckg k;
    size_t es, member; /* element and matrix bytes */
    size_t slice;      /* a thread's buffer: min(XP_INPLACE_SLICE, member), a multiple of 64 */
    size_t shared;     /* the long-row buffer for groups a slice cannot hold: 0, or max(rows, cols) * es */
    int threads;
    int form;     /* xp_ckg_plan's form (the variant's p0) */
    size_t tile;  /* the tile form's gcd(rows, cols) (fast_forms), else 0 */
    size_t block; /* the block form's w (fast_forms), else 0 */
    size_t bits;  /* its bitmap's bytes, at the start of slice 0 */
} rect_plan;

/* x rounded up to whole 64-byte lines; the bytes of a bitmap of n bits (a chunk each), so rounded. */
static size_t line_up(size_t x) { return (x + 63) & ~(size_t)63; }
static size_t bitmap_bytes(size_t n) { return line_up((n + 7) / 8); }

/* The tile form, for matrices whose gcd(rows, cols) = g makes chunks of g elements worth moving whole (at least
 * XP_TILE_CHUNK bytes): each g x g block transposed in place by the square tile swap, then the g-element chunks
 * permuted to their places by following the permutation's cycles, whole chunks a move. Two passes, each as fast as the
 * square transpose or a copy, against the decomposition's two or three strided ones. Each thread's bitmap (a bit a
 * chunk) and a chunk's room fit its slice, so the workspace is the decomposition's. */
#define XP_TILE_CHUNK 256

/* The block form, for matrices whose long side splits into blocks of w elements (w a power of two, w elements whole
 * lines of at least XP_TILE_CHUNK bytes) where the tile form does not apply (32768 x 1000: gcd 8): the matrix, tall,
 * is a stack of w x C blocks, each contiguous; each is transposed through a thread's slice (cpu-fast's kernels), and
 * the w-element chunks are then permuted, the transpose of a (R / w) x C matrix of chunks, by the tile form's cycle
 * following. A wide matrix takes the two passes undone: the chunks, then the R x w blocks. The largest w whose block
 * fits half a slice (docs/tuning.md, "cpu-inplace: block form"). */
/* The tile form's g or the block form's w for a rows x cols matrix past a slice of `slice` bytes (0: the form does
 * not apply), and the bytes of its bitmap. */
static void fast_forms(size_t rows, size_t cols, size_t es, size_t slice, size_t *tile, size_t *block, size_t *bits)
{
    const size_t g = xp_gcd(rows, cols), lng = rows > cols ? rows : cols, shrt = rows + cols - lng;
    size_t n = rows / g * cols;
    *tile = *block = 0;
    *bits = bitmap_bytes(n);
    if (g * es >= XP_TILE_CHUNK && *bits + g * es <= slice && n <= UINT32_MAX) {
        *tile = g;
        return;
    }
    size_t w = lng & (~lng + 1);               /* the largest power of two dividing the long side, */
    while (w > 1 && w * shrt * es > slice / 2) /* and whose block fits half a slice */
        w /= 2;
    n = lng / w * shrt;
    *bits = bitmap_bytes(n);
    if (w * es >= XP_TILE_CHUNK && w * shrt * es <= slice / 2 && *bits + w * es <= slice && n <= UINT32_MAX)
        *block = w;
}

/* A thread's slice for a matrix of `member` bytes. */
static size_t slice_of(size_t member) { return line_up(member < XP_INPLACE_SLICE ? member : XP_INPLACE_SLICE); }

static void plan(const xp_inplace_call *c, rect_plan *p)
{
    memset(p, 0, sizeof *p);
    p->form = c->p0;
    p->k = xp_ckg_plan(c->rows, c->cols, p->form);
    p->es = c->es;
    p->member = c->rows * c->cols * c->es;
    p->slice = slice_of(p->member);
    const size_t longest = (c->rows > c->cols ? c->rows : c->cols) * c->es;
    p->shared = longest > p->slice ? longest : 0;
    p->threads = xp_cpu_inplace_threads(c->batch * p->member);
    if (p->form == XP_CKG_AUTO && p->member > p->slice)
        fast_forms(c->rows, c->cols, c->es, p->slice, &p->tile, &p->block, &p->bits);
}

/* Where a column pass puts element (i, j) of the strip in the buffer, and which buffer row becomes matrix row i: the
 * passes' column functions split so that every random access is a store into the buffer (while the strip is loaded)
 * and every load back is a whole row of the strip (docs/variants.md). g: the buffer row for element (i, j); h(i): the
 * buffer row stored back into row i. Rotation, gather: g = i - j/b, h = i; scatter: g = i + j/b, h = i. Permutation,
 * gather: g = i - j mod R, h = p(i); scatter: g = p(i) + j mod R, h = i (all mod R). */
typedef struct col_walk {
    size_t R, C, a, b;
    int fn, gather;
    size_t i, pc, ia, acnt, cm; /* row i; i * C mod R, i / a and i mod a (the permutation's p(i)) */
} col_walk;

static void walk_start(col_walk *w, const xp_ckg *k, xp_ckg_pass ps, size_t i0)
{
    w->R = k->R, w->C = k->C, w->a = k->a, w->b = k->b;
    w->fn = ps.fn, w->gather = ps.gather;
    w->i = i0;
    w->cm = k->C % k->R;
    w->pc = i0 * k->C % k->R;
    w->ia = i0 / k->a;
    w->acnt = i0 % k->a;
}

static size_t walk_p(const col_walk *w) { return w->pc >= w->ia ? w->pc - w->ia : w->pc + w->R - w->ia; }

static void walk_next(col_walk *w)
{
    w->i++;
    w->pc += w->cm;
    if (w->pc >= w->R)
        w->pc -= w->R;
    if (++w->acnt == w->a)
        w->acnt = 0, w->ia++;
}

/* The buffer row of element (i, j): base - k or base + k (mod R) for gather or scatter, where base is i (or p(i) for
 * the permutation's scatter) and k the column's shift: j / b (rotation) or j mod R (permutation). */
static size_t g_base(const col_walk *w) { return w->fn == XP_CKG_PERM && !w->gather ? walk_p(w) : w->i; }

static size_t g_row(const col_walk *w, size_t base, size_t k)
{
    if (w->gather)
        return base >= k ? base - k : base + w->R - k;
    base += k;
    return base >= w->R ? base - w->R : base;
}

static size_t h_row(const col_walk *w) { return w->fn == XP_CKG_PERM && w->gather ? walk_p(w) : w->i; }

/* Loads rows [i0, i1) of the strip of columns [j0, j0 + sw) of matrix m into buf (pitch sw, at most 64 columns),
 * each element into its buffer row g. Across the strip the shift grows by off[x] (x for the permutation, whose shift is
 * j mod R; (j0 + x) / b - j0 / b for the rotation), so a row's elements go to buffer rows t0 - off[x] (gather) or
 * t0 + off[x] (scatter): one table of index steps a strip, and the wrap past row 0 or R - 1 is taken element by
 * element only in the rows where it happens. A strip one cache line wide keeps the lines a row touches in L1 for the
 * next rows, which touch the same ones. */
#define XP_COL_AHEAD 24 /* rows prefetched ahead */
#define XP_COL_LOAD_(N, T)                                                                                             \
    static void col_load_##N(const xp_ckg *k, xp_ckg_pass ps, const T *m, T *buf, size_t i0, size_t i1, size_t j0,     \
                             size_t sw)                                                                                \
    {                                                                                                                  \
        col_walk w;                                                                                                    \
        walk_start(&w, k, ps, i0);                                                                                     \
        const size_t R = k->R, rot = ps.fn == XP_CKG_ROT, k0 = rot ? j0 / k->b : j0 % R;                               \
        size_t off[64];                                                                                                \
        ptrdiff_t idx[64];                                                                                             \
        for (size_t x = 0; x < sw; x++) {                                                                              \
            off[x] = rot ? (j0 + x) / k->b - k0 : x;                                                                   \
            idx[x] = (ps.gather ? -(ptrdiff_t)off[x] : (ptrdiff_t)off[x]) * (ptrdiff_t)sw + (ptrdiff_t)x;              \
        }                                                                                                              \
        const size_t top = off[sw - 1];                                                                                \
        for (; w.i < i1; walk_next(&w)) {                                                                              \
            const T *row = m + w.i * k->C + j0;                                                                        \
            if (w.i + XP_COL_AHEAD < i1) /* rows a pitch apart: no hardware prefetcher runs that far ahead */          \
                __builtin_prefetch(row + XP_COL_AHEAD * k->C);                                                         \
            const size_t t0 = g_row(&w, g_base(&w), k0);                                                               \
            if (ps.gather ? t0 >= top : t0 + top < R) {                                                                \
                T *p = buf + t0 * sw;                                                                                  \
                for (size_t x = 0; x < sw; x++)                                                                        \
                    p[idx[x]] = row[x];                                                                                \
            } else {                                                                                                   \
                for (size_t x = 0; x < sw; x++)                                                                        \
                    buf[g_row(&w, t0, off[x] % R) * sw + x] = row[x];                                                  \
            }                                                                                                          \
        }                                                                                                              \
    }
XP_FOR_EACH_ELEM(XP_COL_LOAD_)

/* Stores buffer row h(i) into row i of the strip, for rows [i0, i1). */
static void col_store(const xp_ckg *k, xp_ckg_pass ps, unsigned char *m, const unsigned char *buf, size_t es, size_t i0,
                      size_t i1, size_t j0, size_t sw)
{
    col_walk w;
    walk_start(&w, k, ps, i0);
    for (; w.i < i1; walk_next(&w))
        memcpy(m + (w.i * k->C + j0) * es, buf + h_row(&w) * sw * es, sw * es);
}

static void col_load(const xp_ckg *k, xp_ckg_pass ps, const unsigned char *m, unsigned char *buf, size_t es, size_t i0,
                     size_t i1, size_t j0, size_t sw)
{
    switch (es) {
    case 1: col_load_1(k, ps, m, buf, i0, i1, j0, sw); break;
    case 2: col_load_2(k, ps, (const uint16_t *)m, (uint16_t *)buf, i0, i1, j0, sw); break;
    case 4: col_load_4(k, ps, (const uint32_t *)m, (uint32_t *)buf, i0, i1, j0, sw); break;
    case 8: col_load_8(k, ps, (const uint64_t *)m, (uint64_t *)buf, i0, i1, j0, sw); break;
    default: col_load_16(k, ps, (const xp_e16 *)m, (xp_e16 *)buf, i0, i1, j0, sw); break;
    }
}

/* Columns [j0, j1) of row i: gather row[j] = buf[d(j)], or scatter buf[d(j)] = row[j], where
 * d(j) = (j R mod C + (i + j/b) mod R) mod C. Since b R = a C, j R mod C depends on j mod b alone: over each run of b
 * columns (one j/b) the second term is a constant and the first starts from 0 and steps by R mod C. Where the runs are
 * shorter than their count (b < c), a whole row goes column class by column class instead: for each j mod b, j/b
 * counts up and d with it, by one (mod C), until (i + j/b) wraps at R. */
#define XP_ROW_MOVE_(N, T)                                                                                             \
    static void row_move_##N(const xp_ckg *k, int gather, size_t i, T *row, T *buf, size_t j0, size_t j1)              \
    {                                                                                                                  \
        const size_t C = k->C, R = k->R, b = k->b, rs = R % C;                                                         \
        if (j0 == 0 && j1 == C && b < k->c) {                                                                          \
            for (size_t s = 0, xs = 0; s < b; s++) {                                                                   \
                size_t y = i, d = (xs + i % C) % C; /* q = 0 */                                                        \
                T *r = row + s;                                                                                        \
                for (size_t q = 0; q < k->c; q++, r += b) {                                                            \
                    if (gather)                                                                                        \
                        *r = buf[d];                                                                                   \
                    else                                                                                               \
                        buf[d] = *r;                                                                                   \
                    if (++y == R) /* (i + q) mod R wraps: d restarts from j R mod C */                                 \
                        y = 0, d = xs;                                                                                 \
                    else if (++d == C)                                                                                 \
                        d = 0;                                                                                         \
                }                                                                                                      \
                xs += rs;                                                                                              \
                xs = xs >= C ? xs - C : xs;                                                                            \
            }                                                                                                          \
            return;                                                                                                    \
        }                                                                                                              \
        size_t s = j0 % b, x = s * R % C;                                                                              \
        size_t y = i + j0 / b; /* j0 / b < c <= R */                                                                   \
        y = y >= R ? y - R : y;                                                                                        \
        size_t ym = y % C; /* y mod C, walked with y */                                                                \
        for (size_t j = j0; j < j1; s = 0, x = 0) {                                                                    \
            const size_t n = b - s < j1 - j ? b - s : j1 - j;                                                          \
            if (gather)                                                                                                \
                for (size_t e = 0; e < n; e++) {                                                                       \
                    size_t d = x + ym;                                                                                 \
                    row[j + e] = buf[d >= C ? d - C : d];                                                              \
                    x += rs;                                                                                           \
                    x = x >= C ? x - C : x;                                                                            \
                }                                                                                                      \
            else                                                                                                       \
                for (size_t e = 0; e < n; e++) {                                                                       \
                    size_t d = x + ym;                                                                                 \
                    buf[d >= C ? d - C : d] = row[j + e];                                                              \
                    x += rs;                                                                                           \
                    x = x >= C ? x - C : x;                                                                            \
                }                                                                                                      \
            j += n;                                                                                                    \
            if (++y == R)                                                                                              \
                y = 0, ym = 0;                                                                                         \
            else if (++ym == C)                                                                                        \
                ym = 0;                                                                                                \
        }                                                                                                              \
    }
XP_FOR_EACH_ELEM(XP_ROW_MOVE_)

static void row_move(const xp_ckg *k, int gather, size_t es, size_t i, unsigned char *row, unsigned char *buf,
                     size_t j0, size_t j1)
{
    switch (es) {
    case 1: row_move_1(k, gather, i, row, buf, j0, j1); break;
    case 2: row_move_2(k, gather, i, (uint16_t *)row, (uint16_t *)buf, j0, j1); break;
    case 4: row_move_4(k, gather, i, (uint32_t *)row, (uint32_t *)buf, j0, j1); break;
    case 8: row_move_8(k, gather, i, (uint64_t *)row, (uint64_t *)buf, j0, j1); break;
    default: row_move_16(k, gather, i, (xp_e16 *)row, (xp_e16 *)buf, j0, j1); break;
    }
}

/* One row through a thread's buffer. */
static void row_whole(const xp_ckg *k, int gather, size_t es, size_t i, unsigned char *row, unsigned char *buf)
{
    const size_t bytes = k->C * es;
    if (gather)
        memcpy(buf, row, bytes);
    row_move(k, gather, es, i, row, buf, 0, k->C);
    if (!gather)
        memcpy(row, buf, bytes);
}

/* A row pass over matrix m: rows through the threads' slices, or, where a row is longer than a slice, one row at a
 * time through the shared buffer, its columns split between the threads. */
static void row_pass(const rect_plan *p, xp_ckg_pass ps, unsigned char *m, unsigned char *ws, int nt)
{
    const xp_ckg *k = &p->k;
    const size_t es = p->es, bytes = k->C * es;
    unsigned char *shared = ws + (size_t)nt * p->slice;
    if (bytes <= p->slice) {
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
        for (long long i = 0; i < (long long)k->R; i++)
            row_whole(k, ps.gather, es, (size_t)i, m + (size_t)i * bytes, ws + (size_t)xp_ip_thread() * p->slice);
        return;
    }
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        size_t lo, hi;
        xp_ip_share(k->C, xp_ip_thread(), nt > 1 ? nt : 1, &lo, &hi);
        for (size_t i = 0; i < k->R; i++) {
            unsigned char *row = m + i * bytes;
            if (ps.gather)
                memcpy(shared + lo * es, row + lo * es, (hi - lo) * es);
#pragma omp barrier
            row_move(k, ps.gather, es, i, row, shared, lo, hi);
#pragma omp barrier
            if (!ps.gather)
                memcpy(row + lo * es, shared + lo * es, (hi - lo) * es);
#pragma omp barrier
        }
    }
}

/* A column pass over matrix m: strips of columns as wide as a slice holds (whole cache lines where it holds more than
 * one), at least one per thread; or, where one column is longer than a slice, one column at a time through the shared
 * buffer, its rows split between the threads. */
static void col_pass(const rect_plan *p, xp_ckg_pass ps, unsigned char *m, unsigned char *ws, int nt)
{
    const xp_ckg *k = &p->k;
    const size_t es = p->es, col_bytes = k->R * es, line = 64 / es;
    unsigned char *shared = ws + (size_t)nt * p->slice;
    if (col_bytes <= p->slice) {
        size_t sw = p->slice / col_bytes, fair = (k->C + (size_t)nt - 1) / (size_t)nt;
        sw = sw < fair ? sw : fair;
        sw = sw < line ? sw : line;
        const long long strips = (long long)((k->C + sw - 1) / sw);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
        for (long long s = 0; s < strips; s++) {
            const size_t j0 = (size_t)s * sw, w = k->C - j0 < sw ? k->C - j0 : sw;
            unsigned char *buf = ws + (size_t)xp_ip_thread() * p->slice;
            col_load(k, ps, m, buf, es, 0, k->R, j0, w);
            col_store(k, ps, m, buf, es, 0, k->R, j0, w);
        }
        return;
    }
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        size_t lo, hi;
        xp_ip_share(k->R, xp_ip_thread(), nt > 1 ? nt : 1, &lo, &hi);
        for (size_t j = 0; j < k->C; j++) {
            col_load(k, ps, m, shared, es, lo, hi, j, 1);
#pragma omp barrier
            col_store(k, ps, m, shared, es, lo, hi, j, 1);
#pragma omp barrier
        }
    }
}

/* The chunk at position q of the transposed matrix (dims b x g x a: column block J, row y within the block, row block
 * I) comes from position (I, y, J) of the matrix of transposed blocks (dims a x g x b). Chunk numbers are 32-bit
 * (fast_forms), divided by multiply and shift rather than three hardware divisions a step. */
typedef struct chunk_map {
    xp_fdiv a, g;
    size_t b;
} chunk_map;

static size_t chunk_src(const chunk_map *d, size_t q)
{
    const uint32_t t = xp_fdiv_div(d->a, (uint32_t)q);
    if (d->g.d == 1) /* the block form's: a division off each step of the walk, which is a chain of them */
        return (q - (size_t)t * d->a.d) * d->b + t;
    const uint32_t J = xp_fdiv_div(d->g, t);
    const size_t I = q - (size_t)t * d->a.d, y = t - J * d->g.d;
    return (I * d->g.d + y) * d->b + J;
}

/* Thread t's piece of every chunk: [p0, p1), cut on 64-byte steps. */
static void chunk_piece(size_t chunk, int t, int nt, size_t *p0, size_t *p1)
{
    const size_t lines = (chunk + 63) / 64;
    size_t l0, l1;
    xp_ip_share(lines, t, nt, &l0, &l1);
    *p0 = l0 * 64 < chunk ? l0 * 64 : chunk;
    *p1 = l1 * 64 < chunk ? l1 * 64 : chunk;
}

#define XP_CHUNK_RING 32 /* positions of a cycle walked ahead of the moves, at most */

/* Moves bytes [p0, p1) of every chunk of m to their places, cycle by cycle, each from its smallest position (the
 * bitmap marks the positions moved). The positions are walked D ahead of the moves and their
 * pieces prefetched: a chunk's place is random, and a move waited on memory's latency where the copy should wait on
 * its bandwidth (docs/tuning.md, "cpu-inplace: chunk cycles"). */
static void chunk_cycles(const chunk_map *d, size_t n, unsigned char *m, size_t chunk, size_t p0, size_t p1,
                         unsigned char *bits, unsigned char *tmp)
{
    const size_t piece = p1 - p0, ahead = 4096 / (piece ? piece : 1);
    const size_t D = ahead < 2 ? 2 : ahead > XP_CHUNK_RING ? XP_CHUNK_RING : ahead;
    unsigned char *base = m + p0;
    size_t ring[XP_CHUNK_RING];
    if (!piece)
        return;
    memset(bits, 0, (n + 7) / 8);
    for (size_t s = 0; s < n; s++) {
        /* Positions in increasing order: the first one of a cycle met unmarked is its smallest. */
        if (bits[s >> 3] >> (s & 7) & 1 || chunk_src(d, s) == s)
            continue;
        memcpy(tmp, base + s * chunk, piece);
        size_t cur = s, w = s, head = 0, count = 0;
        int end = 0;
        for (;;) {
            while (!end && count < D) { /* walk on: the next positions, their pieces prefetched */
                w = chunk_src(d, w);
                if (w == s) {
                    end = 1;
                    break;
                }
                for (size_t o = 0; o < piece; o += 64)
                    __builtin_prefetch(base + w * chunk + o);
                ring[(head + count++) % XP_CHUNK_RING] = w;
            }
            bits[cur >> 3] |= (unsigned char)(1u << (cur & 7));
            if (!count)
                break;
            const size_t nx = ring[head];
            head = (head + 1) % XP_CHUNK_RING, count--;
            memcpy(base + cur * chunk, base + nx * chunk, piece);
            cur = nx;
        }
        memcpy(base + cur * chunk, tmp, piece);
    }
}

/* The chunk pass of the tile and block forms: the chunks (of `chunk` bytes) of the a x g x b matrix to their places,
 * each thread its piece of every chunk (its bitmap and a piece's room at the start of its slice). */
static void chunk_pass(const rect_plan *p, unsigned char *m, unsigned char *ws, int nt, size_t a, size_t g, size_t b,
                       size_t chunk)
{
    const chunk_map d = {xp_fdiv_make((uint32_t)a), xp_fdiv_make((uint32_t)g), b};
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        const int t = xp_ip_thread();
        size_t p0, p1;
        chunk_piece(chunk, t, nt > 1 ? nt : 1, &p0, &p1);
        unsigned char *bits = ws + (size_t)t * p->slice;
        chunk_cycles(&d, a * g * b, m, chunk, p0, p1, bits, bits + p->bits);
    }
}

static void tile_form(const xp_inplace_call *c, const rect_plan *p, unsigned char *m, unsigned char *ws, int nt)
{
    const size_t g = p->tile, es = c->es, a = c->rows / g, b = c->cols / g, chunk = g * es;
    const size_t tiles = xp_cpu_square_tiles(g, es);
    const long long jobs = (long long)(a * b * tiles);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
    for (long long k = 0; k < jobs; k++) {
        const size_t blk = (size_t)k / tiles, I = blk / b, J = blk % b;
        xp_cpu_square_tile_row(m + (I * g * c->cols + J * g) * es, g, c->cols * es, es, (size_t)k % tiles);
    }
    /* Every thread follows every cycle, each moving its own piece of the chunks: cycles are few and long (32750 x
     * 1000: 18 cycles, the longest 50,446 chunks), so a cycle a thread left one thread moving most of the bytes. */
    chunk_pass(p, m, ws, nt, a, g, b, chunk);
}

static void block_form(const xp_inplace_call *c, const rect_plan *p, unsigned char *m, unsigned char *ws, int nt)
{
    const size_t w = p->block, es = c->es, tall = c->rows > c->cols;
    const size_t R = c->rows, C = c->cols, blocks = (tall ? R : C) / w, bytes = w * (tall ? C : R) * es;
    if (!tall) /* the R x (C / w) chunks transposed: block k, R x w, contiguous */
        chunk_pass(p, m, ws, nt, R, 1, C / w, w * es);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (long long k = 0; k < (long long)blocks; k++)
        xp_cpu_inplace_small(tall ? w : R, tall ? C : w, es, m + (size_t)k * bytes,
                             ws + (size_t)xp_ip_thread() * p->slice);
    if (tall) /* blocks k, C x w, hold rows j of A^T in chunks (k, j): the (R / w) x C chunks transposed */
        chunk_pass(p, m, ws, nt, R / w, 1, C, w * es);
}

/* The widening form, for R x (b R - 1) matrices (4051 x 8101: both sides prime, the two peels and the tile form four
 * passes): one more column makes R x b R, whose tile form has gcd R, so the rows are widened by one element (one
 * copy-like pass; the last row's last R - 1 elements, past the matrix, held at the end of slice 0), and the tile form
 * runs on the R x b R matrix: the square swaps of its blocks, the last one's leading R - 1 rows and columns only, the
 * held row then taken as its last column; then the chunk pass, in which the last chunk (past the matrix) is a fixed
 * point: it would become the added column's transposed row, the result's row past its end. Three passes. A tall
 * (b C - 1) x C matrix takes the same steps undone (the chunks' inverse permutation, the swaps, the rows narrowed by
 * one): it is the result of the wide form on its transpose. Its bitmap, a chunk's room and the held row fit slice 0.
 * Returns 1 (wide), 2 (tall) or 0 (neither). */
static int widen_fits(const xp_inplace_call *c, size_t slice)
{
    const int tall = c->rows > c->cols;
    const size_t s = tall ? c->cols : c->rows, w = (tall ? c->rows : c->cols) + 1, es = c->es;
    const int fits = s >= 2 && w % s == 0 && w / s >= 2 && s * es >= XP_TILE_CHUNK && w <= UINT32_MAX &&
                     bitmap_bytes(w) + 2 * line_up(s * es) <= slice;
    return fits ? 1 + tall : 0;
}

/* The square swaps of the widened s x w matrix's blocks (s x s, rows ld bytes apart), the last one's leading s - 1
 * rows and columns only. */
static void widened_swaps(unsigned char *m, size_t s, size_t w, size_t es, int nt)
{
    const size_t b = w / s, tiles = xp_cpu_square_tiles(s, es), last = xp_cpu_square_tiles(s - 1, es);
    const long long jobs = (long long)((b - 1) * tiles + last);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
    for (long long k = 0; k < jobs; k++) {
        const size_t J = (size_t)k / tiles < b - 1 ? (size_t)k / tiles : b - 1, I = (size_t)k - J * tiles;
        xp_cpu_square_tile_row(m + J * s * es, J < b - 1 ? s : s - 1, w * es, es, I);
    }
}

static void widen_form(const xp_inplace_call *c, const rect_plan *p, unsigned char *m, unsigned char *ws, int nt,
                       int tall)
{
    const size_t s = tall ? c->cols : c->rows, w = (tall ? c->rows : c->cols) + 1, es = c->es, b = w / s, ld = w * es;
    unsigned char *tail = ws + p->slice - line_up(s * es); /* slice 0's end */
    rect_plan q = *p;
    q.bits = bitmap_bytes(w);
    if (!tall) {
        xp_cpu_widen_rows(m, s, w - 1, es, tail, ws, p->slice, nt);
        widened_swaps(m, s, w, es, nt);
        for (size_t i = 0; i + 1 < s; i++) /* the last block's row s - 1 becomes its column s - 1 */
            memcpy(m + i * ld + (w - 1) * es, tail + i * es, es);
        chunk_pass(&q, m, ws, nt, 1, s, b, s * es);
        return;
    }
    chunk_pass(&q, m, ws, nt, b, s, 1, s * es);
    for (size_t i = 0; i + 1 < s; i++)
        memcpy(tail + i * es, m + i * ld + (w - 1) * es, es);
    widened_swaps(m, s, w, es, nt);
    xp_cpu_narrow_rows(m, s, w - 1, es, tail, ws, p->slice, nt);
}

/* Peels: a matrix whose own form is slow (the decomposition's strided column passes) loses its last kc columns and
 * kr rows, each set in one copy-like pass (cpu_inplace_peel.c), so that the rest takes a fast form: the square swap
 * (5741 x 5743: two columns), the tile form (4051 x 8101: a row and a column leave gcd 4050; 4093 x 8191: five
 * columns leave gcd 4093), the block form (32767 x 1000: a row). A peel's elements fit a slice, one set at a time, so
 * the workspace stays the decomposition's. Costs in passes of a copy (docs/tuning.md, "cpu-inplace: peels"): a peel
 * 1, the square 1, the tile and block forms 2, the decomposition 12; the fewest peeled elements among equal costs. */
#define XP_PEEL_BOTH 16 /* rows and columns both peeled: at most this many each (the planner's time) */

typedef struct peel_plan {
    size_t kr, kc;
    int cost;
    int widen; /* widen_form instead of peels: 1 wide, 2 tall */
} peel_plan;

/* The form a rows x cols matrix of the call's elements takes whole (the AUTO form's). */
static int form_of(const xp_inplace_call *c, size_t rows, size_t cols)
{
    if (rows == 1 || cols == 1)
        return XP_IP_VECTOR;
    if (rows == cols)
        return XP_IP_SQUARE;
    const size_t member = rows * cols * c->es, slice = slice_of(member);
    size_t tile, block, bits;
    if (member <= slice)
        return XP_IP_SMALL;
    fast_forms(rows, cols, c->es, slice, &tile, &block, &bits);
    return tile ? XP_IP_TILE : block ? XP_IP_BLOCK : XP_IP_PASSES;
}

/* The cost of the form a rows x cols matrix takes whole. */
static int form_cost(const xp_inplace_call *c, size_t rows, size_t cols)
{
    const int f = form_of(c, rows, cols);
    return f == XP_IP_VECTOR || f == XP_IP_SQUARE ? 1 : f == XP_IP_PASSES ? 12 : 2;
}

static peel_plan pick_peels(const xp_inplace_call *c, const rect_plan *p)
{
    peel_plan best = {0, 0, form_cost(c, c->rows, c->cols), 0};
    if (p->form != XP_CKG_AUTO || best.cost <= 2)
        return best;
    const int widen = widen_fits(c, p->slice);
    if (widen)
        best = (peel_plan){0, 0, 3, widen};
    const size_t R = c->rows, C = c->cols, es = c->es;
    for (size_t kc = 0; kc <= XP_PEEL_MAX && kc < C && kc * R * es <= p->slice; kc++)
        for (size_t kr = 0; kr <= XP_PEEL_MAX && kr < R && kr * (C - kc) * es <= p->slice; kr++) {
            const int peels = (kr > 0) + (kc > 0);
            if (peels == 2 && (kr > XP_PEEL_BOTH || kc > XP_PEEL_BOTH))
                break;
            if (peels + 1 > best.cost || (peels + 1 == best.cost && kr * C + kc * R >= best.kr * C + best.kc * R))
                continue; /* not better even if the rest were a square */
            const int cost = peels + form_cost(c, R - kr, C - kc);
            if (cost < best.cost || (cost == best.cost && kr * C + kc * R < best.kr * C + best.kc * R))
                best = (peel_plan){kr, kc, cost, 0};
        }
    return best;
}

int xp_cpu_inplace_peels(size_t rows, size_t cols, size_t es, size_t *kr, size_t *kc, int *widen)
{
    xp_inplace_call c;
    memset(&c, 0, sizeof c);
    c.rows = rows, c.cols = cols, c.es = es, c.batch = 1;
    rect_plan p;
    plan(&c, &p);
    const peel_plan pp = rows == 1 || cols == 1 || p.member <= p.slice ? (peel_plan){0, 0, 0, 0} : pick_peels(&c, &p);
    *kr = pp.kr, *kc = pp.kc, *widen = pp.widen;
    return pp.widen ? XP_IP_TILE : form_of(&c, rows - pp.kr, cols - pp.kc);
}

/* One matrix m, rows x cols, in its own form: the small path, the square swap, the tile form or the passes. */
static void run_form(const xp_inplace_call *c, size_t rows, size_t cols, unsigned char *m, int nt)
{
    xp_inplace_call in = *c;
    in.rows = rows, in.cols = cols, in.batch = 1, in.data = m;
    if (rows == 1 || cols == 1)
        return;
    if (rows == cols) {
        xp_cpu_inplace_square(&in);
        return;
    }
    rect_plan p;
    plan(&in, &p);
    unsigned char *ws = c->ws;
    if (p.member <= p.slice) {
        xp_cpu_inplace_small(rows, cols, p.es, m, ws);
        return;
    }
    if (p.tile) {
        tile_form(&in, &p, m, ws, nt);
        return;
    }
    if (p.block) {
        block_form(&in, &p, m, ws, nt);
        return;
    }
    xp_ckg_pass passes[3];
    const int np = xp_ckg_passes(&p.k, passes);
    for (int q = 0; q < np; q++) {
        if (passes[q].fn == XP_CKG_SHUF)
            row_pass(&p, passes[q], m, ws, nt);
        else
            col_pass(&p, passes[q], m, ws, nt);
    }
}

int xp_cpu_inplace_rect(xp_inplace_call *c)
{
    rect_plan p;
    plan(c, &p);
    if (c->rows == 1 || c->cols == 1) {
        c->need = c->need_min = 0;
        return XPOSE_OK;
    }
    if (c->query) {
        c->need = (size_t)p.threads * p.slice + p.shared;
        c->need_min = p.slice + p.shared;
        return XPOSE_OK;
    }
    /* As many threads as the workspace has slices for. */
    size_t fit = (c->ws_bytes - p.shared) / p.slice;
    int nt = fit < (size_t)p.threads ? (int)fit : p.threads;
    unsigned char *data = c->data, *ws = c->ws;
    if (p.member <= p.slice) { /* each matrix whole through a slice, the batch over the threads */
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1 && c->batch > 1)
        for (long long b = 0; b < (long long)c->batch; b++)
            xp_cpu_inplace_small(c->rows, c->cols, p.es, data + (size_t)b * p.member,
                                 ws + (size_t)xp_ip_thread() * p.slice);
        return XPOSE_OK;
    }
    const peel_plan pp = pick_peels(c, &p);
    const size_t R = c->rows, C = c->cols, es = c->es;
    for (size_t b = 0; b < c->batch; b++) {
        unsigned char *m = data + b * p.member;
        if (pp.widen) {
            widen_form(c, &p, m, ws, nt, pp.widen == 2);
            continue;
        }
        if (pp.kc)
            xp_cpu_peel_cols(m, R, C, pp.kc, es, ws, p.slice, nt);
        run_form(c, R - pp.kr, C - pp.kc, m, nt);
        if (pp.kr)
            xp_cpu_peel_rows_back(m, R, C - pp.kc, pp.kr, es, ws, p.slice, nt);
    }
    return XPOSE_OK;
}
