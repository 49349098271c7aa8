/* test_inplace.c (label cpu): the in-place transposes on the CPU: every variant against the out-of-place reference on
 * squares, rectangles with gcd(rows, cols) 1 and more, vectors, primes, every element size and batches; the index
 * arithmetic the CUDA kernels share (fast division, the passes); the peels (each combination, threads, batches); the
 * workspace (its size, a caller's, one too small,
 * a failed allocation: the data unchanged); bytes on page pitches; bad input. */
#include <string.h>
#include "testing.h"
#include "../src/core/xp_inplace_math.h"
#include "../src/cpu/cpu_inplace.h"

static const size_t elem_sizes[] = {1, 2, 4, 8, 16};

typedef struct ip_shape {
    size_t rows, cols;
} ip_shape;

/* Squares, gcd 1, gcd > 1, vectors, primes, and matrices past a thread's 1 MiB buffer (the pass path; the last three,
 * whose gcd makes chunks of 256 bytes and more, the tile form). */
static const ip_shape shapes[] = {
    {1, 1},     {2, 2},      {3, 3},      {17, 17},    {64, 64},     {65, 65},     {127, 127},   {300, 300},
    {2, 3},     {3, 2},      {7, 11},     {13, 8},     {4, 6},       {6, 4},       {12, 18},     {100, 250},
    {250, 100}, {64, 128},   {1, 1000},   {1000, 1},   {101, 103},   {997, 13},    {13, 997},    {31, 1024},
    {257, 129}, {720, 1080}, {1021, 509}, {512, 1536}, {2560, 1536}, {1024, 3072}, {3000, 2000},
};

/* Margins around the data, poisoned: a variant that writes outside the matrices fails. */
#define MARGIN 64

/* Runs variant id (NULL: the production entry point with backend) on batch rows x cols matrices of es bytes in a
 * host buffer and compares with the reference. ws: the caller's workspace or NULL. Returns the status; a result that
 * differs is a failed check. */
static int check_one(const char *id, xpose_backend be, size_t rows, size_t cols, size_t es, size_t batch, void *ws,
                     size_t ws_bytes, unsigned seed)
{
    const size_t bytes = rows * cols * es * batch;
    unsigned char *buf = malloc(bytes + 2 * MARGIN), *src = malloc(bytes + 1), *ref = malloc(bytes + 1);
    if (!buf || !src || !ref) {
        CHECK(0, "cannot allocate %zu bytes", bytes);
        free(buf), free(src), free(ref);
        return XPOSE_ERR_NO_MEMORY;
    }
    unsigned char *data = buf + MARGIN;
    xv_fill_random(src, bytes, seed);
    xpose_layout lay = {rows, cols, es, 0, 0, batch, 0, 0};
    xv_reference(&lay, src, ref);
    xv_poison(buf, bytes + 2 * MARGIN);
    memcpy(data, src, bytes);
    int st = id ? xpose_transpose_inplace_variant(id, rows, cols, es, batch, data, ws, ws_bytes)
                : xpose_transpose_inplace(be, rows, cols, es, batch, data, ws, ws_bytes);
    if (st == XPOSE_OK) {
        size_t first = 0, bad = xv_compare(data, ref, bytes, &first), outside = 0;
        for (size_t i = 0; i < MARGIN; i++)
            outside += (buf[i] != XV_POISON) + (data[bytes + i] != XV_POISON);
        CHECK(bad == 0 && outside == 0,
              "%s %zux%zu es %zu batch %zu: %zu bytes differ (first at %zu), %zu written outside",
              id ? id : "production", rows, cols, es, batch, bad, first, outside);
    } else {
        CHECK(memcmp(data, src, bytes) == 0, "%s %zux%zu es %zu: status %d but the data changed",
              id ? id : "production", rows, cols, es, st);
    }
    free(buf), free(src), free(ref);
    return st;
}

/* Every variant on every shape and element size (the baseline on the smaller ones: it walks each cycle), and batches. */
static void variants(void)
{
    char id[96];
    unsigned mask;
    int n = 0;
    for (int i = 0; t_variant_id(i, XPOSE_BACKEND_CPU, XPOSE_FAMILY_INPLACE, id, sizeof id, &mask); i++) {
        xpose_variant_info info;
        if (xpose_variant_get(xpose_variant_find(id), &info) == XPOSE_OK && !info.available)
            continue; /* an optional library this build lacks (the OpenBLAS peer) */
        n++;
        const int square_only = strstr(id, "square") != NULL, naive = strstr(id, "naive") != NULL;
        int ran = 0;
        for (size_t e = 0; e < 5; e++) {
            if (!(mask & elem_sizes[e]))
                continue;
            for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
                const ip_shape s = shapes[k];
                if (naive && s.rows * s.cols > 300000)
                    continue;
                int st =
                    check_one(id, XPOSE_BACKEND_CPU, s.rows, s.cols, elem_sizes[e], 1, NULL, 0, (unsigned)(k * 11 + e));
                int vector = s.rows == 1 || s.cols == 1;
                if (square_only && s.rows != s.cols && !vector)
                    CHECK_STATUS(st, XPOSE_ERR_UNSUPPORTED, "%s on %zux%zu", id, s.rows, s.cols);
                else
                    CHECK_STATUS(st, XPOSE_OK, "%s %zux%zu es %zu", id, s.rows, s.cols, elem_sizes[e]);
                ran += st == XPOSE_OK;
            }
            /* Batches: small matrices (whole through a buffer), and ones past it. */
            size_t r = square_only ? 33 : 17, c = 33;
            CHECK_STATUS(check_one(id, XPOSE_BACKEND_CPU, r, c, elem_sizes[e], 5, NULL, 0, 77 + (unsigned)e), XPOSE_OK,
                         "%s batch of 5 %zux%zu es %zu", id, r, c, elem_sizes[e]);
            if (!naive) { /* batches past a buffer: the tile form, and the passes */
                CHECK_STATUS(check_one(id, XPOSE_BACKEND_CPU, 1024, square_only ? 1024 : 2048, elem_sizes[e], 2, NULL,
                                       0, 99 + (unsigned)e),
                             XPOSE_OK, "%s batch of 2 1024-row matrices es %zu", id, elem_sizes[e]);
                r = square_only ? 600 : 360, c = 600;
                CHECK_STATUS(check_one(id, XPOSE_BACKEND_CPU, r, c, elem_sizes[e], 3, NULL, 0, 88 + (unsigned)e),
                             XPOSE_OK, "%s batch of 3 %zux%zu es %zu", id, r, c, elem_sizes[e]);
            }
        }
        CHECK(ran > 0, "%s ran on no shape", id);
        printf("%-24s %s\n", id, "checked");
    }
    CHECK(n >= 3, "only %d CPU in-place variants", n);
}

/* The production entry point (square and rectangular rows; AUTO on host memory is the CPU), on 1 and 3 threads, and
 * twice in a row: back to the start. */
static void production(void)
{
    int before = xpose_get_threads();
    for (int t = 1; t <= 3; t += 2) {
        xpose_set_threads(t);
        for (size_t e = 0; e < 5; e++) {
            CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_AUTO, 700, 700, elem_sizes[e], 1, NULL, 0, 5), XPOSE_OK,
                         "production square");
            CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 700, 1100, elem_sizes[e], 2, NULL, 0, 6), XPOSE_OK,
                         "production rect");
        }
    }
    xpose_set_threads(before);
    const size_t rows = 123, cols = 777, bytes = rows * cols * 8;
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    xv_fill_random(a, bytes, 3);
    memcpy(b, a, bytes);
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CPU, rows, cols, 8, 1, b, NULL, 0), XPOSE_OK, "forward");
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CPU, cols, rows, 8, 1, b, NULL, 0), XPOSE_OK, "back");
    CHECK(memcmp(a, b, bytes) == 0, "transposing in place twice is not the identity");
    free(a), free(b);
}

/* Groups longer than a thread's buffer go one at a time through the shared long-row buffer: rows (a short, very wide
 * matrix), and columns (the forward form forced on a tall one, whose columns are then the long side). */
static void long_groups(void)
{
    CHECK_STATUS(check_one("cpu-inplace-rect", XPOSE_BACKEND_CPU, 3, 300007, 4, 1, NULL, 0, 41), XPOSE_OK,
                 "rows longer than a buffer");
    CHECK_STATUS(check_one("cpu-inplace-rect", XPOSE_BACKEND_CPU, 140000, 2, 8, 1, NULL, 0, 42), XPOSE_OK,
                 "rows longer than a buffer, inverse form");
    const size_t rows = 70001, cols = 3, es = 16, bytes = rows * cols * es;
    xp_inplace_call c;
    memset(&c, 0, sizeof c);
    c.rows = rows, c.cols = cols, c.es = es, c.batch = 1, c.p0 = XP_CKG_FORWARD, c.query = 1;
    CHECK_STATUS(xp_cpu_inplace_rect(&c), XPOSE_OK, "query, forward form");
    unsigned char *a = malloc(bytes), *ref = malloc(bytes), *ws = aligned_alloc(64, (c.need + 63) & ~(size_t)63);
    xv_fill_random(a, bytes, 43);
    xpose_layout lay = {rows, cols, es, 0, 0, 1, 0, 0};
    xv_reference(&lay, a, ref);
    c.query = 0, c.data = a, c.ws = ws, c.ws_bytes = c.need;
    CHECK_STATUS(xp_cpu_inplace_rect(&c), XPOSE_OK, "columns longer than a buffer");
    CHECK(memcmp(a, ref, bytes) == 0, "columns longer than a buffer: wrong result");
    free(a), free(ref), free(ws);
}

/* Peels and forms: shapes that take each combination of peels (columns, rows, both, none) and each form after them
 * (square, tile, block, vector) at every element size, each against the
 * reference on 1, 2 and 3 threads, batches of them, and a caller's workspace of one slice (one thread) and one byte
 * less (refused, the data unchanged). */
typedef struct peel_case {
    size_t rows, cols, kr, kc; /* kr, kc: the peels at 1-byte elements (past a slice) */
    int form;                  /* and the form the rest takes */
    int widen;                 /* or a column added instead (xp_cpu_widen_rows): 1 wide, 2 tall */
} peel_case;

static void peels(void)
{
    static const peel_case cases[] = {
        {1201, 1203, 0, 2, XP_IP_SQUARE, 0}, /* near-square, two odd sides: two columns leave a square */
        {1203, 1201, 2, 0, XP_IP_SQUARE, 0}, /* and tall: two rows */
        {2003, 1000, 3, 0, XP_IP_TILE, 0},   /* rows: 2000 x 1000, gcd 1000 */
        {1000, 2003, 0, 3, XP_IP_TILE, 0},   /* columns */
        {1001, 2001, 0, 0, XP_IP_TILE, 1},   /* R x (2R - 1), primes' shape: a column added makes 1001 x 2002 */
        {700, 2099, 0, 0, XP_IP_TILE, 1},    /* R x (3R - 1) */
        {2001, 1001, 0, 0, XP_IP_TILE, 2},   /* tall: the same undone */
        {2099, 700, 0, 0, XP_IP_TILE, 2},
        {2001, 1003, 1, 3, XP_IP_TILE, 0},  /* a row and columns: 2000 x 1000, gcd 1000 */
        {4093, 811, 38, 0, XP_IP_TILE, 0},  /* primes: 38 rows leave 4055 = 5 x 811 */
        {3, 400009, 2, 0, XP_IP_VECTOR, 0}, /* two rows leave a vector: the rows' pass is the transpose */
        {2048, 1024, 0, 0, XP_IP_TILE, 0},  /* gcd 1024: the tile form as it is */
        {8192, 200, 0, 0, XP_IP_BLOCK, 0},  /* gcd 8: blocks of rows, then the chunks */
        {200, 8192, 0, 0, XP_IP_BLOCK, 0},  /* the chunks, then blocks of columns */
        {8193, 200, 1, 0, XP_IP_BLOCK, 0},  /* a row peeled, then the block form */
        {200, 8193, 0, 1, XP_IP_BLOCK, 0},  /* a column */
    };
    const int before = xpose_get_threads();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const peel_case pc = cases[k];
        size_t kr, kc;
        int widen;
        const int form = xp_cpu_inplace_peels(pc.rows, pc.cols, 1, &kr, &kc, &widen);
        CHECK(kr == pc.kr && kc == pc.kc && form == pc.form && widen == pc.widen,
              "%zux%zu bytes: peels %zu rows %zu columns, form %d, widened %d; want %zu, %zu, %d, %d", pc.rows, pc.cols,
              kr, kc, form, widen, pc.kr, pc.kc, pc.form, pc.widen);
        for (size_t e = 0; e < 5; e++)
            for (int t = 1; t <= 3; t++) {
                if (elem_sizes[e] == 16 && t == 2)
                    continue; /* the largest members: two thread counts will do */
                xpose_set_threads(t);
                CHECK_STATUS(check_one("cpu-inplace-rect", XPOSE_BACKEND_CPU, pc.rows, pc.cols, elem_sizes[e], 1, NULL,
                                       0, (unsigned)(k * 7 + e + 100 * t)),
                             XPOSE_OK, "peels %zux%zu es %zu threads %d", pc.rows, pc.cols, elem_sizes[e], t);
            }
    }
    for (int t = 1; t <= 3; t += 2) { /* batches: each member peeled in turn */
        xpose_set_threads(t);
        CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 1001, 2001, 4, 3, NULL, 0, 61), XPOSE_OK, "widened batch");
        CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 2001, 1001, 2, 2, NULL, 0, 68), XPOSE_OK, "narrowed batch");
        CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 1203, 1201, 2, 2, NULL, 0, 62), XPOSE_OK, "peel batch");
        CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 200, 8193, 4, 2, NULL, 0, 66), XPOSE_OK, "peel, block batch");
        CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 8192, 200, 8, 2, NULL, 0, 67), XPOSE_OK, "block batch");
    }
    /* A caller's workspace: one slice runs the peels on one thread; a byte less is refused before anything moves. */
    xpose_set_threads(3);
    const size_t slice = 1 << 20;
    unsigned char *ws = aligned_alloc(64, slice);
    CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 1001, 2001, 8, 1, ws, slice, 63), XPOSE_OK, "widened, one slice");
    CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 2001, 1001, 8, 1, ws, slice, 69), XPOSE_OK, "narrowed, one slice");
    CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 1001, 2001, 8, 1, ws, slice - 1, 64), XPOSE_ERR_NO_MEMORY,
                 "peels, a slice less one byte");
    CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 1201, 1203, 4, 1, ws, slice, 65), XPOSE_OK,
                 "column peels, one slice");
    free(ws);
    xpose_set_threads(before);
}

/* The workspace: the size the header states, a caller's (exact, the least, too small, misaligned, overlapping the
 * data), and a failed allocation; a refused call leaves the data unchanged (check_one checks it). */
static void workspace(void)
{
    const size_t rows = 600, cols = 1000, es = 4, member = rows * cols * es;
    const int t = xpose_get_threads();
    const size_t slice = 1 << 20, want = (size_t)t * slice; /* long rows (4000 bytes) fit a slice */
    CHECK(xpose_transpose_inplace_workspace(XPOSE_BACKEND_CPU, rows, cols, es, 1) == want,
          "workspace %zu, header says %zu", xpose_transpose_inplace_workspace(XPOSE_BACKEND_CPU, rows, cols, es, 1),
          want);
    CHECK(xpose_transpose_inplace_workspace(XPOSE_BACKEND_CPU, 700, 700, es, 1) == 0, "square: no workspace");
    CHECK(xpose_transpose_inplace_workspace(XPOSE_BACKEND_CPU, 1, 7000, es, 1) == 0, "vector: no workspace");
    CHECK(xpose_transpose_inplace_workspace(XPOSE_BACKEND_CPU, 10, 20, es, 1) == 832, "small: one slice of 800 -> 832");
    CHECK(xpose_transpose_inplace_workspace(XPOSE_BACKEND_CPU, 3, 300007, 4, 1) == (size_t)t * slice + 300007 * 4,
          "long rows: slices and one long row");
    CHECK(xpose_transpose_inplace_workspace(XPOSE_BACKEND_CPU, 10, 20, 3, 1) == 0, "bad element size: 0");
    (void)member;
    unsigned char *ws = aligned_alloc(64, want + 64);
    CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, rows, cols, es, 1, ws, want, 1), XPOSE_OK, "caller's workspace");
    CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, rows, cols, es, 1, ws, slice, 2), XPOSE_OK,
                 "one slice: one thread");
    CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, rows, cols, es, 1, ws, slice - 1, 3), XPOSE_ERR_NO_MEMORY,
                 "workspace one byte short");
    CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, rows, cols, es, 1, ws + 8, slice, 4), XPOSE_ERR_ALIGNMENT,
                 "misaligned workspace");
    CHECK_STATUS(check_one("cpu-inplace-square", XPOSE_BACKEND_CPU, 64, 64, es, 1, ws, 0, 5), XPOSE_OK,
                 "square: a workspace of 0 bytes");
    free(ws);
    /* A workspace inside the data. */
    unsigned char *m = malloc(member + (2 << 20));
    xv_fill_random(m, member, 9);
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CPU, rows, cols, es, 1, m, m + 64, 2 << 20), XPOSE_ERR_OVERLAP,
                 "workspace overlapping the data");
    free(m);
    xp_inplace_fail_alloc = 1;
    CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, rows, cols, es, 1, NULL, 0, 6), XPOSE_ERR_NO_MEMORY,
                 "allocation failure");
    CHECK_STATUS(check_one("cpu-inplace-rect", XPOSE_BACKEND_CPU, 40, 60, 16, 2, NULL, 0, 7), XPOSE_ERR_NO_MEMORY,
                 "allocation failure, small matrices");
    CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 500, 500, es, 1, NULL, 0, 8), XPOSE_OK,
                 "square: nothing to allocate");
    xp_inplace_fail_alloc = 0;
}

static void bad_input(void)
{
    float f[64];
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CPU, 4, 8, 3, 1, f, NULL, 0), XPOSE_ERR_ELEM_SIZE, "es 3");
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CPU, 4, 8, 4, 1, NULL, NULL, 0), XPOSE_ERR_NULL, "NULL data");
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CPU, 0, 8, 4, 1, NULL, NULL, 0), XPOSE_OK, "0 rows");
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CPU, 4, 4, 4, 1, (char *)f + 2, NULL, 0), XPOSE_ERR_ALIGNMENT,
                 "misaligned data");
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CPU, SIZE_MAX / 2, 4, 4, 1, f, NULL, 0), XPOSE_ERR_OVERFLOW,
                 "overflow");
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CPU, 1 << 20, 1 << 20, 4, (size_t)1 << 30, f, NULL, 0),
                 XPOSE_ERR_OVERFLOW, "batch overflow");
    CHECK_STATUS(xpose_transpose_inplace((xpose_backend)7, 4, 4, 4, 1, f, NULL, 0), XPOSE_ERR_INVALID, "backend 7");
    CHECK_STATUS(xpose_transpose_inplace_variant("no-such", 4, 4, 4, 1, f, NULL, 0), XPOSE_ERR_UNKNOWN_VARIANT,
                 "unknown variant");
    CHECK_STATUS(xpose_transpose_inplace_variant(NULL, 4, 4, 4, 1, f, NULL, 0), XPOSE_ERR_NULL, "NULL variant");
    CHECK_STATUS(xpose_transpose_inplace_variant("cpu-fast", 4, 4, 4, 1, f, NULL, 0), XPOSE_ERR_UNSUPPORTED,
                 "an out-of-place variant");
    xpose_layout lay = {4, 4, 4, 0, 0, 0, 0, 0};
    CHECK_STATUS(xpose_transpose_variant("cpu-inplace-rect", &lay, f, f + 16), XPOSE_ERR_UNSUPPORTED,
                 "an in-place variant out of place");
    int cuda = xpose_cuda_status();
    if (cuda != XPOSE_OK) {
        CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CUDA, 4, 4, 4, 1, f, NULL, 0), cuda, "CUDA without a GPU");
        CHECK_STATUS(xpose_transpose_inplace_variant("inplace-rect", 4, 8, 4, 1, f, NULL, 0), cuda,
                     "a GPU variant without a GPU");
    }
}

/* The GPU suites' check of their > 2^31-element cases (testing.c), on a small matrix: right, then one byte off. */
static void mismatch_counter(void)
{
    const size_t rows = 70, cols = 131;
    unsigned char *a = malloc(rows * cols), *t = malloc(rows * cols);
    xv_fill_random(a, rows * cols, 5);
    memcpy(t, a, rows * cols);
    CHECK_STATUS(xpose_transpose_inplace(XPOSE_BACKEND_CPU, rows, cols, 1, 1, t, NULL, 0), XPOSE_OK, "bytes");
    CHECK(t_transpose_mismatches(a, t, rows, cols) == 0, "a right transpose counted wrong");
    t[17] ^= 1;
    CHECK(t_transpose_mismatches(a, t, rows, cols) == 1, "one wrong byte not counted once");
    free(a), free(t);
}

/* xp_fdiv against the hardware division, on divisors and dividends at every edge. */
static void fast_division(void)
{
    static const uint32_t ds[] = {
        1,           2,           3,           5,           7,           10,         641,      1000,
        4096,        8191,        46341,       65535,       65536,       65537,      1u << 30, (1u << 30) + 1,
        2147483647u, 2147483648u, 2147483649u, 3000000019u, 4294967294u, 4294967295u};
    uint64_t s = 12345;
    size_t bad = 0;
    for (size_t k = 0; k < sizeof ds / sizeof ds[0] + 200; k++) {
        uint32_t d = k < sizeof ds / sizeof ds[0] ? ds[k] : (uint32_t)(xv_splitmix(&s) >> (32 + k % 32)) | 1u;
        xp_fdiv f = xp_fdiv_make(d);
        for (int t = 0; t < 3000; t++) {
            uint32_t n = t == 0   ? 0
                         : t == 1 ? d - 1
                         : t == 2 ? d
                         : t == 3 ? 4294967295u
                         : t == 4 ? d + 1
                                  : (uint32_t)xv_splitmix(&s) >> (t % 32);
            bad += xp_fdiv_div(f, n) != n / d || xp_fdiv_mod(f, n) != n % d;
        }
    }
    CHECK(bad == 0, "fast division wrong in %zu cases", bad);
}

/* xp_gcd against Euclid's divisions, and xp_mod_inverse by multiplying back, on small and 32-bit operands. */
static void modular_math(void)
{
    uint64_t s = 777;
    size_t bad = 0, inverses = 0;
    for (int t = 0; t < 20000; t++) {
        uint64_t x = t < 4096 ? (uint64_t)(t % 64) : xv_splitmix(&s) >> (32 + t % 31);
        uint64_t m = t < 4096 ? (uint64_t)(t / 64) : xv_splitmix(&s) >> (32 + t % 29);
        uint64_t e0 = x, e1 = m;
        while (e1) {
            const uint64_t r = e0 % e1;
            e0 = e1, e1 = r;
        }
        bad += xp_gcd(x, m) != e0;
        if (m > 1 && e0 == 1) {
            const uint64_t v = xp_mod_inverse(x, m);
            bad += v >= m || x % m * v % m != 1;
            inverses++;
        }
    }
    CHECK(bad == 0 && inverses > 1000, "gcd or inverse wrong in %zu cases (%zu inverses)", bad, inverses);
}

/* The passes of xp_inplace_math.h, run one element at a time through a second buffer, transpose: the definitions the
 * CPU and CUDA passes implement, on every shape up to 40 x 40 in both forms. */
static void pass_math(void)
{
    size_t bad = 0;
    unsigned *a = malloc(sizeof(unsigned) * 1600), *b = malloc(sizeof(unsigned) * 1600);
    for (size_t rows = 1; rows <= 40; rows++)
        for (size_t cols = 1; cols <= 40; cols++)
            for (int form = XP_CKG_FORWARD; form <= XP_CKG_INVERSE; form++) {
                xp_ckg k = xp_ckg_plan(rows, cols, form);
                xp_ckg_pass ps[3];
                int np = xp_ckg_passes(&k, ps);
                for (size_t x = 0; x < rows * cols; x++)
                    a[x] = (unsigned)x;
                for (int q = 0; q < np; q++) {
                    for (size_t i = 0; i < k.R; i++)
                        for (size_t j = 0; j < k.C; j++) {
                            size_t fi = i, fj = j;
                            if (ps[q].fn == XP_CKG_SHUF)
                                fj = xp_ckg_shuf(&k, i, j);
                            else
                                fi = ps[q].fn == XP_CKG_ROT ? xp_ckg_rot(&k, i, j) : xp_ckg_perm(&k, i, j);
                            if (ps[q].gather)
                                b[i * k.C + j] = a[fi * k.C + fj];
                            else
                                b[fi * k.C + fj] = a[i * k.C + j];
                        }
                    memcpy(a, b, sizeof(unsigned) * rows * cols);
                }
                for (size_t i = 0; i < rows; i++)
                    for (size_t j = 0; j < cols; j++)
                        bad += a[j * rows + i] != i * cols + j;
            }
    CHECK(bad == 0, "the passes misplace %zu elements", bad);
    free(a), free(b);
}

/* Bytes on pitches of whole 4 KiB pages take the staged pair swap (square_pair_staged): squares of 300 (edge tiles)
 * and 4096 inside rows of 4096 and 12288 bytes, every tile row, the bytes beside the square untouched; then the
 * production entry point on squares and on rectangles of such squares (the tile form), on 1 and 2 threads. */
static void page_pitch_bytes(void)
{
    const size_t cases[][2] = {{300, 4096}, {4096, 4096}, {1000, 12288}};
    for (size_t k = 0; k < 3; k++) {
        const size_t n = cases[k][0], ld = cases[k][1], bytes = n * ld;
        unsigned char *m = malloc(bytes), *src = malloc(bytes);
        if (!m || !src) {
            CHECK(0, "cannot allocate %zu bytes", bytes);
            free(m), free(src);
            return;
        }
        xv_fill_random(src, bytes, 51 + (unsigned)k);
        memcpy(m, src, bytes);
        for (size_t I = 0; I < xp_cpu_square_tiles(n, 1); I++)
            xp_cpu_square_tile_row(m, n, ld, 1, I);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < ld; j++)
                bad += m[i * ld + j] != (j < n ? src[j * ld + i] : src[i * ld + j]);
        CHECK(bad == 0, "square of %zu bytes on a pitch of %zu: %zu bytes wrong", n, ld, bad);
        free(m), free(src);
    }
    int before = xpose_get_threads();
    for (int t = 1; t <= 2; t++) {
        xpose_set_threads(t);
        CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 4096, 4096, 1, 1, NULL, 0, 61), XPOSE_OK, "4096^2 bytes");
        CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 8192, 4096, 1, 1, NULL, 0, 62), XPOSE_OK, "8192 x 4096 bytes");
        CHECK_STATUS(check_one(NULL, XPOSE_BACKEND_CPU, 4096, 12288, 1, 1, NULL, 0, 63), XPOSE_OK,
                     "4096 x 12288 bytes");
    }
    xpose_set_threads(before);
}

int main(void)
{
    mismatch_counter();
    fast_division();
    modular_math();
    pass_math();
    bad_input();
    workspace();
    long_groups();
    peels();
    page_pitch_bytes();
    production();
    variants();
    return t_finish("test_inplace");
}
