/* test_permute.c: N-d permutations on the CPU against the plain reference (reference/permute_ref.c): random ranks,
 * permutations, extents and strides at every element size, instruction set and a few thread counts, the destination
 * and its gaps poisoned; plans run many times and from several threads; (1,0) as xpose_transpose; every bad input. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "permute_ref.h"
#include "testing.h"
#include "xpose_cuda.h"

#define GUARD 64 /* poisoned bytes before and after every destination span */

static uint64_t rng = 0x5EED;
static size_t rnd(size_t n) { return (size_t)(xv_splitmix(&rng) % n); }

/* One case: the public description and its storage. */
typedef struct tcase {
    size_t es;
    int rank;
    size_t ext[XPOSE_MAX_RANK];
    int perm[XPOSE_MAX_RANK];
    int64_t ss[XPOSE_MAX_RANK], ds[XPOSE_MAX_RANK];
    int dense_src, dense_dst; /* pass NULL strides */
} tcase;

static xv_perm_desc desc_of(const tcase *c)
{
    return (xv_perm_desc){c->es, c->rank, c->ext, c->perm, c->dense_src ? NULL : c->ss, c->dense_dst ? NULL : c->ds};
}

static void describe_case(const tcase *c, char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "es %zu ext (", c->es);
    for (int k = 0; k < c->rank && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "%s%zu", k ? "," : "", c->ext[k]);
    len += (size_t)snprintf(buf + len, n > len ? n - len : 0, ") perm (");
    for (int k = 0; k < c->rank && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "%s%d", k ? "," : "", c->perm[k]);
    if (!c->dense_src && len < n) {
        len += (size_t)snprintf(buf + len, n - len, ") ss (");
        for (int k = 0; k < c->rank && len < n; k++)
            len += (size_t)snprintf(buf + len, n - len, "%s%lld", k ? "," : "", (long long)c->ss[k]);
    }
    if (!c->dense_dst && len < n) {
        len += (size_t)snprintf(buf + len, n - len, ") ds (");
        for (int k = 0; k < c->rank && len < n; k++)
            len += (size_t)snprintf(buf + len, n - len, "%s%lld", k ? "," : "", (long long)c->ds[k]);
    }
    if (len < n)
        snprintf(buf + len, n - len, ")");
}

/* Strides of a tensor of extents e stored in the order `order` (order[0] slowest) with up to `pad` elements of
 * padding per dimension: positive, and every element its own place. */
static void padded_strides(int rank, const size_t *e, const int *order, size_t pad, int64_t *st)
{
    int64_t s = 1;
    for (int k = rank - 1; k >= 0; k--) {
        st[order[k]] = s;
        s = s * (int64_t)e[order[k]] + (int64_t)(pad ? rnd(pad + 1) : 0);
    }
}

static void shuffle(int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rnd((size_t)i + 1), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

static const size_t elem_sizes[5] = {1, 2, 4, 8, 16};
static const char *const isas[] = {"scalar", "avx2", "avx512"}; /* XPOSE_CPU_ISA caps: every kernel set */

/* A dense case of es-byte elements: extents ext and permutation perm of `rank` dimensions. */
static tcase shape_case(size_t es, int rank, const size_t *ext, const int *perm)
{
    tcase c;
    memset(&c, 0, sizeof c);
    c.es = es;
    c.rank = rank;
    memcpy(c.ext, ext, sizeof(size_t) * (size_t)rank);
    memcpy(c.perm, perm, sizeof(int) * (size_t)rank);
    c.dense_src = c.dense_dst = 1;
    return c;
}

/* A random case of up to `cap` elements: extents with 1s, primes and small fastest ones, strides dense, padded,
 * stored in another order, reversed (negative), broadcast (0), and odd strides on extent-1 dimensions. */
static void random_case(tcase *c, size_t cap)
{
    static const size_t pool[] = {1, 2, 3, 4, 5, 7, 8, 11, 13, 16, 17, 23, 31, 32, 33, 64, 67, 100, 128, 257};
    memset(c, 0, sizeof *c);
    c->es = elem_sizes[rnd(5)];
    c->rank = 1 + (int)rnd(8);
    size_t n = 1;
    for (int k = 0; k < c->rank; k++) {
        c->ext[k] = pool[rnd(sizeof pool / sizeof pool[0])];
        c->perm[k] = k;
    }
    if (rnd(3) == 0) /* a small fastest extent, of the source or of the destination */
        c->ext[rnd(2) ? (size_t)c->rank - 1 : rnd((size_t)c->rank)] = 2 + rnd(3);
    for (;;) {
        n = 1;
        int big = 0;
        for (int k = 0; k < c->rank; k++) {
            n *= c->ext[k];
            big = c->ext[k] > c->ext[big] ? k : big;
        }
        if (n <= cap)
            break;
        c->ext[big] = (c->ext[big] + 1) / 2;
    }
    shuffle(c->perm, c->rank);
    int order[XPOSE_MAX_RANK];
    c->dense_src = rnd(3) == 0;
    if (!c->dense_src) {
        for (int k = 0; k < c->rank; k++)
            order[k] = k;
        if (rnd(3) == 0)
            shuffle(order, c->rank);
        padded_strides(c->rank, c->ext, order, rnd(2) ? 3 : 0, c->ss);
        for (int k = 0; k < c->rank; k++) {
            size_t r = rnd(10);
            if (r == 0)
                c->ss[k] = -c->ss[k]; /* a reversed view */
            else if (r == 1)
                c->ss[k] = 0; /* broadcast */
            if (c->ext[k] == 1 && rnd(3) == 0)
                c->ss[k] = (int64_t)rnd(5) - 2; /* never looked at */
        }
    }
    c->dense_dst = rnd(2) == 0;
    if (!c->dense_dst) {
        size_t de[XPOSE_MAX_RANK];
        for (int k = 0; k < c->rank; k++) {
            de[k] = c->ext[c->perm[k]];
            order[k] = k;
        }
        if (rnd(4) == 0)
            shuffle(order, c->rank);
        padded_strides(c->rank, de, order, rnd(2) ? 5 : 1, c->ds);
        for (int k = 0; k < c->rank; k++)
            if (de[k] == 1 && rnd(3) == 0)
                c->ds[k] = (int64_t)rnd(5) - 2;
    }
}

/* Storage of a case: the source with random data around element 0, the destination with GUARD poisoned bytes either
 * side and `doff` elements of offset (to move rows off cache lines), or starting on a cache line where dst_on_line is
 * set, the reference result beside it. */
static int dst_on_line;
typedef struct bufs {
    unsigned char *src_mem, *dst_mem, *ref_mem;
    const unsigned char *src;
    size_t dst_total, doff;
} bufs;

static int bufs_make(const tcase *c, bufs *b)
{
    xv_perm_desc d = desc_of(c);
    int64_t lo, hi;
    size_t dh;
    xv_permute_spans(&d, &lo, &hi, &dh);
    size_t soff = c->es * rnd(3);
    b->doff = dst_on_line ? 0 : c->es * rnd(3);
    b->dst_total = 2 * GUARD + b->doff + dh;
    b->src_mem = malloc((size_t)(hi - lo) + soff + 1);
    /* GUARD is a line: dst_mem on a line puts the destination on one */
    b->dst_mem = dst_on_line ? aligned_alloc(64, (b->dst_total + 63) / 64 * 64) : malloc(b->dst_total);
    b->ref_mem = malloc(b->dst_total);
    if (!b->src_mem || !b->dst_mem || !b->ref_mem) {
        free(b->src_mem), free(b->dst_mem), free(b->ref_mem);
        CHECK(0, "cannot allocate a case");
        return 0;
    }
    xv_fill_random(b->src_mem, (size_t)(hi - lo) + soff + 1, xv_splitmix(&rng));
    b->src = b->src_mem + soff - lo;
    xv_poison(b->ref_mem, b->dst_total);
    xv_permute_reference(&d, b->src, b->ref_mem + GUARD + b->doff);
    return 1;
}

static void bufs_free(bufs *b) { free(b->src_mem), free(b->dst_mem), free(b->ref_mem); }

static unsigned char *dst_of(const bufs *b, unsigned char *mem) { return mem + GUARD + b->doff; }

/* The destination equals the reference in every byte, its gaps and guards still poison. */
static int matches(const tcase *c, const bufs *b, const unsigned char *mem, const char *how)
{
    size_t first = 0, bad = xv_compare(mem, b->ref_mem, b->dst_total, &first);
    if (bad) {
        char text[512];
        describe_case(c, text, sizeof text);
        CHECK(bad == 0, "%s: %zu bytes differ, first at %zu of %zu (guard %d, offset %zu): %s", how, bad, first,
              b->dst_total, GUARD, b->doff, text);
    } else
        t_checks++;
    return bad == 0;
}

/* The routes the random cases took (the describe text after "-> " starts with one), so that a planner change that
 * stops sending cases down one of them fails the suite instead of leaving that route untested. */
static const char *const routes[] = {"copy/",     "transpose/",    "rows/",     "tiles/",
                                     "elements/", "gathered rows", "scattered", "region tiles"};
static int route_seen[8];

static void count_route(const xpose_permute_plan plan)
{
    char how[512];
    xpose_permute_plan_describe(plan, XPOSE_BACKEND_CPU, how, sizeof how);
    const char *r = strstr(how, "-> ");
    for (int k = 0; k < 5; k++)
        route_seen[k] += r && !strncmp(r + 3, routes[k], strlen(routes[k]));
    for (int k = 5; k < 8; k++)
        route_seen[k] += strstr(how, routes[k]) != NULL;
}

/* Plans and runs one case both ways (plan executed twice, and the one-shot call), on `backend`. */
static void run_case(const tcase *c, xpose_backend backend)
{
    bufs b;
    if (!bufs_make(c, &b))
        return;
    xv_perm_desc d = desc_of(c);
    xpose_permute_plan plan = NULL;
    char text[512];
    describe_case(c, text, sizeof text);
    int st = xpose_permute_plan_create(&plan, backend, c->es, c->rank, c->ext, c->perm, d.src_strides, d.dst_strides);
    CHECK_STATUS(st, XPOSE_OK, "plan %s", text);
    if (st == XPOSE_OK)
        count_route(plan);
    for (int rep = 0; rep < 2 && st == XPOSE_OK; rep++) {
        xv_poison(b.dst_mem, b.dst_total);
        st = xpose_permute_execute(plan, b.src, dst_of(&b, b.dst_mem));
        CHECK_STATUS(st, XPOSE_OK, "execute %s", text);
        if (st == XPOSE_OK && !matches(c, &b, b.dst_mem, "plan")) {
            char how[512];
            xpose_permute_plan_describe(plan, XPOSE_BACKEND_CPU, how, sizeof how);
            fprintf(stderr, "    plan: %s\n", how);
            break;
        }
    }
    xpose_permute_plan_destroy(plan);
    xv_poison(b.dst_mem, b.dst_total);
    st = xpose_permute(backend, c->es, c->rank, c->ext, c->perm, b.src, d.src_strides, dst_of(&b, b.dst_mem),
                       d.dst_strides);
    CHECK_STATUS(st, XPOSE_OK, "one-shot %s", text);
    if (st == XPOSE_OK)
        matches(c, &b, b.dst_mem, "one-shot");
    bufs_free(&b);
}

/* Random cases under every instruction set cpu-fast may pick and 1, 2 and 3 threads; some above the size from which
 * the CPU kernels use threads and streaming stores. */
static void test_random(void)
{
    for (int i = 0; i < 3; i++) {
        setenv("XPOSE_CPU_ISA", isas[i], 1);
        for (int t = 1; t <= 3; t++) {
            xpose_set_threads(t);
            for (int k = 0; k < 120; k++) {
                tcase c;
                random_case(&c, rnd(5) == 0 ? 400000 : 6000);
                run_case(&c, k % 3 == 0 ? XPOSE_BACKEND_AUTO : XPOSE_BACKEND_CPU);
            }
        }
    }
    unsetenv("XPOSE_CPU_ISA");
    xpose_set_threads(2);
    for (int k = 0; k < 8; k++)
        CHECK(route_seen[k] >= 10, "only %d random cases took the route %s", route_seen[k], routes[k]);
}

/* Whether the CPU plan of case c says `what` (a route or kernel marker of xpose_permute_plan_describe). */
static int plan_says(const tcase *c, const char *what)
{
    xv_perm_desc d = desc_of(c);
    xpose_permute_plan plan = NULL;
    char how[512] = "";
    if (xpose_permute_plan_create(&plan, XPOSE_BACKEND_CPU, c->es, c->rank, c->ext, c->perm, d.src_strides,
                                  d.dst_strides) == XPOSE_OK)
        xpose_permute_plan_describe(plan, XPOSE_BACKEND_CPU, how, sizeof how);
    xpose_permute_plan_destroy(plan);
    return strstr(how, what) != NULL;
}

/* A tensor's extents and permutation, up to rank 5. */
typedef struct perm_shape {
    int rank;
    size_t ext[5];
    int perm[5];
} perm_shape;

/* The destination dense (pad 0), each of its dimensions padded by a line's worth of elements (1) or by one (2), or
 * (3) the outer ones by a line. */
static void pad_dst(tcase *c, int pad)
{
    c->dense_dst = pad == 0;
    int64_t st = 1;
    for (int m = c->rank - 1; pad && m >= 0; m--) {
        c->ds[m] = st;
        const int64_t line = (int64_t)(64 / c->es);
        st = st * (int64_t)c->ext[c->perm[m]] + (pad == 2 ? 1 : pad == 3 && m == c->rank - 1 ? 0 : line);
    }
}

/* The tiles' two layouts that skip the gathering and staging passes, at every element size, with odd and prime
 * extents, past the size from which threads and streaming stores start, dense and with padded strides (whole-line
 * padding, which keeps the source-order walk; odd padding, which sends the case elsewhere), under every instruction
 * set: members walked in source order where destination rows are whole lines (a reversal whose fastest destination
 * extent is 128 bytes; of 64 bytes, with the next destination dimension walked in pairs where its extent is even and
 * the rows dense, each pair's tiles taking turns, also with streaming stores and two tiles a member), gathered rows copied in runs ((2,0,4,1,3) with rows of 28 and 13 elements), and both where
 * the gathered rows are whole lines ((2,0,4,1,3) with rows of 28 x 28 floats, or of 64 bytes x 7; with padding of the
 * destination's outer dimensions only, which keeps them); gathered row runs read in place, without the copy (runs of
 * rows of 80 and 112 bytes, 28 floats x 28), and in streamed calls staged a member at a time. */
static void test_tile_layouts(void)
{
    int source_order = 0, row_runs = 0, gathered_in_order = 0, paired = 0, in_place = 0, members = 0;
    for (int i = 0; i < 3; i++) {
        setenv("XPOSE_CPU_ISA", isas[i], 1);
        for (int e = 0; e < 5; e++) {
            const size_t es = elem_sizes[e];
            const perm_shape shapes[] = {
                {4, {128 / es, 37, 41, 7}, {3, 2, 1, 0}},     /* rows of 128 bytes */
                {4, {64 / es, 3, 5, 2}, {3, 2, 1, 0}},        /* rows of a line */
                {5, {64 / es, 6, 3, 4, 37}, {4, 3, 2, 1, 0}}, /* rows of a line, walked in pairs */
                /* pairs taking turns in streamed tiles, columns past a tile's width (two tiles a member) */
                {5, {64 / es, 6, 5, 2, 1024 / es + 37}, {4, 3, 2, 1, 0}},
                {5, {6, 28, 5, 28, 28}, {2, 0, 4, 1, 3}},      /* rows of 28 x 28 */
                {5, {5, 13, 3, 13, 13}, {2, 0, 4, 1, 3}},      /* rows of 13 x 13 */
                {5, {40, 64 / es, 5, 7, 11}, {2, 0, 4, 1, 3}}, /* rows of 64 / es x 7 */
                /* runs of rows of 80 or 112 bytes, 32 or 48 wide (whole lines a member: in source order): read
                 * in place, blocks across two runs with AVX2 and AVX-512 */
                {5, {12, 4, 10, 80 / es, 32 / es}, {2, 0, 4, 1, 3}},
                {5, {9, 4, 7, 112 / es, 48 / es}, {2, 0, 4, 1, 3}},
            };
            for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
                for (int pad = 0; pad < 4; pad++) {
                    tcase c = shape_case(es, shapes[k].rank, shapes[k].ext, shapes[k].perm);
                    pad_dst(&c, pad);
                    const int in_order = plan_says(&c, "members in source order"),
                              whole = plan_says(&c, "row runs, a member at a time"),
                              runs = plan_says(&c, "gathered row runs") || plan_says(&c, "row runs read in place") ||
                                     whole;
                    in_place += plan_says(&c, "row runs read in place");
                    members += whole;
                    paired += plan_says(&c, "lines paired");
                    source_order += in_order;
                    row_runs += runs;
                    gathered_in_order += in_order && runs;
                    xpose_set_threads(1 + (int)(k + (size_t)pad) % 3);
                    run_case(&c, XPOSE_BACKEND_CPU);
                }
        }
    }
    unsetenv("XPOSE_CPU_ISA");
    xpose_set_threads(2);
    CHECK(source_order >= 15, "only %d cases walked members in source order", source_order);
    CHECK(row_runs >= 15, "only %d cases gathered rows in runs", row_runs);
    CHECK(paired >= 15, "only %d cases walked lines in pairs", paired);
    printf("test_tile_layouts: %d cases read row runs in place, %d staged them a member at a time\n", in_place,
           members);
    CHECK(in_place >= 12, "only %d cases read row runs in place", in_place);
    CHECK(members >= 12, "only %d cases staged row runs a member at a time", members);
    CHECK(gathered_in_order >= 30, "only %d cases gathered rows and walked members in source order", gathered_in_order);
}

/* After cases forced onto AVX2: the defaults back; whether this machine runs AVX2 (where the plans' checks hold). */
static int avx2_done(void)
{
    dst_on_line = 0;
    unsetenv("XPOSE_CPU_ISA");
    xpose_set_threads(2);
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

/* Members of gathered row runs staged whole (cpu_fast.c's run_member) under AVX2, streamed, at every element size (1 and
 * 2 bytes take staged tiles): the (2,0,4,1,3) layout with runs of 112 bytes (blocks across two runs), members of 4 and
 * 28 runs, columns of 112 and 48 bytes; members of 128 runs, more than a member staged whole may have (read in place),
 * and members whose destination rows are not whole lines (2912 bytes: read in place); the destination dense and with
 * its outer dimensions padded (which keeps the rows' two dimensions together); 1 to 3 threads. */
static void test_staged_members(void)
{
    int staged = 0, total = 0, wrong = 0; /* cases staged; of them, and of those not, the ones against the plan above */
    setenv("XPOSE_CPU_ISA", "avx2", 1);
    for (int e = 0; e < 5; e++) {
        const size_t es = elem_sizes[e];
        const perm_shape shapes[] = {
            {5, {6, 4, 24, 112 / es, 112 / es}, {2, 0, 4, 1, 3}},  /* members of 4 runs */
            {5, {4, 28, 24, 112 / es, 112 / es}, {2, 0, 4, 1, 3}}, /* of 28 */
            {5, {4, 28, 9, 112 / es, 48 / es}, {2, 0, 4, 1, 3}},   /* columns of 48 bytes */
            {5, {8, 128, 4, 32 / es, 48 / es}, {2, 0, 4, 1, 3}},   /* 128 runs: read in place */
            {5, {4, 26, 9, 112 / es, 48 / es}, {2, 0, 4, 1, 3}},   /* rows off lines: read in place */
        };
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            for (int pad = 0; pad < 4; pad += 3) {
                tcase c = shape_case(es, shapes[k].rank, shapes[k].ext, shapes[k].perm);
                pad_dst(&c, pad);
                const int whole = plan_says(&c, "a member at a time");
                staged += whole;
                wrong += whole != (es >= 4 && k < 3);
                total++;
                xpose_set_threads(1 + (int)(k + (size_t)pad) % 3);
                run_case(&c, XPOSE_BACKEND_CPU);
            }
    }
    if (avx2_done())
        CHECK(!wrong, "%d of %d cases staged members whole where they should not, or not where they should", wrong,
              total);
    printf("test_staged_members: %d of %d cases staged members whole\n", staged, total);
}

/* Dense tiles staged in chunks (cpu_fast.c's run_chunk) under AVX2, streamed: NHWC -> NCHW float ((N, HW, C) ->
 * (N, C, HW)) with 64 and 48 channels, members of 784 rows (the last chunk 16 rows short of 64), the destination dense
 * and padded by a line (both staged) or by one element, and members of 756 rows (3024 bytes, off lines): not staged
 * so; the destination on a line and off it (then not staged so either), 1 to 3 threads. */
static void test_staged_chunks(void)
{
    int staged = 0, wrong = 0;
    setenv("XPOSE_CPU_ISA", "avx2", 1);
    const perm_shape shapes[] = {
        {3, {4, 784, 64}, {0, 2, 1}},
        {3, {4, 784, 48}, {0, 2, 1}},
        {3, {4, 756, 64}, {0, 2, 1}},
    };
    for (size_t k = 0; k < 3; k++)
        for (int pad = 0; pad < 3; pad++)
            for (dst_on_line = 0; dst_on_line < 2; dst_on_line++) {
                tcase c = shape_case(4, shapes[k].rank, shapes[k].ext, shapes[k].perm);
                pad_dst(&c, pad);
                const int chunks = plan_says(&c, "in chunks");
                staged += chunks && dst_on_line;
                wrong += chunks != (k < 2 && pad < 2);
                xpose_set_threads(1 + (int)(k + (size_t)pad) % 3);
                run_case(&c, XPOSE_BACKEND_CPU);
            }
    if (avx2_done())
        CHECK(!wrong, "%d of 18 cases staged dense chunks where they should not, or not where they should", wrong);
    printf("test_staged_chunks: %d of 18 cases staged dense tiles in chunks (on a line)\n", staged);
}

/* Random shapes for the two staging paths under AVX2, streamed (512 KiB and more): (2,0,4,1,3) members of row runs
 * (4- to 16-byte elements, runs of 64, 112 or 128 bytes of rows, 2-40 runs, columns of 16-128 bytes, members up to 96
 * KiB) and (N, HW, C) -> (N, C, HW) dense tiles (every element size, HW a line's multiple of bytes or not, 2-130
 * channels); the destination dense or padded (pad_dst), on a line or not, 1 to 3 threads. Each path must be taken by
 * a fair share of its cases, so that the shapes keep reaching it. */
static void test_staged_random(void)
{
    int members = 0, chunks = 0;
    const int n = 40;
    const uint64_t keep = rng;
    rng = 0x57A6ED; /* its own cases, whatever ran before */
    setenv("XPOSE_CPU_ISA", "avx2", 1);
    for (int k = 0; k < 2 * n; k++) {
        tcase c;
        if (k < n) {
            static const size_t run_bytes[4] = {64, 112, 112, 128};
            const size_t es = elem_sizes[2 + rnd(3)], rb = run_bytes[rnd(4)];
            size_t e[5] = {1 + rnd(6), 2 + rnd(39), 1 + rnd(8), rb / es, (1 + rnd(8)) * 16 / es};
            if (rb == 112) /* whole destination lines: runs of 112 bytes in fours */
                e[1] = (e[1] + 3) / 4 * 4;
            while (e[1] * e[3] * e[4] * es > (96u << 10) && e[1] > 4)
                e[1] -= rb == 112 ? 4 : 1;
            while (e[0] * e[1] * e[2] * e[3] * e[4] * es < (512u << 10))
                e[0] *= 2;
            static const int p[5] = {2, 0, 4, 1, 3};
            c = shape_case(es, 5, e, p);
        } else {
            const size_t es = elem_sizes[rnd(5)], line = 64 / es;
            size_t e[3] = {1, rnd(2) ? (2 + rnd(20)) * line : 100 + rnd(1100), 2 + rnd(129)};
            while (e[0] * e[1] * e[2] * es < (512u << 10))
                e[0] *= 2;
            static const int p[3] = {0, 2, 1};
            c = shape_case(es, 3, e, p);
        }
        pad_dst(&c, (int)rnd(4));
        dst_on_line = rnd(3) != 0;
        members += plan_says(&c, "a member at a time");
        chunks += plan_says(&c, "in chunks");
        xpose_set_threads(1 + (int)rnd(3));
        run_case(&c, XPOSE_BACKEND_CPU);
    }
    rng = keep;
    if (avx2_done()) {
        CHECK(members >= n / 8, "only %d of %d random cases staged members whole", members, 2 * n);
        CHECK(chunks >= n / 4, "only %d of %d random cases staged dense tiles in chunks", chunks, 2 * n);
    }
    printf("test_staged_random: of %d cases %d staged members whole, %d dense tiles in chunks\n", 2 * n, members,
           chunks);
}

/* Tiles shaped for AVX2 bands (cpu_permute.c's plan_band_tile), 2 MiB and more at every element size up to 8 bytes:
 * destination rows of 256 bytes (a band) and 336 (off line phase: each band tile's first band also does the rows
 * above it) with the source dimensions after the columns scattered, two strips a member; rows gathered from two
 * dimensions (the (4,1,3,0,2) layout); each with the destination dense and padded (the third way with the source's
 * slowest dimension padded too), on a line (rows of whole lines leave a run of rows at a time) and off it, 1 to 3
 * threads. */
static void test_band_tiles(void)
{
    int banded = 0, total = 0;
    setenv("XPOSE_CPU_ISA", "avx2", 1);
    for (int e = 0; e < 4; e++) {
        const size_t es = elem_sizes[e];
        const perm_shape shapes[] = {
            {4, {256 / es, 8, 16, 64}, {3, 2, 1, 0}},
            {4, {336 / es, 7, 16, 64}, {3, 2, 1, 0}},
            {5, {16, 2, 128 / es, 16, 64}, {4, 1, 3, 0, 2}},
        };
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            for (int pad = 0; pad < 4; pad++)
                for (dst_on_line = 0; dst_on_line < 2; dst_on_line++) {
                    tcase c = shape_case(es, shapes[k].rank, shapes[k].ext, shapes[k].perm);
                    pad_dst(&c, pad);
                    if (pad == 3) { /* the source's slowest dimension padded too: members off the source's lines */
                        int64_t st = 1;
                        for (int m = c.rank - 1; m >= 0; m--, st *= (int64_t)c.ext[m + 1])
                            c.ss[m] = st + (m == 0 ? 17 : 0);
                        c.dense_src = 0;
                    }
                    banded += plan_says(&c, "band tiles");
                    total++;
                    xpose_set_threads(1 + (int)(k + (size_t)pad) % 3);
                    run_case(&c, XPOSE_BACKEND_CPU);
                }
    }
    if (avx2_done())
        CHECK(banded * 2 >= total, "only %d of %d cases took band tiles", banded, total);
    printf("test_band_tiles: %d of %d cases in band tiles\n", banded, total);
}

/* Tiles that take whole source rows back to back (NHWC -> NCHW with C up to a tile's 1 KiB: (3, 64, 37, C) and (5, 16,
 * 37, C) (0, 3, 1, 2), C prime or 1 KiB; the second's destination rows of 592 elements are whole lines from 4 bytes on,
 * partial tiles of 8-byte ones), large enough for streaming stores, under every instruction set and element size, 1 to
 * 3 threads (runs of dense tiles): dense (the region kernels that prefetch the next tile, or staged in chunks), the
 * destination padded by a line (still dense), and the source padded by a line (rows apart: the plain region kernels). */
static void test_dense_tiles(void)
{
    int dense = 0;
    for (int i = 0; i < 3; i++) {
        setenv("XPOSE_CPU_ISA", isas[i], 1);
        for (int e = 0; e < 5; e++) {
            const size_t es = elem_sizes[e], cs[2] = {61, 1024 / es}, hs[2] = {64, 16};
            for (int k = 0; k < 4; k++)
                for (int pad = 0; pad < 3; pad++) {
                    const size_t ext[4] = {3 + 2 * (size_t)(k / 2), hs[k / 2], 37, cs[k % 2]};
                    const int perm[4] = {0, 3, 1, 2};
                    tcase c = shape_case(es, 4, ext, perm);
                    c.dense_src = pad != 1;
                    c.dense_dst = pad != 2;
                    const int64_t line = (int64_t)(64 / es);
                    for (int m = c.rank - 1, st = 1, sd = 1; m >= 0; m--) {
                        c.ss[m] = st;
                        c.ds[m] = sd;
                        st = st * (int)c.ext[m] + (pad == 1 && m == 3 ? (int)line : 0);         /* row pitch C + line */
                        sd = sd * (int)c.ext[c.perm[m]] + (pad == 2 && m == 2 ? (int)line : 0); /* H W + line */
                    }
                    const int says = plan_says(&c, "dense region tiles") || plan_says(&c, "staged dense tiles");
                    CHECK(!says || pad != 1, "a padded source took the dense tiles (es %zu)", es);
                    dense += says;
                    xpose_set_threads(1 + (k + pad) % 3);
                    run_case(&c, XPOSE_BACKEND_CPU);
                }
        }
    }
    unsetenv("XPOSE_CPU_ISA");
    xpose_set_threads(2);
    /* Dense tiles, through the region kernels or staged in chunks: avx512 takes all but the second shape's 1- and
     * 2-byte rows (not whole lines: joined lines) and the first shape's 61 bytes (padded narrow), avx2 the 2- to
     * 16-byte ones (its narrower blocks stage 1-byte tiles, and 2-byte ones of 16 rows): 2 paddings x (15 + 14), where
     * the CPU has them */
    int want = 0;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    want = __builtin_cpu_supports("avx512bw") ? 58 : __builtin_cpu_supports("avx2") ? 28 : 0;
#endif
    CHECK(dense >= want, "only %d cases took dense tiles", dense);
}

/* Runs copied whole (the destination's fastest dimension is the source's), past the size from which threads and
 * streaming stores start, at every element size, under every instruction set, 1 to 3 threads, into a destination on a
 * cache line and off it: runs of whole lines (4 lines, one line) walked in source order, back to back in the source
 * (the copy read as one stream) or not (the source padded by a line or by one element, an outer dimension reversed
 * or broadcast), the destination padded by a line (still in source order) or by one element, and runs of part lines
 * (destination order), in blocks of 8, 4 or 2 runs or none (an odd extent), staged where they lie back to back in
 * the destination. */
static void test_row_runs(void)
{
    int in_order = 0, stream = 0, blocks = 0, staged = 0, cases = 0;
    for (int i = 0; i < 3; i++) {
        setenv("XPOSE_CPU_ISA", isas[i], 1);
        for (int e = 0; e < 5; e++) {
            const size_t es = elem_sizes[e], line = 64 / es;
            const struct {
                int rank;
                size_t ext[5];
                int perm[5];
            } shapes[] = {
                {3, {37, 29, 4 * line}, {1, 0, 2}},
                {4, {5, 7, 23, line}, {0, 2, 1, 3}},
                {5, {3, 5, 3, 7, 2 * line}, {2, 0, 3, 1, 4}},
                {3, {31, 23, 3 * line + 1}, {1, 0, 2}},
                /* part lines in blocks of 8 (40 runs in the destination's fastest outer dimension), 4 (36), 2 (30) */
                {4, {12, 40, 5, 2 * line + 3}, {0, 2, 1, 3}},
                {3, {36, 30, 3 * line + 1}, {1, 0, 2}},
                {3, {30, 36, 2 * line + 3}, {1, 0, 2}},
            };
            for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
                for (int var = 0; var < 7; var++) {
                    tcase c = shape_case(es, shapes[k].rank, shapes[k].ext, shapes[k].perm);
                    /* var: 0 dense; 1, 2 the source padded by a line, by one; 3 the destination padded by a line;
                     * 4 by one; 5, 6 the source's next-to-last dimension reversed, broadcast */
                    c.dense_src = var != 1 && var != 2 && var != 5 && var != 6;
                    c.dense_dst = var != 3 && var != 4;
                    const int pad = var == 1 || var == 3 ? (int)line : 1;
                    for (int m = c.rank - 1, st = 1, sd = 1; m >= 0; m--) {
                        c.ss[m] = st;
                        c.ds[m] = sd;
                        st = st * (int)c.ext[m] + (var == 1 || var == 2 ? pad : 0);
                        sd = sd * (int)c.ext[c.perm[m]] + (var == 3 || var == 4 ? pad : 0);
                    }
                    if (var == 5) /* the source dimension that continues the runs, walked fastest */
                        c.ss[c.rank - 2] = -c.ss[c.rank - 2];
                    if (var == 6)
                        c.ss[c.rank - 2] = 0;
                    in_order += plan_says(&c, "in source order");
                    stream += plan_says(&c, "one stream");
                    blocks += plan_says(&c, "in blocks of");
                    staged += plan_says(&c, "staged");
                    for (int on_line = 0; on_line < 2; on_line++) {
                        dst_on_line = on_line;
                        xpose_set_threads(1 + (int)(k + (size_t)var + (size_t)on_line) % 3);
                        run_case(&c, XPOSE_BACKEND_CPU);
                        cases++;
                    }
                }
        }
    }
    dst_on_line = 0;
    unsetenv("XPOSE_CPU_ISA");
    xpose_set_threads(2);
    /* whole-line runs in 3 shapes x 6 variants (all but the destination padded by one), of which the dense one and
     * the destination padded by a line are one stream, at 5 element sizes under 3 sets */
    CHECK(in_order == 3 * 6 * 15, "%d of %d cases of runs walked in source order", in_order, 3 * 6 * 15);
    CHECK(stream == 3 * 2 * 15, "%d of %d cases of runs read as one stream", stream, 3 * 2 * 15);
    /* part lines: in blocks where the destination's fastest outer dimension's extent is even (3 shapes; in the two
     * of rank 3 all variants but the broadcast one, which leaves no source dimension to walk between the blocks),
     * staged where the runs lie back to back in the destination (4 shapes, all variants but the destination padded) */
    CHECK(blocks == (7 + 6 + 6) * 15, "%d of %d cases of runs walked in blocks", blocks, (7 + 6 + 6) * 15);
    CHECK(staged == 4 * 5 * 15, "%d of %d cases of runs staged", staged, 4 * 5 * 15);
    CHECK(cases == 3 * 5 * 7 * 7 * 2, "%d cases of runs", cases);
}

/* The suite's cases of the issue, shrunk: the layouts the planner must route well, each against the reference. */
static void test_suite_shapes(void)
{
    static const struct {
        size_t es;
        int rank;
        size_t ext[6];
        int perm[6];
    } cases[] = {
        {4, 4, {4, 32, 14, 14}, {0, 2, 3, 1}},      /* NCHW -> NHWC */
        {1, 4, {4, 14, 14, 32}, {0, 3, 1, 2}},      /* NHWC -> NCHW */
        {2, 4, {2, 64, 8, 32}, {0, 2, 1, 3}},       /* attention */
        {2, 5, {2, 64, 3, 4, 32}, {2, 0, 3, 1, 4}}, /* packed QKV */
        {4, 3, {64, 64, 64}, {2, 1, 0}},
        {4, 3, {64, 64, 64}, {1, 2, 0}},
        {4, 3, {128, 128, 16}, {1, 0, 2}},
        {4, 4, {24, 24, 24, 24}, {3, 2, 1, 0}},
        {4, 5, {8, 8, 8, 8, 16}, {4, 1, 3, 0, 2}},
        {8, 6, {6, 6, 6, 6, 6, 6}, {5, 4, 3, 2, 1, 0}},
        {8, 4, {24, 15, 24, 15}, {2, 1, 3, 0}},
        {4, 5, {12, 7, 12, 7, 7}, {2, 0, 4, 1, 3}},
        {1, 3, {256, 256, 3}, {2, 0, 1}}, /* HWC -> CHW */
        {4, 2, {1 << 16, 2}, {1, 0}},
        {4, 4, {4, 16, 32, 16}, {0, 2, 1, 3}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tcase c = shape_case(cases[i].es, cases[i].rank, cases[i].ext, cases[i].perm);
        for (int t = 1; t <= 2; t++) {
            xpose_set_threads(t);
            run_case(&c, XPOSE_BACKEND_CPU);
        }
    }
}

/* Rank 32 (the maximum): sixteen dimensions of 2 among sixteen of 1, dense and padded. */
static void test_rank32(void)
{
    for (int pass = 0; pass < 4; pass++) {
        tcase c;
        memset(&c, 0, sizeof c);
        c.es = elem_sizes[pass + 1];
        c.rank = XPOSE_MAX_RANK;
        for (int k = 0; k < c.rank; k++) {
            c.ext[k] = k % 2 ? 2 : 1;
            c.perm[k] = k;
        }
        shuffle(c.perm, c.rank);
        c.dense_src = c.dense_dst = pass < 2;
        if (pass >= 2) {
            int order[XPOSE_MAX_RANK];
            size_t de[XPOSE_MAX_RANK];
            for (int k = 0; k < c.rank; k++)
                order[k] = k, de[k] = c.ext[c.perm[k]];
            padded_strides(c.rank, c.ext, order, 1, c.ss);
            padded_strides(c.rank, de, order, 1, c.ds);
        }
        run_case(&c, XPOSE_BACKEND_CPU);
    }
}

/* A rank-2 permutation (1,0) is xpose_transpose's call: the plan names cpu-fast's transpose, and the bytes are
 * those of xpose_transpose on the same layout, padded leading dimensions included. */
static void test_transpose_equivalence(void)
{
    for (size_t e = 0; e < 5; e++) {
        const size_t es = elem_sizes[e], rows = 301, cols = 203, lds = 210, ldd = 307;
        const size_t ext[2] = {rows, cols};
        const int perm[2] = {1, 0};
        const int64_t ss[2] = {(int64_t)lds, 1}, ds[2] = {(int64_t)ldd, 1};
        size_t sb = ((rows - 1) * lds + cols) * es, db = ((cols - 1) * ldd + rows) * es;
        unsigned char *src = malloc(sb), *a = malloc(db), *b = malloc(db);
        xv_fill_random(src, sb, 77 + e);
        xv_poison(a, db);
        xv_poison(b, db);
        xpose_layout lay = {rows, cols, es, lds, ldd, 0, 0, 0};
        CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &lay, src, a), XPOSE_OK, "transpose es %zu", es);
        CHECK_STATUS(xpose_permute(XPOSE_BACKEND_CPU, es, 2, ext, perm, src, ss, b, ds), XPOSE_OK, "permute es %zu",
                     es);
        CHECK(memcmp(a, b, db) == 0, "(1,0) differs from xpose_transpose at es %zu", es);
        xpose_permute_plan plan;
        char text[256];
        CHECK_STATUS(xpose_permute_plan_create(&plan, XPOSE_BACKEND_CPU, es, 2, ext, perm, ss, ds), XPOSE_OK,
                     "plan es %zu", es);
        int n = xpose_permute_plan_describe(plan, XPOSE_BACKEND_CPU, text, sizeof text);
        CHECK(n > 0 && strstr(text, "transpose/cpu-fast/301x203"), "(1,0) plan: %s", text);
        xpose_permute_plan_destroy(plan);
        free(src), free(a), free(b);
    }
}

/* One plan run by several threads at once, each into its own destination, many times. */
typedef struct shared_run {
    xpose_permute_plan plan;
    const unsigned char *src, *ref;
    size_t bytes;
    int failures;
} shared_run;

static void *worker(void *arg)
{
    shared_run *r = arg;
    unsigned char *dst = malloc(r->bytes);
    for (int k = 0; k < 20 && dst; k++) {
        xv_poison(dst, r->bytes);
        if (xpose_permute_execute(r->plan, r->src, dst) != XPOSE_OK || memcmp(dst, r->ref, r->bytes) != 0)
            __atomic_add_fetch(&r->failures, 1, __ATOMIC_RELAXED);
    }
    if (!dst)
        __atomic_add_fetch(&r->failures, 1, __ATOMIC_RELAXED);
    free(dst);
    return NULL;
}

static void test_threads_share_a_plan(void)
{
    static const size_t ext[4] = {8, 48, 40, 36};
    static const int perms[2][4] = {{3, 1, 0, 2}, {0, 2, 1, 3}}; /* tiles, rows */
    for (int p = 0; p < 2; p++) {
        const size_t es = 4, bytes = 8 * 48 * 40 * 36 * es;
        unsigned char *src = malloc(bytes), *ref = malloc(bytes);
        xv_fill_random(src, bytes, 5 + (unsigned)p);
        xv_perm_desc d = {es, 4, ext, perms[p], NULL, NULL};
        xv_permute_reference(&d, src, ref);
        shared_run r = {NULL, src, ref, bytes, 0};
        CHECK_STATUS(xpose_permute_plan_create(&r.plan, XPOSE_BACKEND_AUTO, es, 4, ext, perms[p], NULL, NULL), XPOSE_OK,
                     "shared plan");
        pthread_t th[4];
        int started = 0;
        for (int t = 0; t < 4; t++)
            started += pthread_create(&th[t], NULL, worker, &r) == 0;
        CHECK(started == 4, "%d of 4 threads started", started);
        for (int t = 0; t < started; t++)
            pthread_join(th[t], NULL);
        CHECK(r.failures == 0, "a plan shared by 4 threads: %d wrong runs (perm %d)", r.failures, p);
        xpose_permute_plan_destroy(r.plan);
        free(src), free(ref);
    }
}

/* Whether n bytes from dst are all poison still. */
static int untouched(const unsigned char *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (dst[i] != XV_POISON)
            return 0;
    return 1;
}

static void test_bad_input(void)
{
    float src[256], dst[256];
    const size_t ext[3] = {4, 8, 2}, n = sizeof dst;
    const int perm[3] = {2, 0, 1};
    xpose_permute_plan plan = (xpose_permute_plan)&plan; /* must come back NULL */
    xv_fill_random(src, sizeof src, 3);
    xv_poison(dst, n);
#define BAD(want, what, ...)                                                                                           \
    do {                                                                                                               \
        plan = (xpose_permute_plan)&plan;                                                                              \
        CHECK_STATUS(xpose_permute_plan_create(&plan, __VA_ARGS__), want, "plan: %s", what);                           \
        CHECK(plan == NULL, "a refused plan is not NULL: %s", what);                                                   \
    } while (0)
    BAD(XPOSE_ERR_ELEM_SIZE, "element size 3", XPOSE_BACKEND_CPU, 3, 3, ext, perm, NULL, NULL);
    BAD(XPOSE_ERR_ELEM_SIZE, "element size 0", XPOSE_BACKEND_CPU, 0, 3, ext, perm, NULL, NULL);
    BAD(XPOSE_ERR_RANK, "rank 0", XPOSE_BACKEND_CPU, 4, 0, ext, perm, NULL, NULL);
    BAD(XPOSE_ERR_RANK, "rank -1", XPOSE_BACKEND_CPU, 4, -1, ext, perm, NULL, NULL);
    BAD(XPOSE_ERR_RANK, "rank 33", XPOSE_BACKEND_CPU, 4, XPOSE_MAX_RANK + 1, ext, perm, NULL, NULL);
    BAD(XPOSE_ERR_NULL, "extents NULL", XPOSE_BACKEND_CPU, 4, 3, NULL, perm, NULL, NULL);
    BAD(XPOSE_ERR_NULL, "perm NULL", XPOSE_BACKEND_CPU, 4, 3, ext, NULL, NULL, NULL);
    BAD(XPOSE_ERR_PERM, "axis twice", XPOSE_BACKEND_CPU, 4, 3, ext, (const int[]){0, 0, 1}, NULL, NULL);
    BAD(XPOSE_ERR_PERM, "axis -1", XPOSE_BACKEND_CPU, 4, 3, ext, (const int[]){0, -1, 1}, NULL, NULL);
    BAD(XPOSE_ERR_PERM, "axis = rank", XPOSE_BACKEND_CPU, 4, 3, ext, (const int[]){0, 3, 1}, NULL, NULL);
    BAD(XPOSE_ERR_INVALID, "unknown backend", (xpose_backend)9, 4, 3, ext, perm, NULL, NULL);
    BAD(XPOSE_ERR_OVERFLOW, "a negative extent", XPOSE_BACKEND_CPU, 4, 3, (const size_t[]){4, (size_t)-3, 2}, perm,
        NULL, NULL);
    BAD(XPOSE_ERR_OVERFLOW, "extents whose product overflows", XPOSE_BACKEND_CPU, 4, 3,
        (const size_t[]){1ull << 40, 1ull << 30, 2}, perm, NULL, NULL);
    BAD(XPOSE_ERR_OVERFLOW, "bytes past 2^63", XPOSE_BACKEND_CPU, 16, 3, (const size_t[]){1ull << 30, 1ull << 30, 8},
        perm, NULL, NULL);
    BAD(XPOSE_ERR_OVERFLOW, "a source stride whose span overflows", XPOSE_BACKEND_CPU, 4, 3, ext, perm,
        (const int64_t[]){INT64_MAX / 2, 2, 1}, NULL);
    BAD(XPOSE_ERR_OVERFLOW, "INT64_MIN stride", XPOSE_BACKEND_CPU, 4, 3, ext, perm, (const int64_t[]){16, INT64_MIN, 1},
        NULL);
    BAD(XPOSE_ERR_OVERFLOW, "a destination stride whose span overflows", XPOSE_BACKEND_CPU, 4, 3, ext, perm, NULL,
        (const int64_t[]){INT64_MAX / 2, 8, 1});
    /* Destination dims: (2, 4, 8) (extents of axes 2, 0, 1). */
    BAD(XPOSE_ERR_STRIDE, "destination stride 0", XPOSE_BACKEND_CPU, 4, 3, ext, perm, NULL,
        (const int64_t[]){32, 0, 1});
    BAD(XPOSE_ERR_STRIDE, "two destination dims one stride", XPOSE_BACKEND_CPU, 4, 3, ext, perm, NULL,
        (const int64_t[]){32, 8, 8});
    BAD(XPOSE_ERR_STRIDE, "destination rows that overlap", XPOSE_BACKEND_CPU, 4, 3, ext, perm, NULL,
        (const int64_t[]){32, 7, 1});
    BAD(XPOSE_ERR_STRIDE, "a negative destination stride", XPOSE_BACKEND_CPU, 4, 3, ext, perm, NULL,
        (const int64_t[]){32, -8, 1});
    int cuda = xpose_cuda_status();
    if (cuda != XPOSE_OK)
        BAD(cuda, "a CUDA plan without CUDA", XPOSE_BACKEND_CUDA, 4, 3, ext, perm, NULL, NULL);
    CHECK_STATUS(xpose_permute_plan_create(NULL, XPOSE_BACKEND_CPU, 4, 3, ext, perm, NULL, NULL), XPOSE_ERR_NULL,
                 "NULL plan pointer");
#undef BAD
    CHECK(untouched((unsigned char *)dst, n), "a refused plan wrote");

    /* Execution: pointers. */
    CHECK_STATUS(xpose_permute_plan_create(&plan, XPOSE_BACKEND_CPU, 4, 3, ext, perm, NULL, NULL), XPOSE_OK, "plan");
    CHECK_STATUS(xpose_permute_execute(NULL, src, dst), XPOSE_ERR_NULL, "NULL plan");
    CHECK_STATUS(xpose_permute_execute(plan, NULL, dst), XPOSE_ERR_NULL, "NULL src");
    CHECK_STATUS(xpose_permute_execute(plan, src, NULL), XPOSE_ERR_NULL, "NULL dst");
    CHECK_STATUS(xpose_permute_execute(plan, (char *)src + 2, dst), XPOSE_ERR_ALIGNMENT, "misaligned src");
    CHECK_STATUS(xpose_permute_execute(plan, src, (char *)dst + 1), XPOSE_ERR_ALIGNMENT, "misaligned dst");
    CHECK_STATUS(xpose_permute_execute(plan, dst, dst + 63), XPOSE_ERR_OVERLAP, "dst inside src");
    CHECK_STATUS(xpose_permute_execute(plan, dst + 63, dst), XPOSE_ERR_OVERLAP, "src inside dst");
    CHECK_STATUS(xpose_permute_execute(plan, dst, dst), XPOSE_ERR_OVERLAP, "in place");
    CHECK(untouched((unsigned char *)dst, n), "a refused execution wrote");
    CHECK_STATUS(xpose_permute_execute(plan, dst, dst + 64), XPOSE_OK, "adjacent buffers");
    int st = xpose_permute_execute_cuda(plan, src, dst + 128, NULL);
    CHECK(st == XPOSE_ERR_INVALID || st == XPOSE_ERR_NOT_BUILT, "a CPU plan on a stream: %d", st);
    char text[64];
    CHECK_STATUS(xpose_permute_plan_describe(NULL, XPOSE_BACKEND_CPU, text, sizeof text), XPOSE_ERR_NULL,
                 "describe NULL");
    CHECK_STATUS(xpose_permute_plan_describe(plan, XPOSE_BACKEND_CPU, NULL, 8), XPOSE_ERR_NULL, "describe to NULL");
    CHECK_STATUS(xpose_permute_plan_describe(plan, (xpose_backend)5, text, sizeof text), XPOSE_ERR_INVALID,
                 "describe an unknown backend");
    CHECK_STATUS(xpose_permute_plan_describe(plan, XPOSE_BACKEND_CUDA, text, sizeof text), XPOSE_ERR_INVALID,
                 "describe a CPU plan on CUDA");
    xpose_permute_plan_destroy(plan);
    xpose_permute_plan_destroy(NULL);

    /* A negative source stride: the source reaches before its pointer, and that reach counts for overlap. */
    const int64_t rev[3] = {-16, 2, 1};
    xv_poison(dst, n);
    CHECK_STATUS(xpose_permute(XPOSE_BACKEND_CPU, 4, 3, ext, perm, dst + 64, rev, dst, NULL), XPOSE_ERR_OVERLAP,
                 "a reversed source over the destination");
    CHECK(untouched((unsigned char *)dst, n), "a refused call wrote");
}

/* An extent of 0: valid, and nothing is read or written, whatever the pointers. */
static void test_empty(void)
{
    unsigned char dst[64];
    const size_t ext[3] = {5, 0, 7};
    const int perm[3] = {1, 2, 0};
    xv_poison(dst, sizeof dst);
    xpose_permute_plan plan;
    CHECK_STATUS(xpose_permute_plan_create(&plan, XPOSE_BACKEND_CPU, 8, 3, ext, perm, NULL, NULL), XPOSE_OK, "empty");
    CHECK_STATUS(xpose_permute_execute(plan, NULL, NULL), XPOSE_OK, "empty, NULL pointers");
    CHECK_STATUS(xpose_permute_execute(plan, dst + 1, dst + 3), XPOSE_OK, "empty, odd pointers");
    char text[128];
    CHECK(xpose_permute_plan_describe(plan, XPOSE_BACKEND_CPU, text, sizeof text) > 0, "describe empty");
    xpose_permute_plan_destroy(plan);
    /* Strides are not looked at either: a zero-extent tensor has no element to place. */
    CHECK_STATUS(xpose_permute(XPOSE_BACKEND_CPU, 4, 3, ext, perm, dst, (const int64_t[]){0, 0, 0}, dst,
                               (const int64_t[]){0, 0, 0}),
                 XPOSE_OK, "empty with degenerate strides");
    CHECK(untouched(dst, sizeof dst), "an empty permutation wrote");
}

/* describe: the canonical form and the route, the whole length returned however short the buffer. */
static void test_describe(void)
{
    const size_t ext[4] = {2, 3, 1, 5};
    const int perm[4] = {3, 2, 1, 0};
    xpose_permute_plan plan;
    CHECK_STATUS(xpose_permute_plan_create(&plan, XPOSE_BACKEND_AUTO, 4, 4, ext, perm, NULL, NULL), XPOSE_OK, "plan");
    char full[256], cut[8];
    int n = xpose_permute_plan_describe(plan, XPOSE_BACKEND_CPU, full, sizeof full);
    CHECK(n > 0 && (size_t)n == strlen(full), "describe length %d for '%s'", n, full);
    CHECK(strstr(full, "rank 3 canonical (5,3,2) src strides (1,5,15) -> ") == full, "canonical form: %s", full);
    CHECK(xpose_permute_plan_describe(plan, XPOSE_BACKEND_CPU, cut, sizeof cut) == n && strlen(cut) == sizeof cut - 1 &&
              !strncmp(cut, full, sizeof cut - 1),
          "cut description '%s'", cut);
    CHECK(xpose_permute_plan_describe(plan, XPOSE_BACKEND_CPU, NULL, 0) == n, "length alone");
    xpose_permute_plan_destroy(plan);
    /* Merged dimensions: (0,2,3,1) of (N,C,H,W) is (N, H*W, C), a batched transpose. */
    const size_t nchw[4] = {3, 5, 7, 11};
    const int to_nhwc[4] = {0, 2, 3, 1};
    CHECK_STATUS(xpose_permute_plan_create(&plan, XPOSE_BACKEND_CPU, 4, 4, nchw, to_nhwc, NULL, NULL), XPOSE_OK,
                 "nhwc");
    xpose_permute_plan_describe(plan, XPOSE_BACKEND_CPU, full, sizeof full);
    CHECK(strstr(full, "rank 3 canonical (3,77,5) src strides (385,1,77) -> transpose/cpu-fast/5x77 x3") == full,
          "NCHW -> NHWC: %s", full);
    xpose_permute_plan_destroy(plan);
    /* An identity is a copy, whatever the rank. */
    const int same[4] = {0, 1, 2, 3};
    CHECK_STATUS(xpose_permute_plan_create(&plan, XPOSE_BACKEND_CPU, 2, 4, nchw, same, NULL, NULL), XPOSE_OK, "id");
    xpose_permute_plan_describe(plan, XPOSE_BACKEND_CPU, full, sizeof full);
    CHECK(strstr(full, "rank 1 canonical (1155) src strides (1) -> copy/cpu-fast/1155 elements") == full,
          "identity: %s", full);
    xpose_permute_plan_destroy(plan);
}

int main(void)
{
    test_bad_input();
    test_empty();
    test_describe();
    test_transpose_equivalence();
    test_rank32();
    test_suite_shapes();
    test_row_runs();
    test_tile_layouts();
    test_dense_tiles();
    test_band_tiles();
    test_staged_members();
    test_staged_chunks();
    test_staged_random();
    test_threads_share_a_plan();
    test_random();
    return t_finish("test_permute");
}
