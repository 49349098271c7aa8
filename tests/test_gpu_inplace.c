/* test_gpu_inplace.c (label gpu): the in-place transposes on the GPU against the out-of-place reference: squares,
 * rectangles with gcd(rows, cols) 1 and more (the tile, block and skew forms, the decomposition), vectors, primes, every
 * element size, unaligned rows, batches, groups split across thread-block clusters, rows that go through the
 * workspace, more than 2^31 elements; the workspace (too small, a failed allocation: the data unchanged) and bad
 * pointers; the stream-ordered entry point. Exits 77 (skipped) where no CUDA device is present. */
#include <string.h>
#include <cuda_runtime_api.h>
#include "gpu_mem.h"
#include "testing.h"
#include "xpose_cuda.h"
#include "../src/core/xp_internal.h"

static const size_t elem_sizes[] = {1, 2, 4, 8, 16};

typedef struct ip_case {
    size_t rows, cols, batch;
} ip_case;

/* Squares, gcd 1 and > 1, vectors, primes, odd sizes (unaligned rows), batches, and groups past one block's shared
 * memory: long rows (a cluster per row) and tall strips (a cluster per strip). Squares of rows on 16 bytes take the
 * vector tiles: whole (128, 256 x 5, 1024), cut by the edges (16, 400 x 3, 1008, 2064, and 64 x 7 for bytes); the
 * byte tiles' pairs of tile columns end in a half pair (16, 64 x 7, 128, 2064) or a whole one (256 x 5, 400 x 3,
 * 1008). Stacked and side-by-side squares with chunks of 1 KiB or more take the rectangles' tile form (2048 x 1024,
 * 1024 x 2048 x 2, 4096 x 1024; 256 x 128 x 3 and 128 x 640 for 8 and 16 bytes). Rows of gcd 1 that start off 16
 * bytes and that a cluster splits take the row pass's vectors cut at both ends of every block (31 x 30011, and
 * 30011 x 31 x 2 the other way). */
static const ip_case cases[] = {
    {1, 1, 1},       {2, 2, 1},       {3, 3, 1},      {65, 65, 1},    {128, 128, 1},   {1000, 1000, 1}, {2, 3, 1},
    {3, 2, 1},       {7, 11, 1},      {13, 8, 1},     {12, 18, 1},    {100, 250, 1},   {250, 100, 1},   {1, 1000, 1},
    {1000, 1, 1},    {101, 103, 1},   {997, 13, 1},   {13, 997, 1},   {512, 1536, 1},  {1021, 509, 1},  {33, 17, 5},
    {64, 64, 7},     {300, 500, 3},   {40, 40000, 1}, {40001, 41, 1}, {4000, 4003, 1}, {6000, 6144, 1}, {5003, 4999, 1},
    {3000, 3000, 2}, {16, 16, 1},     {400, 400, 3},  {256, 256, 5},  {1008, 1008, 1}, {2064, 2064, 1}, {2048, 1024, 1},
    {1024, 2048, 2}, {4096, 1024, 1}, {256, 128, 3},  {128, 640, 1},  {31, 30011, 1},  {30011, 31, 2},  {640, 640, 3},
    {1152, 1152, 1}, {2560, 2560, 1}, /* bytes: odd tile-column pairs, a lone last column, 5 pairs */
};

/* Runs `id` (NULL: the production entry point) on the cases' matrices in device memory, with a workspace of its own,
 * and compares the whole buffer (and 256 poisoned bytes either side) with the reference. Returns the status. */
static int check(const char *id, size_t rows, size_t cols, size_t es, size_t batch, unsigned seed)
{
    const size_t bytes = rows * cols * es * batch, pad = 256;
    unsigned char *src = malloc(bytes), *ref = malloc(bytes), *got = malloc(bytes + 2 * pad);
    unsigned char *d = t_dev_mem.alloc(bytes + 2 * pad);
    int st = XPOSE_ERR_NO_MEMORY;
    if (!src || !ref || !got || !d) {
        printf("%s %zux%zu: cannot allocate %zu bytes, skipped\n", id ? id : "production", rows, cols, bytes);
        goto out;
    }
    xv_fill_random(src, bytes, seed);
    xpose_layout lay = {rows, cols, es, 0, 0, batch, 0, 0};
    xv_reference(&lay, src, ref);
    t_dev_mem.poison(d, bytes + 2 * pad);
    t_dev_mem.upload(d + pad, src, bytes);
    st = id ? xpose_transpose_inplace_variant(id, rows, cols, es, batch, d + pad, NULL, 0)
            : xpose_transpose_inplace(XPOSE_BACKEND_AUTO, rows, cols, es, batch, d + pad, NULL, 0);
    t_dev_mem.download(got, d, bytes + 2 * pad);
    if (st == XPOSE_OK) {
        size_t first = 0, bad = xv_compare(got + pad, ref, bytes, &first), outside = 0;
        for (size_t i = 0; i < pad; i++)
            outside += (got[i] != XV_POISON) + (got[pad + bytes + i] != XV_POISON);
        CHECK(bad == 0 && outside == 0, "%s %zux%zu es %zu batch %zu: %zu bytes differ (first at %zu), %zu outside",
              id ? id : "production", rows, cols, es, batch, bad, first, outside);
    } else {
        CHECK(memcmp(got + pad, src, bytes) == 0, "%s %zux%zu: status %d and the data changed", id ? id : "production",
              rows, cols, st);
    }
out:
    free(src), free(ref), free(got);
    if (d)
        t_dev_mem.release(d);
    return st;
}

static void variants(void)
{
    char id[96];
    unsigned mask;
    for (int i = 0; t_variant_id(i, XPOSE_BACKEND_CUDA, XPOSE_FAMILY_INPLACE, id, sizeof id, &mask); i++) {
        /* Lab rows (a form or a block size forced) on the smaller cases only: the suite's time goes to the production
         * rows. */
        int before = t_failures, square_only = strstr(id, "square") != NULL, lab = strchr(id, '/') != NULL;
        for (size_t e = 0; e < 5; e++) {
            if (!(mask & elem_sizes[e]))
                continue;
            for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
                const ip_case c = cases[k];
                if (c.rows * c.cols * elem_sizes[e] * c.batch > (lab ? (size_t)8 << 20 : (size_t)400 << 20))
                    continue;
                const int st = check(id, c.rows, c.cols, elem_sizes[e], c.batch, (unsigned)(k * 13 + e));
                if (square_only && c.rows != c.cols && c.rows != 1 && c.cols != 1)
                    CHECK_STATUS(st, XPOSE_ERR_UNSUPPORTED, "%s on %zux%zu", id, c.rows, c.cols);
                else
                    CHECK_STATUS(st, XPOSE_OK, "%s %zux%zu es %zu batch %zu", id, c.rows, c.cols, elem_sizes[e],
                                 c.batch);
            }
        }
        printf("%-24s %s\n", id, t_failures == before ? "ok" : "FAILED");
        fflush(stdout);
    }
}

/* Rows longer than a cluster holds go through the workspace: its size, and the data unchanged where it is too small
 * or cannot be allocated. */
static void long_rows(void)
{
    const size_t rows = 3, cols = 600001, es = 4, bytes = rows * cols * es;
    const size_t need = xpose_transpose_inplace_workspace(XPOSE_BACKEND_CUDA, rows, cols, es, 1);
    CHECK(need == cols * es, "workspace for 3 x 600001 floats: %zu, expected one long row, %zu", need, cols * es);
    CHECK(xpose_transpose_inplace_workspace(XPOSE_BACKEND_CUDA, 4000, 4003, 4, 1) == 0, "a row a cluster holds: none");
    CHECK(xpose_transpose_inplace_workspace(XPOSE_BACKEND_CUDA, 8192, 8192, 1, 1) == 0, "square: none");
    CHECK_STATUS(check("inplace-rect", rows, cols, es, 1, 61), XPOSE_OK, "long rows");
    CHECK_STATUS(check("inplace-rect", cols, rows, es, 1, 62), XPOSE_OK, "long rows, tall");
    CHECK_STATUS(check(NULL, 2, 300000, 16, 2, 63), XPOSE_OK, "long rows, 16 bytes, a batch");

    unsigned char *src = malloc(bytes), *got = malloc(bytes), *d = t_dev_mem.alloc(bytes), *ws = t_dev_mem.alloc(need);
    xv_fill_random(src, bytes, 64);
    t_dev_mem.upload(d, src, bytes);
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CUDA, rows, cols, es, 1, d, ws, need - 1), XPOSE_ERR_NO_MEMORY,
                 "a workspace one byte short");
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CUDA, rows, cols, es, 1, d, ws + 4, need), XPOSE_ERR_ALIGNMENT,
                 "a misaligned workspace");
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CUDA, rows, cols, es, 1, d, d + 64, need), XPOSE_ERR_OVERLAP,
                 "a workspace inside the data");
    char host_ws[64];
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CUDA, rows, cols, es, 1, d, host_ws, need), XPOSE_ERR_POINTER,
                 "a host workspace");
    xp_inplace_fail_alloc = 1;
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CUDA, rows, cols, es, 1, d, NULL, 0), XPOSE_ERR_NO_MEMORY,
                 "a failed allocation");
    xp_inplace_fail_alloc = 0;
    t_dev_mem.download(got, d, bytes);
    CHECK(memcmp(got, src, bytes) == 0, "a refused call changed the data");
    /* The caller's workspace, on a stream. */
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s) == cudaSuccess, "stream");
    CHECK_STATUS(xpose_transpose_inplace_cuda(rows, cols, es, 1, d, ws, need, s), XPOSE_OK,
                 "stream-ordered, long rows");
    CHECK(cudaStreamSynchronize(s) == cudaSuccess, "sync");
    cudaStreamDestroy(s);
    t_dev_mem.download(got, d, bytes);
    size_t bad = 0;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            bad += memcmp(got + (j * rows + i) * es, src + (i * cols + j) * es, es) != 0;
    CHECK(bad == 0, "stream-ordered long rows: %zu elements wrong", bad);
    free(src), free(got);
    t_dev_mem.release(d);
    t_dev_mem.release(ws);
}

static void bad_input(void)
{
    float host[16];
    void *d = t_dev_mem.alloc(4096);
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CUDA, 4, 4, 4, 1, host, NULL, 0), XPOSE_ERR_POINTER,
                 "host memory");
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CUDA, 4, 4, 3, 1, d, NULL, 0), XPOSE_ERR_ELEM_SIZE, "es 3");
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CUDA, 4, 4, 4, 1, (char *)d + 2, NULL, 0), XPOSE_ERR_ALIGNMENT,
                 "misaligned");
    CHECK_STATUS(xpose_transpose_inplace_variant_cuda("cpu-inplace-rect", 4, 8, 4, 1, d, NULL, 0, 0), XPOSE_ERR_INVALID,
                 "a CPU variant on the stream entry point");
    CHECK_STATUS(xpose_transpose_inplace_variant_cuda("inplace-square", 4, 8, 4, 1, d, NULL, 0, 0),
                 XPOSE_ERR_UNSUPPORTED, "square-only on a rectangle");
    t_dev_mem.release(d);
}

/* More than 2^31 elements, bytes: every index past 32 bits. The reference is a direct loop (the byte-wise one would
 * take minutes); only the rectangle is checked in full, the squares (odd rows: element-wise tiles; rows on 16 bytes:
 * vector tiles) where memory allows. */
static void huge(const char *id, size_t rows, size_t cols)
{
    const size_t n = rows * cols;
    unsigned char *h = malloc(n), *got = malloc(n), *d = t_dev_mem.alloc(n);
    if (!h || !got || !d) {
        printf("%s: skipping the > 2^31 case: cannot allocate %zu bytes\n", id, n);
        goto out;
    }
    xv_fill_random(h, n, 4242);
    t_dev_mem.upload(d, h, n);
    CHECK_STATUS(xpose_transpose_inplace_variant(id, rows, cols, 1, 1, d, NULL, 0), XPOSE_OK, "%s huge", id);
    t_dev_mem.download(got, d, n);
    size_t bad = t_transpose_mismatches(h, got, rows, cols);
    CHECK(bad == 0, "%s: %zu wrong bytes in the %zux%zu (> 2^31) case", id, bad, rows, cols);
out:
    free(h), free(got);
    if (d)
        t_dev_mem.release(d);
}

/* The rectangles' tile form past the small cases: long cycles (48, 60 chunks) with chunks cut into pieces that do not
 * divide them, pieces split between items (4736 bytes: 10 pieces, 2 an item) or all in one (131072 x 2048: 2 pieces),
 * side by side with a batch, and a matrix of 256 MiB. */
static void tile_form(void)
{
    static const ip_case big[] = {{9216, 1152, 1}, {1152, 9216, 2}, {9472, 4736, 1}, {131072, 2048, 1}};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        CHECK_STATUS(check(NULL, big[i].rows, big[i].cols, 1, big[i].batch, 70 + (unsigned)i), XPOSE_OK, "tile form");
    CHECK_STATUS(check(NULL, 1152, 9216, 2, 2, 75), XPOSE_OK, "tile form, 2 bytes, a batch");
    CHECK_STATUS(check(NULL, 1024, 65536, 4, 1, 76), XPOSE_OK, "tile form, float, side by side");
}

/* The block form (132 multiprocessors: H100, H200), each element size wide and tall: blocks one block holds and blocks
 * split across a cluster (K 2-5), output rows of whole vectors and not (odd short sides), cycles that one window holds
 * (up to 72 chunks) and cycles walked in windows (132-248 chunks; 1170 for issue 38's shapes). */
static void block_form(void)
{
    static const struct {
        size_t rows, cols, es, batch;
    } big[] = {{3, 1024, 1, 2},     {4096, 48, 1, 1},    {571, 8192, 1, 1},  {16384, 1696, 1, 1}, {1129, 8192, 1, 1},
               {8, 1024, 2, 3},     {1024, 112, 2, 1},   {380, 6144, 2, 1},  {4096, 688, 2, 1},   {45, 2048, 4, 1},
               {1024, 80, 4, 2},    {324, 4096, 4, 1},   {2048, 688, 4, 1},  {2048, 1892, 4, 1},  {1129, 2048, 4, 1},
               {1000, 32768, 4, 1}, {32768, 1000, 4, 1}, {1536, 380, 8, 1},  {571, 1024, 8, 1},   {48, 1024, 8, 2},
               {1024, 30, 16, 1},   {379, 1024, 16, 1},  {4096, 205, 16, 1}, {205, 4096, 16, 1}};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        CHECK_STATUS(check(NULL, big[i].rows, big[i].cols, big[i].es, big[i].batch, 80 + (unsigned)i), XPOSE_OK,
                     "block form");
}

/* The skew form (gcd 1, a view of at least 512 rows): R x (2R - 1) (rows swapped in pairs), near squares (cycles of
 * 10-260), cycles longer than the buffer (252-1008: windows, spans of strided rows), the bound R = 512, wide and tall,
 * rows of odd bytes (element loads) and of multiples of 4 and 16 bytes (wider loads), batches; every element size. */
static void skew_form(void)
{
    static const ip_case shapes[] = {{1021, 2041, 1}, {2041, 1021, 1}, {1023, 1025, 2}, {1025, 1023, 1},
                                     {1009, 2029, 1}, {3037, 1009, 1}, {512, 1023, 1},  {523, 521, 3},
                                     {1024, 2047, 1}, {1021, 2044, 1}, {2044, 1021, 2}};
    for (size_t e = 0; e < 5; e++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            CHECK_STATUS(check(NULL, shapes[i].rows, shapes[i].cols, elem_sizes[e], shapes[i].batch,
                               100 + (unsigned)(i * 5 + e)),
                         XPOSE_OK, "skew form %zux%zu es %zu", shapes[i].rows, shapes[i].cols, elem_sizes[e]);
}

int main(int argc, char **argv)
{
    int st = xpose_cuda_status();
    if (st != XPOSE_OK) {
        printf("test_gpu_inplace: skipped: %s\n", xpose_strerror(st));
        return 77;
    }
    int with_huge = !(argc > 1 && !strcmp(argv[1], "--no-huge"));
    bad_input();
    long_rows();
    variants();
    tile_form();
    block_form();
    skew_form();
    for (size_t e = 0; e < 5; e++) { /* the production entry point finds device memory on its own (AUTO) */
        CHECK_STATUS(check(NULL, 1001, 999, elem_sizes[e], 2, 7 + (unsigned)e), XPOSE_OK, "production rect");
        CHECK_STATUS(check(NULL, 1024, 1024, elem_sizes[e], 1, 8 + (unsigned)e), XPOSE_OK, "production square");
    }
    if (with_huge) {
        huge("inplace-rect", 46341, 46345);
        huge("inplace-square", 46341, 46341); /* element-wise tiles */
        huge("inplace-square", 46352, 46352); /* vector tiles */
    }
    return t_finish("test_gpu_inplace");
}
