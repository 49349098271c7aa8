/* test_gpu_transpose.c (label gpu): every CUDA transpose variant against the reference: edge shapes,
 * random shapes, strides, batches, element offsets, every element size it takes, and a > 2^31-element
 * matrix. Exits 77 (skipped) where no CUDA device is present. */
#include <string.h>
#include <cuda_runtime_api.h>
#include "testing.h"
#include "gpu_mem.h"
#include "xpose_cuda.h"

static const size_t elem_sizes[] = {1, 2, 4, 8, 16};

/* rows x cols 1-byte elements, more than 2^31 of them: indexes past 32 bits must be right. Checked on
 * the host with a direct loop (the byte-wise reference would take too long at this size). */
static void huge_shape(const char *id, size_t rows, size_t cols)
{
    const size_t n = rows * cols;
    unsigned char *h = malloc(n), *got = malloc(n);
    void *ds = t_dev_mem.alloc(n), *dd = t_dev_mem.alloc(n);
    if (!h || !got || !ds || !dd) {
        printf("%s: skipping the > 2^31 case: cannot allocate 2 x %zu bytes\n", id, n);
        goto out;
    }
    xv_fill_random(h, n, 4242);
    t_dev_mem.upload(ds, h, n);
    t_dev_mem.poison(dd, n);
    xpose_layout l = {rows, cols, 1, 0, 0, 0, 0, 0};
    int st = xpose_transpose_variant(id, &l, ds, dd);
    if (st == XPOSE_ERR_UNSUPPORTED)
        goto out;
    CHECK_STATUS(st, XPOSE_OK, "%s huge %zux%zu", id, rows, cols);
    t_dev_mem.download(got, dd, n);
    size_t bad = t_transpose_mismatches(h, got, rows, cols);
    CHECK(bad == 0, "%s: %zu wrong bytes in the %zux%zu (> 2^31) case", id, bad, rows, cols);
out:
    free(h), free(got);
    if (ds)
        t_dev_mem.release(ds);
    if (dd)
        t_dev_mem.release(dd);
}

/* The > 2^31 case every variant name gets: rows not 16-byte aligned (`fast`: skewed tiles). */
static void huge(const char *id) { huge_shape(id, 46341, 46345); }

/* Source pitches that are powers of two of 128 KiB and more: `fast` then interleaves 2 or 4 column walks
 * (walk_count_log2), over shares of the tile columns that must cover every tile once: whole matrices, a
 * sub-matrix whose tile columns split in 4, one whose count is odd (one walk), a batch, misaligned rows. */
static void interleaved_walks(void)
{
    static const struct {
        size_t rows, cols, es, lds, batch, src_off;
    } cases[] = {
        {300, 8192, 16, 8192, 1, 0},   {200, 16384, 16, 16384, 1, 0}, {130, 16384, 8, 16384, 1, 0},
        {150, 16000, 16, 16384, 1, 0}, {90, 16336, 16, 16384, 1, 0},  {70, 8192, 16, 8192, 3, 0},
        {100, 16384, 8, 16384, 1, 8},  {200, 32768, 4, 32768, 1, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        xpose_layout l = {cases[k].rows, cases[k].cols, cases[k].es, cases[k].lds, 0, cases[k].batch, 0, 0};
        CHECK(t_check_variant(&t_dev_mem, "fast", &l, 900 + (unsigned)k, cases[k].src_off, 0) == 1,
              "fast, interleaved walks, case %zu", k);
    }
}

/* A table of `fast` calls of one element size each, every one against the reference (seed `seed` + its index). */
typedef struct {
    size_t rows, cols, es, lds, batch;
} es_case;

static void check_es_cases(const es_case *cases, size_t n, unsigned seed, const char *what)
{
    for (size_t k = 0; k < n; k++) {
        xpose_layout l = {cases[k].rows, cases[k].cols, cases[k].es, cases[k].lds, 0, cases[k].batch, 0, 0};
        CHECK(t_check_variant(&t_dev_mem, "fast", &l, seed + (unsigned)k, 0, 0) == 1, "fast, %s, case %zu", what, k);
    }
}

/* 8- and 16-byte calls past SmallTile's take `fast`'s dense tiles (DenseTile). The edge shapes and random
 * layouts above cover calls of one wave; these have more than 8 x SMs FastTile tiles on any current GPU
 * (1632-2961 here), with edge tiles both ways, a sub-matrix, and batches (which take the grid-stride kernel,
 * the others the 2-D grid). */
static void dense_tiles(void)
{
    static const es_case cases[] = {
        {3001, 1999, 8, 0, 1}, {3001, 1999, 8, 2002, 1}, {1030, 1000, 8, 0, 3},
        {2001, 999, 16, 0, 1}, {2001, 999, 16, 1001, 1}, {1001, 500, 16, 0, 5},
    };
    check_es_cases(cases, sizeof cases / sizeof cases[0], 950, "dense tiles");
}

/* Narrow calls of at most XP_PERM_SKINNY_MAX (8) elements a side and 16 bytes or more (pairs of doubles, 5 and 8
 * floats, 2-4 c128), which `fast` hands to the permutation kernels: both ways, rows on 16 bytes (the skinny path) and
 * off them, batches, a source sub-matrix. */
static void narrow_sides(void)
{
    static const es_case cases[] = {
        {2, 70002, 8, 0, 1},     {70002, 2, 8, 0, 1},   {2, 70001, 8, 0, 1}, {70001, 2, 8, 0, 1}, {2, 30011, 16, 0, 2},
        {30011, 2, 16, 0, 1},    {4, 9001, 16, 0, 1},   {9001, 4, 16, 0, 3}, {5, 40008, 4, 0, 1}, {40009, 5, 4, 0, 1},
        {8, 20011, 4, 20012, 1}, {20012, 8, 4, 0, 2},   {7, 10007, 8, 0, 1}, {10006, 7, 8, 8, 1}, {8, 33336, 2, 0, 1},
        {33333, 8, 2, 0, 1},     {3, 5002, 8, 5004, 2},
    };
    check_es_cases(cases, sizeof cases / sizeof cases[0], 970, "narrow sides");
}

/* Sides that xp_perm_stage_side takes and the skinny path does not (rows off 16 bytes, or more than 8 elements), which
 * go through the permutation kernels' staged skinny path: both ways, 3 to 64 bytes a side of every element size and
 * up to 126 bytes of 2- to 16-byte ones beside 1024 or more (wider ones: staged_wide_sides; 124 beside 1000, which
 * tiles take; bytes on both sides of 32, where grouped items end), segments cut short, batches, a source sub-matrix,
 * bytes of k % 4 == 0 with rows 16 bytes apart (4 rows a thread, stage_quads), and (with_huge) a long side past the
 * permutation's 2^30 that runs in pieces. */
static void staged_sides(int with_huge)
{
    static const es_case cases[] = {
        {9, 40003, 1, 0, 1}, {40003, 9, 1, 0, 1},    {16, 30001, 1, 0, 2},   {30001, 16, 1, 0, 1},
        {63, 5001, 1, 0, 1}, {5001, 63, 1, 0, 1},    {24, 7777, 1, 7780, 1}, {3, 50001, 1, 0, 1},
        {50001, 3, 1, 0, 1}, {7, 20003, 1, 0, 3},    {20003, 5, 1, 0, 1},    {31, 9001, 2, 0, 1},
        {9001, 31, 2, 0, 2}, {12, 10001, 4, 0, 1},   {10001, 16, 4, 0, 1},   {5, 12345, 8, 0, 1},
        {12345, 8, 8, 0, 1}, {3, 7001, 16, 0, 2},    {7001, 4, 16, 0, 1},    {64, 4099, 1, 0, 1},
        {4099, 64, 1, 0, 1}, {2, 1000003, 1, 0, 1},  {1000003, 6, 2, 0, 1},  {7001, 32, 1, 0, 1},
        {4001, 33, 1, 0, 2}, {33, 4001, 1, 0, 1},    {32, 7003, 1, 0, 1},    {32, 8192, 1, 0, 2},
        {4096, 24, 1, 0, 1}, {24, 4096, 1, 0, 2},    {3136, 64, 1, 0, 3},    {12, 8000, 1, 0, 1},
        {8000, 12, 1, 0, 1}, {2048, 48, 1, 0, 1},    {16, 4160, 1, 0, 1},    {24, 7777, 1, 7792, 1},
        {4000, 20, 1, 0, 2}, {24, 7001, 4, 0, 1},    {7001, 24, 4, 0, 2},    {63, 4099, 4, 0, 1},
        {4099, 63, 4, 0, 1}, {40, 3001, 4, 0, 2},    {31, 5003, 8, 0, 1},    {5003, 12, 8, 0, 1},
        {9, 4001, 16, 0, 1}, {12, 3001, 16, 0, 2},   {127, 3001, 2, 0, 1},   {3001, 33, 2, 0, 1},
        {96, 2049, 2, 0, 1}, {24, 7001, 4, 7010, 1}, {31, 9001, 4, 0, 1},    {9001, 31, 4, 0, 2},
        {63, 6007, 2, 0, 1}, {15, 8009, 8, 0, 1},    {31, 1000, 4, 0, 1},
    };
    check_es_cases(cases, sizeof cases / sizeof cases[0], 1170, "staged sides");
    if (with_huge) {
        const es_case huge = {3, ((size_t)1 << 30) + 77, 1, 0, 1};
        check_es_cases(&huge, 1, 1199, "staged sides, past 2^30");
    }
}

/* The staged path's wider sides (xp_perm_stage_side), in calls of 32 MiB (XP_PERM_STAGE_WIDE_MIN_BYTES) and a bit
 * more: into destination rows of 65-319 bytes of bytes and 129-543 of wider elements, from source rows of 65-127 bytes
 * of bytes, 129-153 or 257-307 bytes of wider ones (8 and 16 bytes: past 256, up to 7/10 of the tile segments), each
 * beside the first side past its bound or a multiple of 128 bytes (tiles); a batch (of two 16 MiB matrices) and source
 * sub-matrices; and under 32 MiB or beside under 1024 (tiles). */
static void staged_wide_sides(void)
{
    static const es_case cases[] = {
        {65, 516226, 1, 0, 1},   {127, 264212, 1, 0, 1}, {129, 260115, 1, 0, 1}, {319, 105190, 1, 0, 1},
        {320, 104861, 1, 0, 1},  {300, 55926, 1, 0, 2},  {516226, 65, 1, 0, 1},  {264212, 127, 1, 0, 1},
        {260115, 129, 1, 0, 1},  {129, 130059, 2, 0, 1}, {271, 61912, 2, 0, 1},  {272, 61684, 2, 0, 1},
        {130059, 129, 2, 0, 1},  {109659, 153, 2, 0, 1}, {108946, 154, 2, 0, 1}, {220756, 76, 2, 0, 1},
        {217889, 77, 2, 0, 1},   {135, 62141, 4, 0, 1},  {136, 61684, 4, 0, 1},  {100, 83890, 4, 83898, 1},
        {129059, 65, 4, 0, 1},   {55926, 75, 4, 0, 2},   {226723, 37, 4, 0, 1},  {33, 127104, 8, 0, 1},
        {67, 62605, 8, 0, 1},    {68, 61684, 8, 0, 1},   {127104, 33, 8, 0, 1},  {110378, 19, 8, 0, 2},
        {33, 63554, 16, 0, 1},   {17, 123365, 16, 0, 1}, {123365, 17, 16, 0, 1}, {233020, 9, 16, 0, 1},
        {110380, 19, 16, 22, 1}, {65, 4001, 1, 0, 1},    {135, 1200, 4, 0, 1},   {135, 1000, 4, 0, 1},
        {2000, 17, 16, 0, 1},    {104861, 40, 8, 0, 1},  {104861, 20, 16, 0, 1}, {63554, 33, 16, 0, 1},
        {64530, 65, 8, 0, 1},
    };
    check_es_cases(cases, sizeof cases / sizeof cases[0], 1300, "staged wide sides");
}

/* 4- and 16-byte calls of one matrix of whole FastTile tiles that fit one wave take the split-store kernel at some
 * tile counts per SM (split_pays; on a 132-SM H200: 16 bytes up to 264 tiles and from 528 to 1056, 4 bytes up to
 * 264); 8-byte ones the dense tiles: squares and both aspect ratios inside those ranges, counts just outside them,
 * shapes one row or column short (partial tiles), a source or destination sub-matrix (rows 16 bytes off a sector),
 * and source pitches of 128 KiB (column walks: the grid-stride kernel, with its own shared memory). */
static void split_tiles(void)
{
    static const struct {
        size_t rows, cols, es, lds, ldd;
    } cases[] = {
        {1024, 1024, 16, 0, 0}, {896, 896, 16, 0, 0},   {2048, 512, 16, 0, 0},     {512, 2048, 16, 0, 0},
        {256, 256, 16, 0, 0},   {512, 512, 16, 0, 0},   {640, 640, 16, 0, 0},      {1088, 1024, 16, 0, 0},
        {1024, 1023, 16, 0, 0}, {1023, 1024, 16, 0, 0}, {1024, 1024, 16, 1025, 0}, {1024, 1024, 16, 0, 1025},
        {128, 8192, 16, 0, 0},  {1024, 1024, 8, 0, 0},  {1280, 1280, 8, 0, 0},     {1024, 1536, 8, 0, 0},
        {768, 768, 8, 0, 0},    {64, 16384, 8, 0, 0},   {1024, 1024, 4, 0, 0},     {640, 640, 4, 0, 0},
        {512, 2048, 4, 0, 0},   {1280, 1280, 4, 0, 0},  {1024, 1024, 4, 1028, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        xpose_layout l = {cases[k].rows, cases[k].cols, cases[k].es, cases[k].lds, cases[k].ldd, 1, 0, 0};
        CHECK(t_check_variant(&t_dev_mem, "fast", &l, 990 + (unsigned)k, 0, 0) == 1, "fast, split tiles, case %zu", k);
    }
}

/* 1-byte calls past SmallTile's take the 2-D grid in clusters of two blocks (FAST_BYTE_CLUSTER), without edge code
 * where every tile is whole: whole and partial tiles, in row order (up to 1024 tiles) and down tile columns, grids
 * whose x (tile columns, or tile rows) is even (clusters) or odd (none), a sub-matrix on both sides, a batch
 * (the grid-stride kernel), and one of more than 2^31 elements. Whole tiles past one wave (528 on 132 SMs) take
 * clusters of 8 that meet at a barrier (FAST_SYNC_CLUSTER), or of 4, 2 or 1 where the grid's x (16, 20, 34, 33
 * here) does not divide by 8. */
static void byte_clusters(int with_huge)
{
    static const struct {
        size_t rows, cols, lds, ldd, batch;
    } cases[] = {
        {2048, 2048, 0, 0, 1}, {1152, 2304, 0, 0, 1}, {8192, 4096, 0, 0, 1}, {4224, 8192, 0, 0, 1},
        {8400, 4099, 0, 0, 1}, {8300, 4099, 0, 0, 1}, {1000, 2000, 0, 0, 1}, {4096, 4096, 4128, 4160, 1},
        {1024, 2048, 0, 0, 3}, {3456, 5120, 0, 0, 1}, {4352, 8192, 0, 0, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        xpose_layout l = {cases[k].rows, cases[k].cols, 1, cases[k].lds, cases[k].ldd, cases[k].batch, 0, 0};
        CHECK(t_check_variant(&t_dev_mem, "fast", &l, 1100 + (unsigned)k, 0, 0) == 1, "fast, byte clusters, case %zu",
              k);
    }
    if (with_huge) /* > 2^31 bytes on 16-byte rows: 362 (even) tile rows, a partial last tile column */
        huge_shape("fast", 46336, 46368);
}

/* 2- to 16-byte calls of whole tiles past one wave (FastTile at 4 blocks per SM, DenseTile at 8: more than 528 and
 * 1056 tiles on 132 SMs) take the 2-D grid in clusters of 8 that meet at a barrier before storing (FAST_SYNC_CLUSTER),
 * or of the largest power of two that divides the grid's x (tile rows here: 32 and 40, 36, 34 and 66; 33 and 41 take
 * none); a batch and a source pitch of 128 KiB (column walks) take the grid-stride kernel instead. */
static void sync_clusters(void)
{
    static const es_case cases[] = {
        {4096, 4608, 2, 0, 1}, {4608, 4096, 2, 0, 1}, {4224, 4096, 2, 0, 1}, {2560, 2048, 4, 0, 1},
        {2624, 2048, 4, 0, 1}, {2304, 2048, 4, 0, 1}, {1024, 1152, 8, 0, 1}, {1088, 1024, 8, 0, 1},
        {2048, 576, 16, 0, 1}, {2112, 544, 16, 0, 1}, {1024, 1152, 8, 0, 2}, {1024, 2048, 16, 8192, 1},
    };
    check_es_cases(cases, sizeof cases / sizeof cases[0], 1300, "sync clusters");
}

/* 1-byte calls whose rows do not all start on a 16-byte vector take `fast`'s shifted tiles (fast_shift.cuh, windows by
 * shift_halo): each row offset of the source (base offsets 1-15, pitches 8, 4 and 1 off a vector) and of the
 * destination; destination rows on vectors (128 x 256 tiles) or not (112 x 256, 128 x 256 tall tiles where those fit one
 * wave and the others do not, or 96 x 256 past a third of the L2; small calls with source rows on vectors, or whose
 * skewed tiles fit one wave, take skewed tiles); whole tiles whose last row has no bytes to spare past
 * the tile; one tile row; one column; a batch whose members start off a vector. */
static void shift_tiles(void)
{
    static const struct {
        size_t rows, cols, lds, ldd, batch, src_off, dst_off;
    } cases[] = {
        {1024, 1000, 1032, 0, 1, 0, 0},
        {512, 768, 776, 1032, 1, 0, 0},
        {384, 1280, 1281, 388, 1, 3, 0},
        {256, 512, 0, 0, 1, 7, 0},
        {256, 512, 0, 0, 1, 0, 9},
        {256, 768, 0, 260, 1, 0, 0},
        {640, 512, 516, 0, 1, 0, 0},
        {1000, 999, 1003, 1001, 1, 15, 1},
        {1, 3000, 0, 0, 1, 5, 0},
        {3000, 1, 0, 0, 1, 0, 11},
        {127, 257, 0, 0, 1, 0, 0},
        {129, 255, 0, 0, 1, 1, 2},
        {300, 600, 601, 301, 3, 0, 0},
        {2000, 300, 0, 0, 2, 13, 6},
        {1025, 1027, 1029, 1031, 1, 4, 12},
        {224, 512, 0, 0, 1, 5, 3},
        {336, 768, 776, 344, 1, 0, 0},
        {113, 256, 0, 0, 1, 2, 1},
        {111, 300, 0, 0, 1, 1, 15},
        {2, 17, 0, 0, 4, 3, 5},
        /* destinations past a third of a 50-60 MB L2: sector windows, 96 x 256 tiles */
        {5088, 4352, 0, 0, 1, 3, 5},
        {4800, 4608, 4608, 4801, 1, 0, 0},
        {5000, 5003, 5011, 5001, 1, 9, 0},
        /* vector windows past one wave of 112-row tiles and within one of 128-row (tall) tiles on 132 SMs: one
         * matrix (2-D grid), a batch (grid-stride) */
        {4001, 4003, 0, 0, 1, 5, 3},
        {4001, 4003, 0, 0, 1, 0, 0},
        {1000, 1000, 1001, 1003, 16, 0, 0},
        {3697, 4003, 0, 0, 1, 0, 0}, /* short tiles past one wave (tall ones would gain little) */
        /* small calls whose skewed tiles would need a fourth a SM, at a heavy residue (skew_heavy_1): vector windows;
         * at a light one (lds odd, ldd = lds mod 8): skewed tiles */
        {2501, 2503, 0, 0, 1, 0, 0},
        {2588, 2556, 0, 0, 1, 3, 0},
        {2125, 2957, 0, 0, 1, 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        xpose_layout l = {cases[k].rows, cases[k].cols, 1, cases[k].lds, cases[k].ldd, cases[k].batch, 0, 0};
        CHECK(t_check_variant(&t_dev_mem, "fast", &l, 1200 + (unsigned)k, cases[k].src_off, cases[k].dst_off) == 1,
              "fast, shifted tiles, case %zu", k);
    }
}

/* Skewed tiles take a shared-memory stride by residue (fast.cu: skew_stride_1 by lds % 16 and ldd % 16 for small
 * 1-byte calls off a vector, which shift_halo sends there; skew_stride_2 by lds % 8 and ldd % 8 for 2-byte rows off a
 * vector): every pair of residues, so every stride the tables name runs. Where the destination pitch sits on a vector
 * (ldd residue 0), the destination starts one element off one, so that its rows are still off a vector (1-byte calls
 * whose destination rows are all on vectors take shifted tiles instead). */
static void skew_strides(void)
{
    for (size_t es = 1; es <= 2; es++)
        for (size_t a = 0; a < 16 / es; a++)
            for (size_t b = 0; b < 16 / es; b++) {
                xpose_layout l = {300, 400, es, 400 + a, 304 + b, 1, 0, 0};
                const size_t dst_off = b == 0 ? es : 0;
                const unsigned seed = 1400 + (unsigned)(256 * es + 16 * a + b);
                CHECK(t_check_variant(&t_dev_mem, "fast", &l, seed, 0, dst_off) == 1,
                      "fast, skewed %zu-byte tiles, lds %zu ldd %zu", es, l.ld_src, l.ld_dst);
            }
}

/* Calls of 4- to 16-byte elements with at least FAST_WIDE_MIN_TILES FastTile tiles whose source rows do not all
 * start on a 128-byte line take `fast`'s wide tiles (WideTile): pitches off a line with edge tiles both ways, a
 * source 64 bytes off a line, a batch whose member stride is off a line, a sub-matrix on both sides. */
static void wide_tiles(void)
{
    static const struct {
        size_t rows, cols, es, lds, ldd, batch, src_off;
    } cases[] = {
        {8200, 8200, 4, 8204, 0, 1, 0},    {8192, 8256, 4, 0, 0, 1, 64},     {1030, 1500, 4, 1500, 0, 42, 0},
        {4100, 8200, 8, 8202, 4104, 1, 0}, {2100, 8200, 16, 8201, 0, 1, 16},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        xpose_layout l = {cases[k].rows, cases[k].cols, cases[k].es, cases[k].lds, cases[k].ldd, cases[k].batch, 0, 0};
        CHECK(t_check_variant(&t_dev_mem, "fast", &l, 990 + (unsigned)k, cases[k].src_off, 0) == 1,
              "fast, wide tiles, case %zu", k);
    }
}

/* The smallest leading dimension >= n whose rows of es-byte elements are `phase` bytes (0 or 16) off a
 * 32-byte sector, row after row: an odd number of 16-byte units for 16, a whole number of sectors for 0. */
static size_t pitch_with_phase(size_t n, size_t es, size_t phase)
{
    while ((n * es) % 32 != phase)
        n++;
    return n;
}

/* Matrices whose destination rows start on 16-byte vectors but not all on 32-byte sectors: `fast` moves
 * 1-byte ones in sector-aligned tiles (fast_sector.cuh) and 2- to 16-byte ones in skewed tiles
 * (fast_skew.cuh), or in vector tiles where the destination spans a small part of the L2 (dst_within_l2_part:
 * on a 60 MiB L2, the 113 x 9000 case at every element size, the 4000-row one at none). Every element size:
 * pitches an odd number of 16-byte units, a destination 16 bytes off, both, rows that end just past a tile row (into the extra one), a last chunk cut short, an odd batch
 * stride alone; row order (few tiles) and, in the last case, tile-column walks (more than FAST_FEW_TILES). */
static void sector_rows(void)
{
    static const struct {
        size_t rows, cols, half, batch, dst_off; /* half: destination pitch 16 bytes off a sector */
    } cases[] = {
        {1000, 3000, 1, 1, 0}, {1000, 3000, 0, 1, 16}, {1000, 3000, 1, 1, 16}, {113, 9000, 1, 1, 0},
        {1001, 4001, 1, 1, 0}, {129, 5000, 1, 1, 16},  {600, 2000, 0, 3, 0},   {4000, 9000, 1, 1, 0},
    };
    for (size_t e = 0; e < 5; e++) {
        const size_t es = elem_sizes[e];
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            const size_t ldd = pitch_with_phase(cases[k].rows, es, cases[k].half ? 16 : 0);
            /* the large case keeps its bytes (and its > FAST_FEW_TILES tiles) at every element size */
            const size_t cols = cases[k].rows >= 4000 ? cases[k].cols / es : cases[k].cols;
            /* batch members an odd number of 16-byte units apart */
            const size_t sd = cases[k].batch > 1 ? ldd * cols + 16 / es : 0;
            xpose_layout l = {cases[k].rows, cols, es, 0, ldd, cases[k].batch, 0, sd};
            CHECK(t_check_variant(&t_dev_mem, "fast", &l, 970 + (unsigned)(k + 10 * e), 0, cases[k].dst_off) == 1,
                  "fast, destination rows off a sector, %zu-byte case %zu", es, k);
        }
    }
}

int main(int argc, char **argv)
{
    int st = xpose_cuda_status();
    if (st != XPOSE_OK) {
        printf("test_gpu_transpose: skipped: %s\n", xpose_strerror(st));
        return 77;
    }
    const char *only = argc > 1 ? argv[1] : NULL; /* optional: test one variant name */
    int with_huge = !(argc > 2 && !strcmp(argv[2], "--no-huge"));
    char id[96], last[96] = "";
    unsigned mask;
    for (int i = 0; t_variant_id(i, XPOSE_BACKEND_CUDA, XPOSE_FAMILY_TRANSPOSE, id, sizeof id, &mask); i++) {
        if (only && strncmp(id, only, strlen(only)) != 0)
            continue;
        int before = t_failures;
        for (size_t e = 0; e < 5; e++) {
            if (!(mask & elem_sizes[e]))
                continue;
            for (size_t k = 0; k < t_edge_shape_count; k++) {
                xpose_layout l = {t_edge_shapes[k].rows, t_edge_shapes[k].cols, elem_sizes[e], 0, 0, 0, 0, 0};
                t_check_variant(&t_dev_mem, id, &l, (unsigned)(k * 7 + e), 0, 0);
            }
        }
        t_random_layouts(&t_dev_mem, id, mask, 5000u + (unsigned)i, 60, 700);
        /* One huge case per variant name (its first parameter set), to keep the suite short. */
        size_t nl = strcspn(id, "/");
        if (with_huge && (strlen(last) != nl || strncmp(last, id, nl) != 0))
            huge(id);
        snprintf(last, sizeof last, "%.*s", (int)nl, id);
        printf("%-24s %s\n", id, t_failures == before ? "ok" : "FAILED");
        fflush(stdout);
    }
    if (!only || !strncmp("fast", only, strlen(only)))
        interleaved_walks(), dense_tiles(), narrow_sides(), staged_sides(with_huge), staged_wide_sides(), split_tiles(),
            sector_rows(), wide_tiles(), byte_clusters(with_huge), sync_clusters(), shift_tiles(), skew_strides();
    /* The production dispatcher must find device pointers on its own (AUTO). */
    for (size_t e = 0; e < 5; e++) {
        xpose_layout l = {1001, 999, elem_sizes[e], 1003, 0, 3, 0, 0};
        CHECK(t_check_variant(&t_dev_mem, NULL, &l, 3 + (unsigned)e, 0, 0) == 1, "production, es %zu", elem_sizes[e]);
    }
    return t_finish("test_gpu_transpose");
}
