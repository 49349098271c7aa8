/* cpu_inplace.c: the CPU in-place transposes of square matrices (tile pairs swapped across the diagonal) and the
 * cycle-following baseline. */
#include <string.h>
#include "cpu_fast.h"
#include "cpu_inplace.h"

int xp_cpu_inplace_threads(size_t bytes) { return bytes < XP_CPU_SERIAL_BYTES ? 1 : xpose_get_threads(); }

/* The baseline of the lab: each cycle of the permutation moved once, element by element. Element l = i * cols + j
 * belongs at j * rows + i = l * rows mod (n - 1); position x takes the element at x * cols mod (n - 1). A cycle is
 * moved from its smallest position, found by walking the cycle from each start until a smaller one turns up (the
 * classic leader test: no workspace, some log n steps a start on average). */
static size_t next_pos(size_t x, size_t mul, size_t mod, int wide)
{
#if defined(__SIZEOF_INT128__)
    if (wide)
        return (size_t)((unsigned __int128)x * mul % mod);
#endif
    (void)wide;
    return x * mul % mod;
}

#define XP_NAIVE_IP_(N, T)                                                                                             \
    static void naive_ip_##N(T *a, size_t rows, size_t cols, int wide)                                                 \
    {                                                                                                                  \
        const size_t n = rows * cols, mod = n - 1;                                                                     \
        for (size_t s = 1; s + 1 < n; s++) {                                                                           \
            size_t x = next_pos(s, cols, mod, wide);                                                                   \
            while (x > s)                                                                                              \
                x = next_pos(x, cols, mod, wide);                                                                      \
            if (x < s)                                                                                                 \
                continue; /* not the cycle's smallest position */                                                      \
            T keep = a[s];                                                                                             \
            for (x = s;;) {                                                                                            \
                size_t y = next_pos(x, cols, mod, wide);                                                               \
                if (y == s) {                                                                                          \
                    a[x] = keep;                                                                                       \
                    break;                                                                                             \
                }                                                                                                      \
                a[x] = a[y];                                                                                           \
                x = y;                                                                                                 \
            }                                                                                                          \
        }                                                                                                              \
    }
XP_FOR_EACH_ELEM(XP_NAIVE_IP_)

int xp_cpu_inplace_naive(xp_inplace_call *c)
{
    if (c->query || c->rows == 1 || c->cols == 1)
        return XPOSE_OK;
    const size_t n = c->rows * c->cols, big = c->rows > c->cols ? c->rows : c->cols;
    /* Products x * cols stay under 2^64 where n * max(rows, cols) does; else 128-bit ones. */
    const int wide = n > SIZE_MAX / big;
#if !defined(__SIZEOF_INT128__)
    if (wide)
        return XPOSE_ERR_UNSUPPORTED;
#endif
    for (size_t b = 0; b < c->batch; b++) {
        unsigned char *m = (unsigned char *)c->data + b * n * c->es;
        switch (c->es) {
        case 1: naive_ip_1((uint8_t *)m, c->rows, c->cols, wide); break;
        case 2: naive_ip_2((uint16_t *)m, c->rows, c->cols, wide); break;
        case 4: naive_ip_4((uint32_t *)m, c->rows, c->cols, wide); break;
        case 8: naive_ip_8((uint64_t *)m, c->rows, c->cols, wide); break;
        default: naive_ip_16((xp_e16 *)m, c->rows, c->cols, wide); break;
        }
    }
    return XPOSE_OK;
}

/* The buffer goes back in bands of 32 rows: a region kernel walks a whole column strip of its rows before the next
 * strip, and 1000 rows of lines left L1 between strips (docs/tuning.md, "cpu-inplace: small bands"). */
#define XP_SMALL_BAND 32
#define XP_SQUARE_TILE_BYTES (128 * 128 * 2) /* the largest square tile (square_tile) */
#define XP_SQUARE_PAGE 4096                  /* byte pitches of whole pages: square_pair_staged */

void xp_cpu_inplace_small(size_t rows, size_t cols, size_t es, unsigned char *m, unsigned char *buf)
{
    const xp_fast_region_fn region = xp_fast_pick_isa()->region[0][xp_elem_index(es)];
    const size_t band = XP_SMALL_BAND;
    memcpy(buf, m, rows * cols * es);
    for (size_t i = 0; i < rows; i += band)
        region(buf + i * cols * es, cols * es, rows - i < band ? rows - i : band, cols, m + i * es, rows * es);
}

/* Square tiles of 16-32 KiB, rows of 256 bytes (bytes: 128, c128: 512): a pair and the thread's buffer stay in L1 and
 * L2 while they are swapped, and each row's run is long enough for the prefetchers (docs/tuning.md, "cpu-inplace:
 * square tiles"). */
static size_t square_tile(size_t es) { return es <= 2 ? 128 : es == 4 ? 64 : 32; }

/* Read prefetches into L2 of the n bytes from p (an integer: the next pair may lie past the matrix). */
static void ask_row(uintptr_t p, size_t n)
{
    for (size_t k = 0; k < n; k += 64)
        __builtin_prefetch((const void *)(p + k), 0, 2);
}

/* A staged tile row copied back: with streaming stores where it is whole lines (the lines were read for the pair, but
 * its 128 rows share a few L2 sets and left it, so ordinary stores read each line again: "cpu-inplace: staged byte
 * pairs"). */
static void copy_back(xp_stream_lines_fn lines, unsigned char *d, const unsigned char *s, size_t n)
{
    if (lines && ((uintptr_t)d | n) % XPF_LINE == 0)
        lines(d, s, n);
    else
        memcpy(d, s, n);
}

/* Pair (I, J) through the thread's three buffers: both tiles copied out row by row (asking along the way for the next
 * pair's rows, a few lines each far apart, which the core's prefetchers do not guess), each transposed in the buffers
 * and copied back row by row into the other's place: the matrix is touched in whole tile rows only. */
static void square_pair_staged(unsigned char *m, size_t n, size_t ld, size_t es, size_t t, size_t i0, size_t j0,
                               xp_fast_region_fn region, xp_stream_lines_fn lines, unsigned char *buf)
{
    const size_t h = n - i0 < t ? n - i0 : t, w = n - j0 < t ? n - j0 : t;
    const size_t j1 = j0 + t, w1 = j1 < n ? (n - j1 < t ? n - j1 : t) : 0;
    unsigned char *a = m + i0 * ld + j0 * es, *b = m + j0 * ld + i0 * es; /* tiles (I, J): h x w, (J, I): w x h */
    unsigned char *ba = buf, *bb = buf + XP_SQUARE_TILE_BYTES, *bt = buf + 2 * XP_SQUARE_TILE_BYTES;
    for (size_t r = 0; r < w || r < h; r++) {
        if (r < h && w1)
            ask_row((uintptr_t)a + r * ld + t * es, w1 * es);
        if (r < w1)
            ask_row((uintptr_t)m + (j1 + r) * ld + i0 * es, h * es);
        if (r < h)
            memcpy(ba + r * w * es, a + r * ld, w * es);
        if (r < w && j0 != i0)
            memcpy(bb + r * h * es, b + r * ld, h * es);
    }
    if (j0 != i0) {
        region(bb, h * es, w, h, bt, w * es); /* h x w, for a */
        for (size_t r = 0; r < h; r++)
            copy_back(lines, a + r * ld, bt + r * w * es, w * es);
    }
    region(ba, w * es, h, w, bt, h * es); /* w x h, for b */
    for (size_t r = 0; r < w; r++)
        copy_back(lines, b + r * ld, bt + r * h * es, h * es);
}

/* Swaps tile row I's pairs (I, J), J >= I, of one n x n matrix (rows ld bytes apart): tile (J, I) aside into buf, tile
 * (I, J) transposed into its place, then buf transposed into (I, J). Each element is read and written back once.
 * Bytes on pitches of whole 4 KiB pages go through square_pair_staged: a tile's rows then share one L1 set, and the
 * region kernel, which reads and writes them 16 bytes at a time, took each line again from L2 or further. */
static void square_row(unsigned char *m, size_t n, size_t ld, size_t es, size_t t, size_t I, xp_fast_region_fn region,
                       unsigned char *buf)
{
    const size_t i0 = I * t, h = n - i0 < t ? n - i0 : t;
    const int staged = es == 1 && ld % XP_SQUARE_PAGE == 0;
    const xp_stream_lines_fn lines = staged ? xp_stream_lines_pick() : NULL;
    for (size_t j0 = i0; j0 < n; j0 += t) {
        if (staged) {
            square_pair_staged(m, n, ld, es, t, i0, j0, region, lines, buf);
            continue;
        }
        const size_t w = n - j0 < t ? n - j0 : t;
        unsigned char *a = m + i0 * ld + j0 * es, *b = m + j0 * ld + i0 * es; /* tiles (I, J): h x w, (J, I): w x h */
        for (size_t r = 0; r < w; r++)
            memcpy(buf + r * h * es, b + r * ld, h * es);
        if (j0 != i0)
            region(a, ld, h, w, b, ld);
        region(buf, h * es, w, h, a, ld);
    }
    if (lines)
        xp_stream_fence(); /* the streaming stores seen before any later read, by this thread or another */
}

int xp_cpu_inplace_square(xp_inplace_call *c)
{
    if (c->rows != c->cols && c->rows != 1 && c->cols != 1)
        return XPOSE_ERR_UNSUPPORTED;
    if (c->query || c->rows == 1 || c->cols == 1)
        return XPOSE_OK;
    const size_t n = c->rows, es = c->es, t = square_tile(es), tiles = (n + t - 1) / t;
    const xp_fast_region_fn region = xp_fast_pick_isa()->region[0][xp_elem_index(es)];
    unsigned char *data = c->data;
    const long long jobs = (long long)(c->batch * tiles);
    const int threads = xp_cpu_inplace_threads(c->batch * n * n * es);
    /* Tile row I holds tiles - I pairs: handed out one row at a time, as threads come free. */
#pragma omp parallel num_threads(threads) if (threads > 1 && jobs > 1)
    {
        _Alignas(64) unsigned char buf[3 * XP_SQUARE_TILE_BYTES];
#pragma omp for schedule(dynamic, 1)
        for (long long k = 0; k < jobs; k++)
            square_row(data + (size_t)(k / (long long)tiles) * n * n * es, n, n * es, es, t,
                       (size_t)(k % (long long)tiles), region, buf);
    }
    return XPOSE_OK;
}

size_t xp_cpu_square_tiles(size_t n, size_t es) { return (n + square_tile(es) - 1) / square_tile(es); }

void xp_cpu_square_tile_row(unsigned char *m, size_t n, size_t ld, size_t es, size_t I)
{
    _Alignas(64) unsigned char buf[3 * XP_SQUARE_TILE_BYTES];
    square_row(m, n, ld, es, square_tile(es), I, xp_fast_pick_isa()->region[0][xp_elem_index(es)], buf);
}
