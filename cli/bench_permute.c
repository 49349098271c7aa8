/* bench_permute.c: `xpose bench --op permute`: N-d permutations through the public plan API, one row per backend,
 * each verified against the plain reference (reference/permute_ref.c) and timed beside a copy of the same bytes. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "permute_ref.h"
#include "verify.h"
#include "xpose_cuda.h"

#define SUITE_CPU_BYTES ((size_t)64 << 20) /* the CPU's cases of --preset permute: at most this many bytes */
#define SUITE_KEEP 4                       /* extents the scaling never touches: the small fastest ones */
#define PLAN_ROUNDS 21                     /* plan creation timed as the median of rounds of PLAN_CALLS */
#define PLAN_CALLS 200

/* One permutation of a dense row-major tensor. */
typedef struct pcase {
    char type[12]; /* the element type's name, as --type spells it (or e<bytes> for --elem-size) */
    size_t es;
    int rank;
    size_t ext[XPOSE_MAX_RANK];
    int perm[XPOSE_MAX_RANK];
    xpose_backend backend;
} pcase;

/* Issue 36's suite, at the sizes it gives for the GPU. */
static const struct {
    const char *type;
    int rank;
    size_t ext[6];
    int perm[6];
} suite[] = {
    {"float", 4, {64, 256, 56, 56}, {0, 2, 3, 1}},       /* NCHW -> NHWC */
    {"bf16", 4, {64, 256, 56, 56}, {0, 2, 3, 1}},        /* NCHW -> NHWC */
    {"u8", 4, {64, 256, 56, 56}, {0, 2, 3, 1}},          /* NCHW -> NHWC */
    {"float", 4, {64, 56, 56, 256}, {0, 3, 1, 2}},       /* NHWC -> NCHW */
    {"bf16", 4, {16, 4096, 32, 128}, {0, 2, 1, 3}},      /* attention: [B,S,H,D] -> [B,H,S,D] */
    {"bf16", 5, {8, 2048, 3, 32, 128}, {2, 0, 3, 1, 4}}, /* packed QKV */
    {"float", 3, {512, 512, 512}, {2, 1, 0}},
    {"float", 3, {512, 512, 512}, {1, 2, 0}},
    {"float", 3, {1024, 1024, 64}, {1, 0, 2}},
    {"float", 4, {128, 128, 128, 128}, {3, 2, 1, 0}},
    {"float", 5, {32, 32, 32, 32, 64}, {4, 1, 3, 0, 2}},
    {"double", 6, {16, 16, 16, 16, 16, 16}, {5, 4, 3, 2, 1, 0}},
    {"double", 4, {96, 75, 96, 75}, {2, 1, 3, 0}},
    {"float", 5, {48, 28, 48, 28, 28}, {2, 0, 4, 1, 3}},
    {"u8", 3, {8192, 8192, 3}, {2, 0, 1}}, /* HWC -> CHW */
    {"float", 2, {(size_t)1 << 26, 2}, {1, 0}},
    {"float", 4, {64, 128, 256, 64}, {0, 2, 1, 3}}, /* the fastest dimension kept: copy speed */
};

static size_t case_count(const pcase *c)
{
    size_t n = 1;
    for (int k = 0; k < c->rank; k++)
        n *= c->ext[k];
    return n;
}

/* The CPU's size of a suite case: the largest extent above SUITE_KEEP halved until the tensor fits SUITE_CPU_BYTES,
 * so that the permutation and its small extents stay what they are. */
static void scale_for_cpu(pcase *c)
{
    while (case_count(c) * c->es > SUITE_CPU_BYTES) {
        int big = -1;
        for (int k = 0; k < c->rank; k++)
            if (c->ext[k] > SUITE_KEEP && (big < 0 || c->ext[k] > c->ext[big]))
                big = k;
        if (big < 0)
            return;
        c->ext[big] /= 2;
    }
}

static void shape_text(const pcase *c, char *buf, size_t n)
{
    size_t len = 0;
    for (int k = 0; k < c->rank && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "%s%zu", k ? "x" : "", c->ext[k]);
    for (int k = 0; k < c->rank && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "%s%d", k ? "," : " (", c->perm[k]);
    if (len < n)
        snprintf(buf + len, n - len, ")");
}

/* The cases to run, each on each backend asked for (the suite's CPU ones scaled down); *n of at most max. */
static int plan_cases(const bench_opts *o, int cpu, int gpu, pcase *out, int max)
{
    int n = 0;
    const int nsuite = o->preset ? (int)(sizeof suite / sizeof suite[0]) : 1;
    for (int i = 0; i < nsuite; i++) {
        pcase c;
        memset(&c, 0, sizeof c);
        if (o->preset) {
            c.rank = suite[i].rank;
            memcpy(c.ext, suite[i].ext, sizeof suite[i].ext);
            memcpy(c.perm, suite[i].perm, sizeof suite[i].perm);
        } else {
            c.rank = o->rank;
            for (int k = 0; k < c.rank; k++) {
                c.ext[k] = o->shape[k];
                c.perm[k] = (int)o->perm[k];
            }
        }
        /* An explicit --type stays; else the suite's types, or float. */
        snprintf(c.type, sizeof c.type, "%s",
                 o->type_name                  ? o->type_name
                 : o->preset && !o->elem_given ? suite[i].type
                                               : "float");
        if (o->elem_given && !o->type_name)
            snprintf(c.type, sizeof c.type, "e%zu", o->elem_size);
        if (o->preset && !o->elem_given)
            parse_type(c.type, &c.es);
        else
            c.es = o->elem_size;
        for (int b = 0; b < 2 && n < max; b++) {
            if (!(b ? gpu : cpu))
                continue;
            out[n] = c;
            out[n].backend = b ? XPOSE_BACKEND_CUDA : XPOSE_BACKEND_CPU;
            if (!b && o->preset)
                scale_for_cpu(&out[n]);
            n++;
        }
    }
    return n;
}

/* Refuses, before anything runs, a case whose bytes overflow or whose host buffers (source, reference, output, and
 * the cache flush's) would not fit in memory. */
static int check_case(const pcase *c, size_t extra)
{
    double bytes = (double)c->es;
    for (int k = 0; k < c->rank; k++)
        bytes *= (double)c->ext[k];
    char text[128];
    shape_text(c, text, sizeof text);
    if (3.0 * bytes + (double)extra > 0.85 * (double)phys_bytes()) {
        fprintf(stderr, "xpose: %s with %zu-byte elements needs %.1f GiB of host memory; this machine has %.1f GiB\n",
                text, c->es, 3.0 * bytes / 1073741824.0, (double)phys_bytes() / 1073741824.0);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

/* One case's host buffers and plan. */
typedef struct pdata {
    const pcase *c;
    size_t bytes;
    unsigned char *src, *ref, *out;
    xpose_layout copy; /* the same bytes as one dense row: what the copy rows move */
    xpose_layout flat; /* CPU: a 2-D transpose of the same bytes, cpu-fast's yardstick (flat_shape); rows 0: none */
    unsigned char *flat_ref;
    xpose_permute_plan plan;
    int plan_status;
    double plan_us;
    char plan_text[256], shape[96];
} pdata;

/* Plan creation time: the median over rounds of the mean of PLAN_CALLS creations (each destroyed again). */
static double time_planning(const pcase *c)
{
    double t[PLAN_ROUNDS], median, spread;
    for (int r = 0; r < PLAN_ROUNDS; r++) {
        double t0 = now_ms();
        for (int k = 0; k < PLAN_CALLS; k++) {
            xpose_permute_plan p = NULL;
            xpose_permute_plan_create(&p, c->backend, c->es, c->rank, c->ext, c->perm, NULL, NULL);
            xpose_permute_plan_destroy(p);
        }
        t[r] = (now_ms() - t0) * 1e3 / PLAN_CALLS;
    }
    time_stats(t, PLAN_ROUNDS, &median, &spread);
    return median;
}

static void pdata_end(pdata *d)
{
    xpose_permute_plan_destroy(d->plan);
    free(d->src), free(d->ref), free(d->out), free(d->flat_ref);
}

/* The CPU target is a share of cpu-fast's speed on a 2-D transpose of the same bytes: rows x cols with rows
 * the largest divisor of the element count up to its square root (4096 x 4096 for 2^24 floats), so that the matrix
 * is as square as the count allows; among those, one whose rows and columns are both whole cache lines where the
 * count has one, since cpu-fast is at its fastest there (a strict yardstick). None (rows 0) where that leaves fewer
 * than 64 rows: no real transpose. */
static xpose_layout flat_shape(const pcase *c)
{
    const size_t n = case_count(c), line = 64 / c->es;
    size_t rows = 1, lined = 0;
    for (size_t r = 1; r * r <= n; r++)
        if (n % r == 0) {
            rows = r;
            if (r % line == 0 && n / r % line == 0)
                lined = r;
        }
    if (lined >= 64)
        rows = lined;
    xpose_layout lay = {rows, n / rows, c->es, 0, 0, 1, 0, 0};
    if (rows < 64)
        lay.rows = 0;
    return lay;
}

/* The 2-D yardstick's buffers: its expected output, filled by the plain reference. */
static int flat_begin(pdata *d)
{
    const pcase *c = d->c;
    d->flat = flat_shape(c);
    if (!d->flat.rows)
        return 0;
    if (!(d->flat_ref = host_big_alloc(d->bytes)))
        return -1;
    const size_t ext[2] = {d->flat.rows, d->flat.cols};
    const int perm[2] = {1, 0};
    xv_perm_desc desc = {c->es, 2, ext, perm, NULL, NULL};
    xv_permute_reference(&desc, d->src, d->flat_ref);
    return 0;
}

static int pdata_begin(const bench_opts *o, const pcase *c, pdata *d)
{
    memset(d, 0, sizeof *d);
    d->c = c;
    d->bytes = case_count(c) * c->es;
    d->copy = (xpose_layout){1, case_count(c), c->es, 0, 0, 0, 0, 0};
    shape_text(c, d->shape, sizeof d->shape);
    d->src = host_big_alloc(d->bytes), d->ref = host_big_alloc(d->bytes), d->out = host_big_alloc(d->bytes);
    if (!d->src || !d->ref || !d->out) {
        free(d->src), free(d->ref), free(d->out);
        fprintf(stderr, "xpose: cannot allocate %.1f GiB for %s\n", 3.0 * (double)d->bytes / 1073741824.0, d->shape);
        return CLI_EXIT_USAGE;
    }
    xv_fill_random(d->src, d->bytes, o->seed + case_count(c) * 31 + c->es);
    xv_poison(d->ref, d->bytes);
    xv_perm_desc desc = {c->es, c->rank, c->ext, c->perm, NULL, NULL};
    xv_permute_reference(&desc, d->src, d->ref);
    if (c->backend == XPOSE_BACKEND_CPU && flat_begin(d)) {
        pdata_end(d);
        fprintf(stderr, "xpose: cannot allocate %.1f GiB for %s\n", 4.0 * (double)d->bytes / 1073741824.0, d->shape);
        return CLI_EXIT_USAGE;
    }
    d->plan_status = xpose_permute_plan_create(&d->plan, c->backend, c->es, c->rank, c->ext, c->perm, NULL, NULL);
    if (d->plan_status == XPOSE_OK) {
        xpose_permute_plan_describe(d->plan, c->backend, d->plan_text, sizeof d->plan_text);
        d->plan_us = time_planning(c);
    }
    return 0;
}

/* A row of the case: its shape (rows: all but the last extent; cols: the last) and bytes moved. */
static void row_case(bench_row *row, const pdata *d, const char *name, xpose_backend be, xpose_family fam,
                     const bench_opts *o)
{
    xpose_variant_info v = {name, "", "", be, fam, 0x1F, 1, be == XPOSE_BACKEND_CPU, ""};
    int i = xpose_variant_find(name);
    if (i >= 0)
        xpose_variant_get(i, &v);
    row_start(row, &v, o, d->c->es);
    snprintf(row->dtype, sizeof row->dtype, "%s", d->c->type);
    snprintf(row->shape, sizeof row->shape, "%s", d->shape);
    const pcase *c = d->c;
    row->cols = c->ext[c->rank - 1];
    row->rows = case_count(c) / row->cols;
    row->batch = 1;
    row->bytes = 2.0 * (double)d->bytes;
}

/* The permutation's row: its plan, then (CPU) run into a poisoned output, compared in full, timed. */
static void permute_row(bench_row *row, const pdata *d, const bench_opts *o)
{
    const int gpu = d->c->backend == XPOSE_BACKEND_CUDA;
    row_case(row, d, gpu ? "permute" : "cpu-permute", d->c->backend, XPOSE_FAMILY_TRANSPOSE, o);
    snprintf(row->plan, sizeof row->plan, "%s", d->plan_text);
    row->plan_us = d->plan_status == XPOSE_OK ? d->plan_us : -1;
    row->status = d->plan_status;
}

typedef struct plan_run {
    xpose_permute_plan plan;
    const void *src;
    void *out;
} plan_run;

static int run_plan(void *ctx)
{
    const plan_run *r = ctx;
    return xpose_permute_execute(r->plan, r->src, r->out);
}

/* The 2-D yardstick's row: cpu-fast on d->flat, verified like a transpose row; its plan column says what it is
 * (results.py reads the ratio from it). */
static void flat_row(const bench_opts *o, pdata *d, bench_row *row)
{
    row_case(row, d, "cpu-fast", XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, o);
    row->rows = d->flat.rows;
    row->cols = d->flat.cols;
    snprintf(row->plan, sizeof row->plan, "yardstick: a 2-D %zux%zu transpose of the same bytes", d->flat.rows,
             d->flat.cols);
    progress("cpu-fast");
    check_cpu_variant("cpu-fast", &d->flat, d->src, d->flat_ref, d->bytes, d->out, d->bytes, row);
}

/* The CPU rows of one case, one pass per --threads value: the two copies (references), cpu-fast on a 2-D transpose of
 * the same bytes (flat_shape) and the permutation, each verified, then timed in turn (time_cpu_turns): the target is
 * a ratio of two of them. */
static int run_cpu_case(const bench_opts *o, const bench_env *env, pdata *d, bench_result *res)
{
    const int reps = o->reps ? o->reps : 5;
    int st = 0;
    for (int p = 0; p < (env->tp.n ? env->tp.n : 1) && !st; p++) {
        if (env->tp.n)
            xpose_set_threads(env->tp.t[p]);
        static const char *const copies[2] = {"cpu-memcpy", "cpu-stream"};
        bench_row rows[4];
        transpose_run tr[3];
        plan_run pr = {d->plan, d->src, d->out};
        cpu_turn turn[4];
        int nrows = 0;
        for (int k = 0; k < 2; k++) {
            row_case(&rows[k], d, copies[k], XPOSE_BACKEND_CPU, XPOSE_FAMILY_COPY, o);
            progress(copies[k]);
            check_cpu_variant(copies[k], &d->copy, d->src, d->src, d->bytes, d->out, d->bytes, &rows[k]);
            tr[k] = (transpose_run){copies[k], &d->copy, d->src, d->out};
            turn[nrows++] = (cpu_turn){NULL, run_transpose, &tr[k], reps, &rows[k]};
        }
        if (d->flat.rows) {
            flat_row(o, d, &rows[2]);
            tr[2] = (transpose_run){"cpu-fast", &d->flat, d->src, d->out};
            turn[nrows++] = (cpu_turn){NULL, run_transpose, &tr[2], reps, &rows[2]};
        }
        bench_row *prow = &rows[nrows];
        permute_row(prow, d, o);
        if (prow->status == XPOSE_OK) {
            progress(prow->variant);
            xv_poison(d->out, d->bytes);
            prow->status = xpose_permute_execute(d->plan, d->src, d->out);
            size_t first;
            prow->verified = prow->status == XPOSE_OK && xv_compare(d->out, d->ref, d->bytes, &first) == 0;
        }
        turn[nrows] = (cpu_turn){NULL, run_plan, &pr, reps, prow};
        time_cpu_turns(turn, nrows + 1, !o->warm); /* rows that failed their check are left out */
        result_hold(res);
        for (int k = 0; k < 2 && !st; k++)
            st = result_push(res, &rows[k]);
        result_release(res);
        for (int i = 2; i <= nrows && !st; i++)
            st = result_push(res, &rows[i]);
    }
    return st;
}

/* The GPU rows of one case: memcpy of the same bytes and the permutation, verified, then timed in turn. */
static int run_gpu_case(const bench_opts *o, pdata *d, bench_result *res)
{
    int st = gpu_begin_shape(&d->copy, d->src, d->bytes, d->bytes);
    if (st != XPOSE_OK) {
        fprintf(stderr, "xpose: cannot place %s on the GPU: %s\n", d->shape, xpose_strerror(st));
        return CLI_EXIT_USAGE;
    }
    bench_row rows[2];
    gpu_job jobs[2] = {{"memcpy", &d->copy, &rows[0], NULL}, {"", NULL, &rows[1], d->plan}};
    row_case(&rows[0], d, "memcpy", XPOSE_BACKEND_CUDA, XPOSE_FAMILY_COPY, o);
    permute_row(&rows[1], d, o);
    progress("memcpy");
    gpu_verify_job(&jobs[0], d->src, d->bytes);
    if (rows[1].status == XPOSE_OK) {
        progress(rows[1].variant);
        gpu_verify_job(&jobs[1], d->ref, d->bytes);
    }
    int n = rows[1].status == XPOSE_OK ? 2 : 1; /* a plan that failed is pushed with its status, untimed */
    gpu_time_jobs(jobs, n, o->reps ? o->reps : 50);
    gpu_end_shape();
    st = result_push(res, &rows[0]);
    return st ? st : result_push(res, &rows[1]);
}

/* What runs where: CPU rows for --backend cpu and all (and auto without a GPU), GPU rows where a GPU can run them. */
static int pick_backends(const bench_opts *o, const bench_env *env, int *cpu, int *gpu, bench_result *res)
{
    *cpu = o->backend == BE_CPU || o->backend == BE_ALL || (o->backend == BE_AUTO && !env->gpu);
    *gpu = env->gpu && (o->backend == BE_CUDA || o->backend == BE_ALL || o->backend == BE_AUTO);
    if (o->backend == BE_CUDA && !env->gpu) {
        fprintf(stderr, "xpose: nothing to run: GPU variants cannot run here (%s)\n", env->why);
        return CLI_EXIT_USAGE;
    }
    if (!env->gpu && o->backend != BE_CPU)
        note_add(res, "GPU variants skipped: %s", env->why);
    return 0;
}

/* The plans' creation times over the run, in one note (each row has its own: JSON plan_us). */
static void planning_note(bench_result *res)
{
    const bench_result *r = res;
    double lo = -1, hi = -1;
    for (size_t i = 0; i < r->count; i++) {
        double us = r->rows[i].plan_us;
        if (us >= 0) {
            lo = lo < 0 || us < lo ? us : lo;
            hi = us > hi ? us : hi;
        }
    }
    if (lo >= 0)
        note_add(res,
                 "plans created in %.2f-%.2f us each (xpose_permute_plan_create and destroy, the median of %d rounds "
                 "of %d)",
                 lo, hi, PLAN_ROUNDS, PLAN_CALLS);
}

int bench_permute(const bench_opts *o, const bench_env *env, bench_result *res)
{
    int cpu, gpu, st = pick_backends(o, env, &cpu, &gpu, res);
    if (st)
        return st;
    pcase cases[2 * sizeof suite / sizeof suite[0]];
    const int n = plan_cases(o, cpu, gpu, cases, (int)(sizeof cases / sizeof cases[0]));
    const int cold = cpu && !o->warm;
    int width = 0;
    for (int i = 0; i < n && !st; i++) {
        char text[96];
        shape_text(&cases[i], text, sizeof text);
        width = (int)strlen(text) > width ? (int)strlen(text) : width;
        st = check_case(&cases[i], cold ? cpu_flush_size() : 0);
    }
    if (st || (st = result_start(res, o, width)))
        return st;
    if (cold)
        cpu_flush_init();
    for (int i = 0; i < n && !st; i++) {
        pdata d;
        if ((st = pdata_begin(o, &cases[i], &d)))
            break;
        res->setup++;
        st = cases[i].backend == XPOSE_BACKEND_CUDA ? run_gpu_case(o, &d, res) : run_cpu_case(o, env, &d, res);
        pdata_end(&d);
        progress(NULL);
    }
    if (cpu) {
        cpu_flush_note(res, cold);
        note_add(res,
                 "CPU rows of a case timed in turn, round by round (the copies, the 2-D yardstick, the permutation), "
                 "a round starting one row further on each time");
    }
    cpu_flush_free();
    if (gpu)
        gpu_timing_note(res, 0);
    if (o->preset && cpu)
        note_add(res, "--preset permute on the CPU: each case's largest extent above %d halved until it fits %zu MiB",
                 SUITE_KEEP, SUITE_CPU_BYTES >> 20);
    planning_note(res);
    return st;
}
