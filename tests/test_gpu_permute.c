/* test_gpu_permute.c (label gpu): the CUDA permutation kernels (xp_cuda_permute) against a plain host reference on
 * fresh random data, the destination poisoned and its padding checked untouched: random ranks, permutations, extents
 * and strides (negative, zero, padded) at every element size, shapes for each kernel and tile, every case of the
 * benchmark suite at full size, and cases past 2^31 elements and 2^31 bytes. Exits 77 (skipped) where no CUDA device
 * is present. Arguments: --no-huge, --no-suite (skip those parts), --quick (also fewer random cases: for the
 * sanitizers). */
#include <string.h>
#include <cuda_runtime_api.h>
#include "testing.h"
#include "gpu_mem.h"
#include "xpose_cuda.h"
#include "xp_permute.h"

static const size_t elem_sizes[] = {1, 2, 4, 8, 16};

/* The canonical form of a request, as xp_perm_canon defines it (xp_permute.h), built here independently: dimensions in
 * destination order, extents of 1 dropped, sorted by destination stride (largest first, stably), neighbours adjacent
 * on both sides merged. ss: per source dimension, ds: per destination dimension, elements; NULL: dense. */
static void make_perm(xp_perm *p, size_t es, int rank, const size_t *ext, const int *perm, const int64_t *ss,
                      const int64_t *ds)
{
    int64_t dense_s[XPOSE_MAX_RANK], dense_d[XPOSE_MAX_RANK];
    int64_t s = 1, d = 1;
    for (int k = rank - 1; k >= 0; k--) {
        dense_s[k] = s, s *= (int64_t)ext[k];
        dense_d[k] = d, d *= (int64_t)ext[perm[k]];
    }
    memset(p, 0, sizeof *p);
    p->es = es;
    p->count = 1;
    for (int k = 0; k < rank; k++) {
        p->count *= ext[k];
        const size_t e = ext[perm[k]];
        if (e == 1)
            continue;
        /* insert in order of falling destination stride, after those of equal stride */
        const int64_t sk = ss ? ss[perm[k]] : dense_s[perm[k]], dk = ds ? ds[k] : dense_d[k];
        int at = p->rank;
        while (at > 0 && p->ds[at - 1] < dk)
            at--;
        for (int j = p->rank; j > at; j--)
            p->ext[j] = p->ext[j - 1], p->ss[j] = p->ss[j - 1], p->ds[j] = p->ds[j - 1];
        p->ext[at] = e, p->ss[at] = sk, p->ds[at] = dk;
        p->rank++;
    }
    if (p->count == 0) {
        p->rank = 0;
        return;
    }
    if (p->rank == 0) { /* one element */
        p->rank = 1, p->ext[0] = 1, p->ss[0] = 1, p->ds[0] = 1;
    }
    for (int k = p->rank - 2; k >= 0; k--)
        if (p->ss[k] == p->ss[k + 1] * (int64_t)p->ext[k + 1] && p->ds[k] == p->ds[k + 1] * (int64_t)p->ext[k + 1]) {
            p->ext[k] *= p->ext[k + 1];
            p->ss[k] = p->ss[k + 1], p->ds[k] = p->ds[k + 1];
            for (int j = k + 1; j + 1 < p->rank; j++)
                p->ext[j] = p->ext[j + 1], p->ss[j] = p->ss[j + 1], p->ds[j] = p->ds[j + 1];
            p->rank--;
        }
    int64_t lo = 0, hi = 0, dhi = 0;
    for (int k = 0; k < p->rank; k++) {
        const int64_t span = (int64_t)(p->ext[k] - 1);
        if (p->ss[k] < 0)
            lo += span * p->ss[k];
        else
            hi += span * p->ss[k];
        dhi += span * p->ds[k];
    }
    p->src_lo = lo * (int64_t)es;
    p->src_hi = (hi + 1) * (int64_t)es;
    p->dst_hi = (size_t)(dhi + 1) * es;
}

/* dst := the permutation of src (element 0 at src, dst), element by element. The two fastest dimensions (the
 * source's, the destination's) are walked in 64 x 64 blocks so that references of a gigabyte stay quick. */
#define REF_COPY(T)                                                                                                    \
    for (size_t i0 = 0; i0 < na; i0 += 64)                                                                             \
        for (size_t j0 = 0; j0 < nb; j0 += 64)                                                                         \
            for (size_t i = i0; i < na && i < i0 + 64; i++)                                                            \
                for (size_t j = j0; j < nb && j < j0 + 64; j++)                                                        \
    memcpy(d + ((int64_t)i * dsa + (int64_t)j * dsb) * (int64_t)sizeof(T),                                             \
           s + ((int64_t)i * ssa + (int64_t)j * ssb) * (int64_t)sizeof(T), sizeof(T))

static void reference(const xp_perm *p, const unsigned char *src, unsigned char *dst)
{
    const int r = p->rank, b = r - 1;
    if (r == 0 || p->count == 0)
        return;
    int a = -1; /* blocked along the smallest nonzero source stride (any choice is correct; this one is quick) */
    for (int k = 0; k < r; k++)
        if (p->ss[k] && (a < 0 || llabs(p->ss[k]) < llabs(p->ss[a])))
            a = k;
    a = a < 0 ? b : a;
    const size_t na = a == b ? 1 : p->ext[a], nb = p->ext[b];
    const int64_t ssa = a == b ? 0 : p->ss[a], dsa = a == b ? 0 : p->ds[a], ssb = p->ss[b], dsb = p->ds[b];
    size_t idx[XPOSE_MAX_RANK] = {0};
    int64_t so = 0, dof = 0; /* elements */
    for (;;) {
        const unsigned char *s = src + so * (int64_t)p->es;
        unsigned char *d = dst + dof * (int64_t)p->es;
        switch (p->es) {
        case 1: REF_COPY(uint8_t); break;
        case 2: REF_COPY(uint16_t); break;
        case 4: REF_COPY(uint32_t); break;
        case 8: REF_COPY(uint64_t); break;
        default: {
            typedef struct {
                uint64_t lo, hi;
            } u128;
            REF_COPY(u128);
        } break;
        }
        int k = r - 1;
        for (; k >= 0; k--) {
            if (k == a || k == b)
                continue;
            if (++idx[k] < p->ext[k]) {
                so += p->ss[k], dof += p->ds[k];
                break;
            }
            so -= p->ss[k] * (int64_t)(p->ext[k] - 1), dof -= p->ds[k] * (int64_t)(p->ext[k] - 1);
            idx[k] = 0;
        }
        if (k < 0)
            return;
    }
}

/* Which kernels and tiles ran, from xp_cuda_permute_describe: each must have run at least once. */
static int ran_vec[17], ran_vec_narrow[17], ran_scalar[17], ran_skinny[17], ran_runs, ran_copy, ran_fold, ran_quads;

static void tally(const char *plan, size_t es)
{
    if (strstr(plan, "16-byte vectors")) {
        ran_vec[es]++;
        unsigned tc = 0, tr = 0;
        const char *t = strstr(plan, "tile ");
        if (t && sscanf(t, "tile %ux%u", &tc, &tr) == 2 && tc * es == 128)
            ran_vec_narrow[es]++;
    }
    ran_scalar[es] += strstr(plan, "element-wise") != NULL;
    ran_skinny[es] += strstr(plan, "skinny") != NULL;
    ran_runs += strstr(plan, "runs b=") != NULL;
    ran_copy += strstr(plan, "copy of") != NULL;
    ran_fold += strncmp(plan, "runs of", 7) == 0;
    ran_quads += strstr(plan, "4 rows a thread") != NULL;
}

/* Runs p on fresh random data (seed) with src and dst `src_off` and `dst_off` bytes into their allocations, the
 * destination poisoned, and compares the whole destination span and 64 bytes past it with the reference. Returns 1
 * when they match. `plan` gets the description. */
static int check_perm(const char *what, const xp_perm *p, unsigned seed, size_t src_off, size_t dst_off, char *plan,
                      size_t plan_size)
{
    const size_t sbytes = (size_t)(p->src_hi - p->src_lo), dspan = p->dst_hi + 64, dbytes = dst_off + dspan;
    int n = xp_cuda_permute_describe(p, plan, plan_size);
    CHECK(n > 0 && (size_t)n < plan_size, "%s: describe returned %d", what, n);
    tally(plan, p->es);
    unsigned char *hsrc = malloc(sbytes + 1), *ref = malloc(dspan), *got = malloc(dbytes);
    unsigned char *dsrc = t_dev_mem.alloc(sbytes + src_off), *ddst = t_dev_mem.alloc(dbytes);
    int ok = 0;
    if (!hsrc || !ref || !got || !dsrc || !ddst) {
        CHECK(0, "%s: cannot allocate %zu + %zu bytes", what, sbytes, dbytes);
        goto out;
    }
    xv_fill_random(hsrc, sbytes, seed);
    xv_poison(ref, dspan);
    reference(p, hsrc - p->src_lo, ref);
    t_dev_mem.upload(dsrc + src_off, hsrc, sbytes);
    t_dev_mem.poison(ddst, dbytes);
    int st = xp_cuda_permute(p, dsrc + src_off - p->src_lo, ddst + dst_off, NULL);
    CHECK_STATUS(st, XPOSE_OK, "%s (%s)", what, plan);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "%s (%s): the kernel failed", what, plan);
    if (st != XPOSE_OK)
        goto out;
    t_dev_mem.download(got, ddst, dbytes);
    size_t first = 0, bad = xv_compare(got + dst_off, ref, dspan, &first), lead = 0;
    for (size_t i = 0; i < dst_off; i++)
        lead += got[i] != XV_POISON;
    CHECK(bad == 0 && lead == 0, "%s (%s): %zu bytes differ (first at %zu of %zu), %zu written before dst", what, plan,
          bad, first, p->dst_hi, lead);
    ok = bad == 0 && lead == 0;
out:
    free(hsrc), free(ref), free(got);
    if (dsrc)
        t_dev_mem.release(dsrc);
    if (ddst)
        t_dev_mem.release(ddst);
    return ok;
}

static void print_perm(char *buf, size_t n, const xp_perm *p)
{
    int k = snprintf(buf, n, "es %zu ext", p->es);
    for (int d = 0; d < p->rank && k > 0 && (size_t)k < n; d++)
        k += snprintf(buf + k, n - (size_t)k, " %zu/%lld/%lld", p->ext[d], (long long)p->ss[d], (long long)p->ds[d]);
}

/* One request (dense where strides are NULL), checked; returns 1 when it matched. */
static int check_request(const char *what, size_t es, int rank, const size_t *ext, const int *perm, const int64_t *ss,
                         const int64_t *ds, unsigned seed, size_t src_off, size_t dst_off)
{
    xp_perm p;
    char plan[256], name[512], dims[256];
    make_perm(&p, es, rank, ext, perm, ss, ds);
    print_perm(dims, sizeof dims, &p);
    /* The test's own requests must be valid: each destination dimension spans no more than the next one's stride. */
    for (int k = 0; k + 1 < p.rank; k++)
        if (p.ds[k] < p.ds[k + 1] * (int64_t)p.ext[k + 1]) {
            CHECK(0, "%s [%s]: the test asks for a destination that overlaps itself", what, dims);
            return 0;
        }
    snprintf(name, sizeof name, "%s [%s]", what, dims);
    return check_perm(name, &p, seed, src_off, dst_off, plan, sizeof plan);
}

static uint64_t rnd(uint64_t *s, uint64_t n) { return xv_splitmix(s) % n; }

/* `count` random requests: rank 1-8, a random permutation, extents of 1, primes, small fastest extents (2-4) and
 * multiples of 16; source strides padded, some negative, some 0 (read again), or dense; destination strides padded or
 * dense; every element size; pointers on 16 bytes or an element or two off. Half are dense, with extents the vector
 * tiles take. At most `max_elems` elements each. */
static void random_requests(int count, size_t max_elems, unsigned seed)
{
    static const size_t odd[] = {1, 2, 3, 4, 5, 7, 11, 13, 17, 28, 31, 33, 61, 67, 97, 131, 257};
    static const size_t even[] = {2, 4, 8, 16, 24, 32, 48, 64, 80, 96, 128, 144, 256, 320};
    uint64_t s = seed;
    for (int c = 0; c < count; c++) {
        const size_t es = elem_sizes[rnd(&s, 5)];
        const int rank = 1 + (int)rnd(&s, 8), dense = (int)rnd(&s, 2);
        size_t ext[8], vol = 1;
        int perm[8];
        int64_t ss[8], ds[8];
        for (int d = 0; d < rank; d++) {
            ext[d] = dense ? even[rnd(&s, sizeof even / sizeof even[0])] : odd[rnd(&s, sizeof odd / sizeof odd[0])];
            if (!dense && d == rank - 1 && rnd(&s, 2))
                ext[d] = 2 + rnd(&s, 3); /* a small fastest extent */
            perm[d] = d;
        }
        for (;;) { /* shrink the largest extent until the volume fits */
            vol = 1;
            int big = 0;
            for (int d = 0; d < rank; d++)
                vol *= ext[d], big = ext[d] > ext[big] ? d : big;
            if (vol <= max_elems)
                break;
            ext[big] = ext[big] / 2 > 1 ? ext[big] / 2 : 1;
        }
        for (int d = rank - 1; d > 0; d--) { /* Fisher-Yates */
            const int j = (int)rnd(&s, (uint64_t)d + 1), t = perm[d];
            perm[d] = perm[j], perm[j] = t;
        }
        int64_t st = dense ? 1 : 1 + (int64_t)rnd(&s, 2); /* the fastest source stride: 1 or 2 */
        for (int d = rank - 1; d >= 0; d--) {
            ss[d] = st;
            st *= (int64_t)(ext[d] + (dense ? 0 : rnd(&s, 3) == 0 ? 1 + rnd(&s, 3) : 0));
        }
        if (!dense)
            for (int d = 0; d < rank; d++) {
                const uint64_t r = rnd(&s, 8);
                if (r == 0)
                    ss[d] = -ss[d];
                else if (r == 1 && ext[d] <= 17)
                    ss[d] = 0;
            }
        int64_t dt = 1;
        for (int k = rank - 1; k >= 0; k--) {
            ds[k] = dt;
            dt *= (int64_t)(ext[perm[k]] + (dense ? 0 : rnd(&s, 3) == 0 ? 1 + rnd(&s, 2) : 0));
        }
        const size_t src_off = dense || rnd(&s, 2) ? 0 : es * (1 + rnd(&s, 2));
        const size_t dst_off = dense || rnd(&s, 2) ? 0 : es * (1 + rnd(&s, 2));
        char what[64];
        snprintf(what, sizeof what, "random case %d", c);
        check_request(what, es, rank, ext, perm, ss, ds, seed + (unsigned)c, src_off % 16, dst_off % 16);
    }
}

/* Shapes for each kernel and tile: vector tiles wide and narrow with edges cut both ways, edges of several dimensions
 * (small extents combined into a tile edge), edges split at a dimension's boundary, folded runs (pairs of floats),
 * runs of 16-byte units and of single elements, a plain copy, one element, transposes that `fast` would take, and
 * vector strides off by one element (element-wise tiles). Every element size. */
static void kernel_shapes(void)
{
    static const struct {
        int rank;
        size_t ext[6];
        int perm[6];
    } cases[] = {
        {3, {40, 96, 96}, {2, 1, 0}},                /* one tile edge per dimension, edges cut */
        {3, {33, 28, 28}, {0, 2, 1}},                /* 28: narrow tiles */
        {5, {6, 28, 5, 28, 28}, {2, 0, 4, 1, 3}},    /* the 48,28 case scaled: edge B of two dimensions */
        {6, {4, 4, 4, 4, 4, 4}, {5, 4, 3, 2, 1, 0}}, /* small extents: edges of three dimensions */
        {4, {7, 75, 9, 75}, {2, 1, 3, 0}},           /* edge A grown past a tile to leave none cut */
        {4, {5, 17, 64, 2}, {2, 1, 0, 3}},           /* fastest 2 shared: folded runs */
        {4, {5, 17, 64, 3}, {2, 1, 0, 3}},           /* fastest 3 shared: runs of elements */
        {4, {9, 33, 10, 64}, {0, 2, 1, 3}},          /* fastest 64 shared: runs */
        {2, {1000, 3}, {1, 0}},                      /* HWC -> CHW style */
        {2, {3, 1000}, {1, 0}},                      /* CHW -> HWC style */
        {2, {513, 2}, {1, 0}},                       /* (2^26, 2) style */
        {3, {16, 300, 257}, {0, 2, 1}},              /* a batched transpose with edges cut */
        {1, {4099}, {0}},                            /* a copy */
        {3, {1, 1, 1}, {2, 0, 1}},                   /* one element */
        {3, {256, 1, 128}, {2, 1, 0}},               /* an extent of 1 */
        {3, {0, 5, 7}, {2, 1, 0}},                   /* nothing */
    };
    for (size_t e = 0; e < 5; e++)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            char what[64];
            snprintf(what, sizeof what, "kernel shape %zu", k);
            check_request(what, elem_sizes[e], cases[k].rank, cases[k].ext, cases[k].perm, NULL, NULL,
                          (unsigned)(100 * e + k), 0, 0);
        }
    /* Vector strides off by one element on one side: element-wise tiles; a pointer one element off likewise. */
    const size_t ext[3] = {40, 96, 96};
    const int perm[3] = {2, 1, 0};
    const int64_t ss_off[3] = {96 * 97, 97, 1}, ds_off[3] = {96 * 41, 41, 1};
    for (size_t e = 0; e < 4; e++) {
        check_request("source pitch off a vector", elem_sizes[e], 3, ext, perm, ss_off, NULL, 7, 0, 0);
        check_request("destination pitch off a vector", elem_sizes[e], 3, ext, perm, NULL, ds_off, 8, 0, 0);
        check_request("source one element off", elem_sizes[e], 3, ext, perm, NULL, NULL, 9, elem_sizes[e], 0);
    }
}

/* A small fastest extent k (2 to 8) on one side, continued by the other side's fastest dimension (HWC -> CHW and back):
 * the skinny kernel, each direction, every k and element size, rows of a length that leaves a last chunk cut short
 * (destination or source rows padded to 16 bytes), and a batch of them. */
static void skinny_shapes(void)
{
    for (size_t e = 0; e < 5; e++)
        for (size_t k = 2; k <= 8; k++) {
            const size_t es = elem_sizes[e], n = 1000 + k, pad = (n + 15) / 16 * 16;
            const size_t to_planes[2] = {n, k}, to_rows[2] = {k, n}, batch[3] = {7, n, k};
            const int swap[2] = {1, 0}, inner[3] = {0, 2, 1};
            const int64_t dst_pad[2] = {(int64_t)pad, 1}, src_pad[2] = {(int64_t)pad, 1};
            /* the batch: source members and destination rows on 16 bytes */
            const int64_t batch_ss[3] = {(int64_t)((n * k + 15) / 16 * 16), (int64_t)k, 1};
            const int64_t batch_ds[3] = {(int64_t)(k * pad), (int64_t)pad, 1};
            const unsigned seed = 3000 + (unsigned)(16 * e + k);
            check_request("skinny, small source side", es, 2, to_planes, swap, NULL, dst_pad, seed, 0, 0);
            check_request("skinny, small destination side", es, 2, to_rows, swap, src_pad, NULL, seed + 1, 0, 0);
            check_request("skinny, a batch", es, 3, batch, inner, batch_ss, batch_ds, seed + 2, 0, 0);
        }
}

/* Bytes of k % 4 == 0 on the staged kernel with strided rows a multiple of 16 bytes apart: 4 rows a thread
 * (stage_quads), each direction, rows of a length that leaves segments and pieces cut short, and batches whose second
 * member's strided rows start 8 bytes into a line (another phase). */
static void quad_shapes(void)
{
    static const size_t ks[] = {12, 16, 24, 32, 48, 64};
    const int before = ran_quads;
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        const size_t k = ks[i], n = 3001 + 2 * i, pad = (n + 15) / 16 * 16, member = (n * k + 15) / 16 * 16;
        const size_t to_planes[2] = {n, k}, to_rows[2] = {k, n}, planes_b[3] = {3, n, k}, rows_b[3] = {3, k, n};
        const int swap[2] = {1, 0}, inner[3] = {0, 2, 1};
        const int64_t pad2[2] = {(int64_t)pad, 1}, rows_ss[3] = {(int64_t)(k * pad + 8), (int64_t)pad, 1};
        const int64_t planes_ss[3] = {(int64_t)member, (int64_t)k, 1};
        const unsigned seed = 3500 + 8 * (unsigned)i;
        check_request("quads, small source side", 1, 2, to_planes, swap, NULL, pad2, seed, 0, 0);
        check_request("quads, small destination side", 1, 2, to_rows, swap, pad2, NULL, seed + 1, 0, 0);
        check_request("quads, a batch from planes", 1, 3, planes_b, inner, planes_ss, rows_ss, seed + 2, 0, 0);
        check_request("quads, a batch from rows", 1, 3, rows_b, inner, rows_ss, planes_ss, seed + 3, 0, 0);
    }
    int want = 0; /* 4 plans a k up to the bound; 64 keeps a row's bytes one at a time */
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        want += ks[i] <= XP_PERM_QUAD_MAX ? 4 : 0;
    CHECK(ran_quads - before == want, "quads: %d plans took 4 rows a thread, %d expected", ran_quads - before, want);
}

/* Sides past 127 bytes on the staged kernel (xp_perm_stage_side) in batches of 32 MiB or more (members on 16 bytes, as
 * the kernel asks): NCHW <-> NHWC with 65 float channels both ways (into destination rows, and from source rows whose
 * tile segments would be half full), 9 c128 into destination rows; and the same channels in a call under 32 MiB, which
 * tiles take. */
static void wide_shapes(void)
{
    static const struct {
        size_t es, ext[3];
        int staged;
    } cases[] = {
        {4, {4, 65, 32772}, 1},
        {4, {4, 32772, 65}, 1},
        {16, {3, 9, 250007}, 1},
        {4, {2, 65, 3001}, 0},
    };
    const int inner[3] = {0, 2, 1};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xp_perm p;
        char plan[256], name[64];
        make_perm(&p, cases[i].es, 3, cases[i].ext, inner, NULL, NULL);
        snprintf(name, sizeof name, "wide side, case %zu", i);
        if (check_perm(name, &p, 3700 + (unsigned)i, 0, 0, plan, sizeof plan))
            CHECK((strstr(plan, "staged skinny") != NULL) == cases[i].staged, "%s: plan %s, staged expected: %d", name,
                  plan, cases[i].staged);
    }
}

/* The benchmark suite (issue 36, `xpose bench --preset permute`), every case at full size, through the kernels (the
 * cases that reduce to a batched transpose included, which the planner gives `fast`). The 4- to 16-byte cases that
 * do not move runs must take 16-byte vectors. */
static void suite(void)
{
    static const struct {
        size_t es;
        int rank;
        size_t ext[6];
        int perm[6];
    } cases[] = {
        {4, 4, {64, 256, 56, 56}, {0, 2, 3, 1}},
        {2, 4, {64, 256, 56, 56}, {0, 2, 3, 1}},
        {1, 4, {64, 256, 56, 56}, {0, 2, 3, 1}},
        {4, 4, {64, 56, 56, 256}, {0, 3, 1, 2}},
        {2, 4, {16, 4096, 32, 128}, {0, 2, 1, 3}},
        {2, 5, {8, 2048, 3, 32, 128}, {2, 0, 3, 1, 4}},
        {4, 3, {512, 512, 512}, {2, 1, 0}},
        {4, 3, {512, 512, 512}, {1, 2, 0}},
        {4, 3, {1024, 1024, 64}, {1, 0, 2}},
        {4, 4, {128, 128, 128, 128}, {3, 2, 1, 0}},
        {4, 5, {32, 32, 32, 32, 64}, {4, 1, 3, 0, 2}},
        {8, 6, {16, 16, 16, 16, 16, 16}, {5, 4, 3, 2, 1, 0}},
        {8, 4, {96, 75, 96, 75}, {2, 1, 3, 0}},
        {4, 5, {48, 28, 48, 28, 28}, {2, 0, 4, 1, 3}},
        {1, 3, {8192, 8192, 3}, {2, 0, 1}},
        {4, 2, {(size_t)1 << 26, 2}, {1, 0}},
        {4, 4, {64, 128, 256, 64}, {0, 2, 1, 3}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        xp_perm p;
        char plan[256], what[64];
        make_perm(&p, cases[k].es, cases[k].rank, cases[k].ext, cases[k].perm, NULL, NULL);
        snprintf(what, sizeof what, "suite case %zu", k);
        check_perm(what, &p, 2000 + (unsigned)k, 0, 0, plan, sizeof plan);
        printf("suite case %2zu: %s\n", k, plan);
        if (cases[k].es >= 4)
            CHECK(strstr(plan, "16-byte vectors") || strstr(plan, "runs b=") || strstr(plan, "staged skinny"),
                  "suite case %zu takes element-wise tiles: %s", k, plan);
    }
}

/* A 3-d reversal (n0, n1, n2) -> (n2, n1, n0) of bytes, past 2^31 elements: checked with a blocked loop (the generic
 * reference would take too long). */
static void huge_reversal(size_t n0, size_t n1, size_t n2)
{
    const size_t ext[3] = {n0, n1, n2}, n = n0 * n1 * n2;
    const int perm[3] = {2, 1, 0};
    xp_perm p;
    char plan[256];
    make_perm(&p, 1, 3, ext, perm, NULL, NULL);
    xp_cuda_permute_describe(&p, plan, sizeof plan);
    tally(plan, 1);
    unsigned char *h = malloc(n), *got = malloc(n);
    void *ds = t_dev_mem.alloc(n), *dd = t_dev_mem.alloc(n);
    if (!h || !got || !ds || !dd) {
        printf("skipping the huge reversal %zux%zux%zu: cannot allocate 2 x %zu bytes\n", n0, n1, n2, n);
        goto out;
    }
    xv_fill_random(h, n, 4242);
    t_dev_mem.upload(ds, h, n);
    t_dev_mem.poison(dd, n);
    CHECK_STATUS(xp_cuda_permute(&p, ds, dd, NULL), XPOSE_OK, "huge %zux%zux%zu", n0, n1, n2);
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "huge %zux%zux%zu: the kernel failed", n0, n1, n2);
    t_dev_mem.download(got, dd, n);
    size_t bad = 0;
    for (size_t j0 = 0; j0 < n1; j0 += 64)
        for (size_t i0 = 0; i0 < n0; i0 += 64)
            for (size_t k = 0; k < n2; k++)
                for (size_t j = j0; j < n1 && j < j0 + 64; j++)
                    for (size_t i = i0; i < n0 && i < i0 + 64; i++)
                        bad += got[(k * n1 + j) * n0 + i] != h[(i * n1 + j) * n2 + k];
    CHECK(bad == 0, "huge reversal %zux%zux%zu (%s): %zu wrong bytes", n0, n1, n2, plan, bad);
    printf("huge reversal %zux%zux%zu: %s\n", n0, n1, n2, plan);
out:
    free(h), free(got);
    if (ds)
        t_dev_mem.release(ds);
    if (dd)
        t_dev_mem.release(dd);
}

/* Past 2^31: element-wise tiles of 64-bit offsets ((2^16 + 1, 2^15 + 3, 2): 2^32 bytes and more), vector tiles, a grid
 * of more blocks than one launch names (1-byte runs of 32771 bytes in 65537 padded rows: 2^31 + 229380 units), an
 * extent past 2^30 (a strided copy of 2^30 + 3 bytes). */
static void huge(void)
{
    huge_reversal(65537, 32771, 2);
    huge_reversal(4096, 4096, 144);
    const size_t rows_ext[2] = {65537, 32771};
    const int keep[2] = {0, 1};
    const int64_t padded[2] = {32772, 1};
    check_request("huge runs", 1, 2, rows_ext, keep, padded, NULL, 31, 0, 0);
    const size_t long_ext[1] = {((size_t)1 << 30) + 3};
    const int one[1] = {0};
    const int64_t every_other[1] = {2};
    check_request("huge strided copy", 1, 1, long_ext, one, every_other, NULL, 32, 0, 0);
}

int main(int argc, char **argv)
{
    int st = xpose_cuda_status();
    if (st != XPOSE_OK) {
        printf("test_gpu_permute: skipped: %s\n", xpose_strerror(st));
        return 77;
    }
    int with_huge = 1, with_suite = 1, quick = 0;
    for (int i = 1; i < argc; i++) {
        quick |= strcmp(argv[i], "--quick") == 0;
        with_huge &= strcmp(argv[i], "--no-huge") != 0 && !quick;
        with_suite &= strcmp(argv[i], "--no-suite") != 0 && !quick;
    }
    kernel_shapes();
    skinny_shapes();
    quad_shapes();
    wide_shapes();
    random_requests(quick ? 60 : 400, 1 << 18, 77);
    if (!quick)
        random_requests(40, 1 << 22, 78);
    if (with_suite)
        suite();
    if (with_huge)
        huge();
    /* Every kernel, and the vector tiles of every element size, wide and narrow, must have been checked. */
    for (size_t e = 0; e < 5; e++) {
        const size_t es = elem_sizes[e];
        CHECK(ran_vec[es] > 0 && ran_vec_narrow[es] > 0 && ran_scalar[es] > 0 && ran_skinny[es] > 0,
              "%zu-byte elements: %d vector tiles (%d narrow), %d element-wise, %d skinny: each must run", es,
              ran_vec[es], ran_vec_narrow[es], ran_scalar[es], ran_skinny[es]);
    }
    CHECK(ran_runs > 0 && ran_copy > 0 && ran_fold > 0, "runs %d, copies %d, folded runs %d: each must run", ran_runs,
          ran_copy, ran_fold);
    printf("kernels checked: runs %d, copies %d, folded %d; by element size, vector tiles (narrow), element-wise "
           "tiles, skinny:",
           ran_runs, ran_copy, ran_fold);
    for (size_t e = 0; e < 5; e++)
        printf(" %zu: %d (%d) %d %d;", elem_sizes[e], ran_vec[elem_sizes[e]], ran_vec_narrow[elem_sizes[e]],
               ran_scalar[elem_sizes[e]], ran_skinny[elem_sizes[e]]);
    printf("\n");
    return t_finish("test_gpu_permute");
}
