/* test_cpu_fast.c: cpu-fast on every path it has (each instruction set, cached and non-temporal stores,
 * stores straight from registers and through the staging buffer, copies) and at every thread count. */
#include <string.h>
#include "testing.h"

static const size_t elem_sizes[] = {1, 2, 4, 8, 16};
static const char *const isas[] = {"scalar", "avx2", "avx512"};
/* The row under test: cpu-fast, or a lab row that fixes the region path's tile height either way. */
static const char *variant = "cpu-fast";

/* Shapes no block divides, each with padded leading dimensions (odd, or a whole line) and batches with gaps,
 * and with pointers a few elements past a 64-byte boundary: aligned to the element, not to 16 bytes (where
 * the element is smaller), nor to a cache line. */
static void layout_grid(size_t scale)
{
    static const size_t sides[][2] = {{1, 7},     {7, 1},   {17, 33}, {64, 64},  {65, 63},
                                      {127, 129}, {200, 3}, {3, 200}, {257, 250}};
    for (size_t e = 0; e < 5; e++)
        for (size_t k = 0; k < sizeof sides / sizeof sides[0]; k++)
            for (unsigned v = 0; v < 4; v++) {
                size_t es = elem_sizes[e], rows = sides[k][0] * scale, cols = sides[k][1] * scale;
                size_t pad = v & 1 ? 64 / es : 3, ldd = rows + (v & 2 ? pad : 0);
                xpose_layout l = {rows, cols, es, cols + (v & 1 ? 5 : pad), ldd, v == 3 ? 2 : 1, 0, 0};
                if (l.batch > 1) {
                    l.stride_src = rows * l.ld_src + 7;
                    l.stride_dst = cols * ldd + (k & 1 ? 64 / es : 1);
                }
                unsigned seed = (unsigned)(scale * 1000 + e * 100 + k * 4 + v);
                CHECK(t_check_variant(&t_host_mem, variant, &l, seed, es * (1 + v), es * (1 + k % 5)) == 1,
                      "grid %zux%zu es %zu variant %u", rows, cols, es, v);
            }
}

/* Shapes that take particular routes: one row or column (a copy when contiguous, a gather when not), rows
 * whose destination lines all share one phase (stored from registers) or not (staged), and sizes past the
 * non-temporal threshold, including a power-of-two leading dimension and strided columns, and source pitches of 4
 * and 8 KiB with rows and columns short of whole blocks (2-byte strips copied to a buffer first, 1- and 4-byte
 * whole-line blocks: XPF_ALIAS_PITCH), narrow matrices (rows of 2-8 elements: cpu_fast_narrow.c; 1- and 2-byte rows
 * under a line: padded blocks) and wide ones (2 to a line's worth of rows; 1- and 2-byte: sub-bands). AVX2's streamed bytes, and 2- to 8-byte elements on destination pitches of whole pages (and some on source
 * pages), take bands (run_bands): tiles of 1024 bytes of rows (3000 x 2999: three, rows off line phase), two strips
 * (4500 columns), columns and rows short of a block. */
static void special_shapes(void)
{
    static const struct {
        size_t rows, cols, ld_src, ld_dst, batch;
    } cases[] = {
        {1, 5000, 0, 0, 1},
        {5000, 1, 0, 0, 1},
        {1, 3000, 0, 3, 1},
        {3000, 1, 7, 0, 1},
        {1, 70000, 0, 0, 3},
        {70000, 1, 0, 0, 2},
        {640, 640, 0, 0, 1},
        {640, 640, 0, 650, 1},
        {333, 1024, 1030, 0, 2},
        {1000, 999, 0, 0, 1},
        {2, 40000, 0, 0, 1},
        {40000, 2, 0, 0, 1},
        {8192, 64, 0, 0, 1},
        {64, 8192, 0, 0, 1},
        {3000, 2999, 0, 0, 1},
        {2047, 1025, 2050, 2049, 1},
        {1500, 700, 0, 2048, 1}, /* AVX2 bands of 2- to 8-byte elements: destination pitches of whole pages */
        {600, 1100, 1200, 1024, 2},
        {1000, 4000, 4096, 1024, 1},
        {300, 4100, 8192, 320, 2},
        {700, 3000, 4096, 701, 1}, /* staged: tall strips (AVX2: bands on source pages) */
        {260, 2100, 16384, 0, 1},  /* AVX2 4-byte bands: 16 rows of a tile in one L2 set */
        /* 4-byte whole-line blocks (4 KiB-multiple pitches): columns past the last 16, cached and streaming stores */
        {333, 1028, 2048, 336, 1},
        {150, 200, 1024, 0, 1},
        /* 1-byte whole-line blocks (4 KiB-multiple pitches, AVX-512): rows and columns past the last 64, tiles
         * down the rows and across, cached stores, then a batch streamed */
        {200, 900, 4096, 256, 1},
        {130, 4200, 8192, 192, 3},
        {777, 1500, 0, 832, 1}, /* staged on whole-line pitches (AVX2 bytes): tiles start on lines, none re-read */
        /* AVX2 2-byte block pairs: whole destination lines, rows past the last pair (1010 = 31 * 32 + 18) */
        {1010, 700, 0, 1056, 2},
        /* gathers of one strided column past the non-temporal threshold (16-byte elements: whole blocks) */
        {20000, 1, 2, 0, 1},
        {9001, 1, 3, 0, 3},
        /* narrow: rows of 2-8 elements through the narrow kernels (chunks and tiles cut mid-way, padded destination
         * rows, batches; a padded source takes the other routes) */
        {70001, 2, 0, 0, 1},
        {50000, 3, 0, 0, 1},
        {9000, 4, 0, 0, 2},
        {3000, 3, 0, 3001, 1},
        {1025, 3, 0, 0, 3},
        {20001, 5, 0, 0, 1},
        {9000, 8, 0, 0, 2},
        {5003, 6, 0, 5010, 1},
        {7001, 7, 9, 0, 1},
        /* wide: 2-8 rows interleaved into a dense destination through the same loops (chunks and tiles cut mid-way, a
         * padded source, batches; a padded destination takes the other routes) */
        {2, 70001, 0, 0, 1},
        {3, 50000, 0, 0, 1},
        {4, 9000, 0, 0, 2},
        {3, 3000, 3001, 0, 1},
        {3, 1025, 0, 0, 3},
        {3, 5000, 0, 4, 1},
        /* and rows of a SIMD block (8 floats) to a line's worth, through the region kernel (a line or more: the other
         * routes) */
        {5, 9001, 0, 0, 1},
        {8, 5000, 0, 0, 2},
        {13, 3001, 3010, 0, 1},
        {40, 1500, 0, 0, 1},
        /* 1- and 2-byte narrow rows padded into the next row's (AVX2 5-7 elements, any set 9 to a line's worth not
         * whole blocks): chunks and tiles cut mid-way, the member's last rows element by element, batches */
        {12000, 5, 0, 0, 1},
        {3001, 7, 0, 3010, 1},
        {20003, 9, 0, 0, 1},
        {9001, 12, 0, 0, 2},
        {4097, 24, 0, 0, 3},
        {2049, 31, 0, 0, 1},
        {5000, 63, 0, 0, 1},
        /* and wide ones of 9 rows to a line's worth, not whole blocks of rows, through sub-bands (AVX2): columns
         * past the last 32, a padded source, batches */
        {9, 20003, 0, 0, 1},
        {12, 9001, 0, 0, 2},
        {17, 2000, 0, 0, 3},
        {24, 5001, 0, 0, 1},
        {31, 4100, 4110, 0, 1},
        {48, 3001, 0, 0, 1},
        {63, 2050, 0, 0, 1},
        /* wide past a line, under 256 bytes and not whole lines (c128 7, doubles 20, floats 20 and 60, 72 and 100
         * bytes, u16 200 bytes): the region kernel or sub-bands, chunks of the rows rounded up to lines */
        {7, 20001, 0, 0, 2},
        {20, 7000, 0, 0, 1},
        {60, 3001, 3010, 0, 1},
        {72, 5000, 0, 0, 1},
        {100, 3001, 0, 0, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t e = 0; e < 5; e++) {
            size_t es = elem_sizes[e];
            xpose_layout l = {cases[c].rows, cases[c].cols, es, cases[c].ld_src, cases[c].ld_dst, cases[c].batch, 0, 0};
            /* dst at a line boundary, then one element past it: both the shifted and the unshifted tiles. */
            for (size_t off = 0; off <= es; off += es)
                CHECK(t_check_variant(&t_host_mem, variant, &l, (unsigned)(c * 7 + e), es * (c % 3), off) == 1,
                      "case %zu: %zux%zu es %zu dst offset %zu", c, cases[c].rows, cases[c].cols, es, off);
        }
}

/* Destination rows on 4-byte boundaries but off line phase take the joined-lines path (AVX-512): leading
 * dimensions a multiple of 16 bytes but not of 64, or of 4 only; destination pointers 4 and 20 bytes past a line;
 * several tiles down the rows (each re-reading the block above it), partial blocks, strips and 1-byte bands, batches; below
 * and past the non-temporal threshold; source pitches of 8 and 4 KiB with tiles between the first and the last
 * (1-byte strips through a buffer: XPF_ALIAS_PITCH). */
static void joined_lines(void)
{
    static const struct {
        size_t rows, cols, ld_src, ld_dst, batch;
    } cases[] = {
        {1000, 999, 0, 1008, 1},     {1300, 700, 0, 1316, 1}, {577, 1100, 0, 580, 2},      {64, 300, 0, 80, 1},
        {130, 17, 0, 132, 3},        {2100, 260, 0, 2112, 1}, {1600, 4136, 8192, 1604, 1}, {1300, 4096, 4096, 1304, 2},
        {1600, 1000, 4096, 1604, 1}, /* 1-byte bands after the strips: columns past the last whole strip */
        {1100, 4500, 0, 1108, 1},    /* 1-byte bands: tiles of 1024 rows, 4096 columns and the rest */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t e = 0; e < 3; e++) {
            size_t es = elem_sizes[e];
            xpose_layout l = {cases[c].rows, cases[c].cols, es, cases[c].ld_src, cases[c].ld_dst, cases[c].batch, 0, 0};
            if (l.batch > 1) {
                l.stride_src = l.rows * (l.ld_src ? l.ld_src : l.cols) + 5;
                l.stride_dst = l.cols * l.ld_dst + 16 / es;
            }
            for (size_t off = 0; off <= 20; off += 4)
                CHECK(t_check_variant(&t_host_mem, variant, &l, (unsigned)(c * 11 + e), es, off) == 1,
                      "joined lines %zu: %zux%zu ld_dst %zu es %zu dst offset %zu", c, l.rows, l.cols, l.ld_dst, es,
                      off);
        }
}

/* The same large transpose at 1, 2 and 3 threads: tiles move between threads, the bytes must not. With
 * ld_dst, rows off line phase (joined lines where rows start on 4-byte boundaries). */
static void thread_counts(size_t ld_dst)
{
    const size_t rows = 1531, cols = 2053;
    for (size_t e = 0; e < 5; e++) {
        /* dst 4 elements past the allocation's start: 4-byte aligned for the joined lines, never line aligned */
        size_t es = elem_sizes[e], bytes = cols * (ld_dst ? ld_dst : rows) * es, off = ld_dst ? 4 * es : es;
        unsigned char *src = malloc(rows * cols * es + 64), *out[3];
        xv_fill_random(src, rows * cols * es + 64, 4242 + e);
        xpose_layout l = {rows, cols, es, 0, ld_dst, 0, 0, 0};
        for (int t = 0; t < 3; t++) {
            out[t] = malloc(bytes + 64);
            xv_poison(out[t], bytes + 64);
            xpose_set_threads(t + 1);
            CHECK_STATUS(xpose_transpose_variant(variant, &l, src + es, out[t] + off), XPOSE_OK, "%d threads", t + 1);
        }
        CHECK(memcmp(out[0], out[1], bytes + 64) == 0, "es %zu ld_dst %zu: 1 and 2 threads differ", es, ld_dst);
        CHECK(memcmp(out[0], out[2], bytes + 64) == 0, "es %zu ld_dst %zu: 1 and 3 threads differ", es, ld_dst);
        CHECK(t_check_variant(&t_host_mem, variant, &l, 77 + (unsigned)e, es, off) == 1, "3 threads, es %zu", es);
        for (int t = 0; t < 3; t++)
            free(out[t]);
        free(src);
    }
    xpose_set_threads(0);
}

int main(void)
{
    CHECK(xpose_variant_find("cpu-fast") >= 0, "cpu-fast is not registered");
    for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
        /* A cap: where the CPU lacks the set, cpu-fast uses the best one below it, still correct. */
        setenv("XPOSE_CPU_ISA", isas[i], 1);
        layout_grid(1);
        layout_grid(4); /* past the non-temporal threshold for the larger shapes */
        special_shapes();
        joined_lines();
        thread_counts(0);
        thread_counts(1540);
    }
    /* The tile heights of the lab rows (cpu-fast takes short ones on AMD cores, middle ones elsewhere): the SIMD sets
     * whose blocks they size, at the larger shapes, the ones with many tiles. */
    static const char *const labs[] = {"cpu-fast/long", "cpu-fast/short", "cpu-fast/mid"};
    for (size_t l = 0; l < sizeof labs / sizeof labs[0]; l++) {
        variant = labs[l];
        for (size_t i = 1; i < sizeof isas / sizeof isas[0]; i++) {
            setenv("XPOSE_CPU_ISA", isas[i], 1);
            layout_grid(4);
            special_shapes();
            joined_lines();
            thread_counts(0);
            thread_counts(1540);
        }
    }
    unsetenv("XPOSE_CPU_ISA");
    return t_finish("test_cpu_fast");
}
