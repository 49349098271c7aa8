/* bench.c: `xpose bench`: picks shapes and variants, runs, verifies and times them, then reports. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "verify.h"


bench_row *result_add(bench_result *r)
{
    if (r->count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        bench_row *p = realloc(r->rows, cap * sizeof *p);
        if (!p)
            return NULL;
        r->rows = p;
        r->cap = cap;
    }
    bench_row *row = &r->rows[r->count++];
    memset(row, 0, sizeof *row);
    row->pct_memcpy = row->speedup = -1;
    return row;
}

/* The selected variants, as registry indices; `implicit` marks rows added only as references. */
typedef struct selection {
    int idx[512];
    int implicit[512];
    int n;
} selection;

static int sel_has(const selection *s, int i)
{
    for (int k = 0; k < s->n; k++)
        if (s->idx[k] == i)
            return 1;
    return 0;
}

static void sel_add(selection *s, int i, int implicit)
{
    if (i >= 0 && !sel_has(s, i) && s->n < 512) {
        s->idx[s->n] = i;
        s->implicit[s->n++] = implicit;
    }
}

/* A token is "name" (every parameter set of it) or "name/params" (one). */
static int select_token(selection *s, const char *tok)
{
    int found = 0;
    if (strchr(tok, '/')) {
        int i = xpose_variant_find(tok);
        if (i >= 0) {
            sel_add(s, i, 0);
            found = 1;
        }
    } else {
        xpose_variant_info v;
        for (int i = 0; i < xpose_variant_count(); i++)
            if (xpose_variant_get(i, &v) == XPOSE_OK && strcmp(v.name, tok) == 0) {
                sel_add(s, i, 0);
                found = 1;
            }
    }
    if (!found)
        fprintf(stderr, "xpose: unknown variant '%s' (xpose list shows them)\n", tok);
    return found ? 0 : CLI_EXIT_USAGE;
}

static int select_list(selection *s, const char *list)
{
    char buf[1024];
    if (strlen(list) >= sizeof buf) {
        fprintf(stderr, "xpose: --variants list too long\n");
        return CLI_EXIT_USAGE;
    }
    strcpy(buf, list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int st = select_token(s, tok);
        if (st)
            return st;
    }
    if (s->n == 0) {
        fprintf(stderr, "xpose: --variants names no variant\n");
        return CLI_EXIT_USAGE;
    }
    return 0;
}

static int wants_backend(const bench_opts *o, xpose_backend be, int gpu)
{
    switch (o->backend) {
    case BE_CPU:
        return be == XPOSE_BACKEND_CPU;
    case BE_CUDA:
        return be == XPOSE_BACKEND_CUDA;
    case BE_ALL:
        return 1;
    default: /* auto: the GPU ladder where a GPU is, else the CPU side */
        return gpu ? be == XPOSE_BACKEND_CUDA : be == XPOSE_BACKEND_CPU;
    }
}

/* Default selection: every transpose and copy variant of the chosen backends. */
static void select_default(selection *s, const bench_opts *o, int gpu)
{
    xpose_variant_info v;
    for (int i = 0; i < xpose_variant_count(); i++)
        if (xpose_variant_get(i, &v) == XPOSE_OK && v.family != XPOSE_FAMILY_REDUCE &&
            wants_backend(o, v.backend, gpu))
            sel_add(s, i, 0);
}

/* Presets reproduce the seeds' experiments; each sets what the user did not. */
static int apply_preset(bench_opts *o, selection *s)
{
    const char *p = o->preset;
    if (!p)
        return 0;
    if (!strcmp(p, "seed000")) {
        o->rows = o->rows ? o->rows : 4000;
        o->elem_size = 4;
    } else if (!strcmp(p, "seed001")) {
        o->rows = o->rows ? o->rows : 8192;
        o->elem_size = 8;
        if (!o->variants)
            return select_list(s, "naive/16x16,naive-write/16x16,shared-pad/32,cublas-geam,memcpy");
    } else if (!strcmp(p, "seed002")) {
        o->rows = o->rows ? o->rows : 16384;
        o->elem_size = 4;
        if (!o->variants)
            return select_list(s, "naive/16x16,naive/8x8,memcpy");
    } else if (!strcmp(p, "seed004")) {
        o->sweep = 1;
        o->elem_size = 4;
        if (!o->variants)
            return select_list(s, "naive/16x16,shared/32,shared-pad/32,memcpy");
    } else {
        fprintf(stderr, "xpose: unknown --preset '%s' (seed000, seed001, seed002, seed004)\n", p);
        return CLI_EXIT_USAGE;
    }
    if (!o->cols)
        o->cols = o->rows;
    return 0;
}

static int id_of(const xpose_variant_info *v, char *buf, size_t n)
{
    return snprintf(buf, n, "%s%s%s", v->name, v->params[0] ? "/" : "", v->params);
}

static size_t phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : (size_t)-1;
}

void row_name(bench_row *row, const xpose_variant_info *v)
{
    snprintf(row->variant, sizeof row->variant, "%s", v->name);
    snprintf(row->params, sizeof row->params, "%s", v->params);
    row->backend = v->backend;
    row->family = v->family;
}

static void fill_row_head(bench_row *row, const xpose_variant_info *v, const xpose_layout *lay)
{
    row_name(row, v);
    row->rows = lay->rows;
    row->cols = lay->cols;
    row->elem_size = lay->elem_size;
    row->batch = lay->batch ? lay->batch : 1;
    row->bytes = 2.0 * (double)lay->rows * (double)lay->cols * (double)lay->elem_size * (double)row->batch;
}

/* Runs one CPU variant: poison, run, compare in full with the reference, then time. */
static void time_cpu(const char *id, const xpose_layout *lay, const void *src, const void *want, size_t cmp_bytes,
                     void *out, size_t dst_bytes, int reps, bench_row *row)
{
    xv_poison(out, dst_bytes);
    row->status = xpose_transpose_variant(id, lay, src, out);
    if (row->status != XPOSE_OK)
        return;
    size_t first;
    row->verified = xv_compare(out, want, cmp_bytes, &first) == 0;
    double *t = malloc(sizeof(double) * (size_t)reps);
    if (!t) {
        row->status = XPOSE_ERR_NO_MEMORY;
        return;
    }
    double budget_end = now_ms() + 5000; /* slow rows stop after 3 runs once 5 s are spent */
    int k = 0;
    while (k < reps) {
        double t0 = now_ms();
        int st = xpose_transpose_variant(id, lay, src, out);
        t[k++] = now_ms() - t0;
        if (st != XPOSE_OK) {
            row->status = st;
            break;
        }
        if (k >= 3 && now_ms() > budget_end)
            break;
    }
    row->reps = k;
    time_stats(t, k, &row->ms, &row->spread_pct);
    free(t);
}

/* Fills % of memcpy and speedup from the reference rows of the same shape. */
static void relate_rows(bench_result *r)
{
    for (size_t i = 0; i < r->count; i++) {
        bench_row *a = &r->rows[i];
        a->gbps = a->ms > 0 ? a->bytes / (a->ms * 1e6) : 0;
    }
    for (size_t i = 0; i < r->count; i++) {
        bench_row *a = &r->rows[i];
        for (size_t j = 0; j < r->count; j++) {
            bench_row *b = &r->rows[j];
            if (b->status != XPOSE_OK || b->rows != a->rows || b->cols != a->cols ||
                b->elem_size != a->elem_size || b->batch != a->batch || b->ms <= 0)
                continue;
            if (b->family == XPOSE_FAMILY_COPY && b->backend == a->backend)
                a->pct_memcpy = 100.0 * b->ms / a->ms;
            if (!strcmp(b->variant, "cpu-naive"))
                a->speedup = b->ms / a->ms;
        }
    }
}

typedef struct shape {
    size_t rows, cols, es;
} shape;

static int run_shape(const bench_opts *o, const selection *sel, shape sh, int gpu, bench_result *res)
{
    xpose_layout lay = {sh.rows, sh.cols, sh.es, o->ld_src, o->ld_dst, o->batch, 0, 0};
    if ((o->ld_src && o->ld_src < sh.cols) || (o->ld_dst && o->ld_dst < sh.rows)) {
        fprintf(stderr, "xpose: --ld-src must be >= cols and --ld-dst >= rows (%zux%zu)\n", sh.rows, sh.cols);
        return CLI_EXIT_USAGE;
    }
    /* Estimated in floating point first, so that absurd sizes cannot wrap the byte counts. */
    double b = (double)(o->batch ? o->batch : 1), es = (double)sh.es;
    double need = b * es * ((double)sh.rows * (double)(o->ld_src ? o->ld_src : sh.cols) +
                            2.0 * (double)sh.cols * (double)(o->ld_dst ? o->ld_dst : sh.rows));
    if (need > 0.85 * (double)phys_bytes()) {
        fprintf(stderr, "xpose: %zux%zu with %zu-byte elements needs %.1f GiB of host memory; this machine has "
                        "%.1f GiB\n", sh.rows, sh.cols, sh.es, need / 1073741824.0,
                (double)phys_bytes() / 1073741824.0);
        return CLI_EXIT_USAGE;
    }
    size_t sb, db;
    xv_spans(&lay, &sb, &db);
    unsigned char *src = host_big_alloc(sb), *ref = host_big_alloc(db), *out = host_big_alloc(db);
    if (!src || !ref || !out) {
        free(src), free(ref), free(out);
        fprintf(stderr, "xpose: cannot allocate %.1f GiB for %zux%zu\n", need / 1073741824.0, sh.rows, sh.cols);
        return CLI_EXIT_USAGE;
    }
    xv_fill_random(src, sb, o->seed + sh.rows * 31 + sh.cols * 7 + sh.es);
    xv_poison(ref, db);
    xv_reference(&lay, src, ref);
    xpose_layout dense = {sh.rows, sh.cols, sh.es, 0, 0, o->batch, 0, 0};
    size_t dense_bytes = (o->batch ? o->batch : 1) * sh.rows * sh.cols * sh.es;

    int gpu_shape = 0;
    for (int k = 0; k < sel->n; k++) {
        xpose_variant_info v;
        char id[96];
        xpose_variant_get(sel->idx[k], &v);
        id_of(&v, id, sizeof id);
        if (!(v.elem_sizes & (unsigned)sh.es))
            continue; /* this variant does not take this element size */
        if (v.backend == XPOSE_BACKEND_CUDA && !gpu)
            continue;
        if (isatty(2))
            fprintf(stderr, "\r%-60s", id), fflush(stderr);
        bench_row *row = result_add(res);
        if (!row)
            break;
        fill_row_head(row, &v, &lay);
        int reps = o->reps ? o->reps : (v.backend == XPOSE_BACKEND_CUDA ? 50 : 5);
        if (sel->implicit[k] && !o->reps)
            reps = v.backend == XPOSE_BACKEND_CPU ? 1 : reps; /* a reference-only baseline: one timed run */
        /* A copy moves the same rows x cols elements densely: the bound for any layout of that size. */
        int copy = v.family == XPOSE_FAMILY_COPY;
        const xpose_layout *vl = copy ? &dense : &lay;
        const void *want = copy ? (const void *)src : (const void *)ref;
        size_t cmp = copy ? dense_bytes : db;
        if (v.backend == XPOSE_BACKEND_CPU) {
            time_cpu(id, vl, src, want, cmp, out, db, reps, row);
        } else {
            if (!gpu_shape) {
                int st = gpu_begin_shape(&lay, src, sb, db);
                if (st != XPOSE_OK) {
                    res->count--;
                    fprintf(stderr, "xpose: cannot place %zux%zu on the GPU: %s\n", sh.rows, sh.cols,
                            xpose_strerror(st));
                    free(src), free(ref), free(out);
                    return CLI_EXIT_USAGE;
                }
                gpu_shape = 1;
            }
            gpu_time_variant(id, vl, want, cmp, reps, row);
        }
    }
    if (isatty(2))
        fprintf(stderr, "\r%-60s\r", "");
    if (gpu_shape)
        gpu_end_shape();
    free(src), free(ref), free(out);
    return 0;
}

int cmd_bench(int argc, char **argv)
{
    bench_opts o;
    int st = parse_bench_args(argc, argv, &o);
    if (st)
        return st < 0 ? 0 : st;
    if (o.threads)
        xpose_set_threads(o.threads);
    bench_result res;
    memset(&res, 0, sizeof res);
    char why[160] = "";
    int gpu = gpu_ready(why, sizeof why);
    if (o.op == OP_REDUCE)
        return bench_reduce(&o, &res);

    selection sel;
    memset(&sel, 0, sizeof sel);
    if ((st = apply_preset(&o, &sel)) != 0)
        return st;
    if (o.variants && (st = select_list(&sel, o.variants)) != 0)
        return st;
    if (o.peers && !o.variants &&
        (st = select_list(&sel, gpu && o.backend != BE_CPU ? "fast,cublas-geam,memcpy" : "cpu-fast,cpu-openblas,cpu-memcpy")) != 0)
        return st;
    if (sel.n == 0)
        select_default(&sel, &o, gpu);
    /* The references every row is stated against: cpu-naive (speedup) and memcpy of each backend. */
    int any_gpu = 0, any_cpu = 0;
    for (int k = 0; k < sel.n; k++) {
        xpose_variant_info v;
        xpose_variant_get(sel.idx[k], &v);
        any_gpu |= v.backend == XPOSE_BACKEND_CUDA;
        any_cpu |= v.backend == XPOSE_BACKEND_CPU;
    }
    /* Say why the GPU is missing when GPU rows were asked for, or could have been (no --backend cpu). */
    if (!gpu && (any_gpu || o.backend != BE_CPU))
        snprintf(res.note, sizeof res.note, "GPU variants skipped: %s", why);
    if (!o.peers)
        sel_add(&sel, xpose_variant_find("cpu-naive"), 1);
    if (any_cpu)
        sel_add(&sel, xpose_variant_find("cpu-memcpy"), 1);
    if (any_gpu && gpu)
        sel_add(&sel, xpose_variant_find("memcpy"), 1);

    shape shapes[64];
    int ns = 0;
    size_t sizes[5] = {o.elem_size, 0, 0, 0, 0};
    int nes = 1;
    if (o.peers) {
        static const size_t all[5] = {1, 2, 4, 8, 16};
        memcpy(sizes, all, sizeof all);
        nes = 5;
    }
    if (o.sweep) {
        size_t max = o.sweep_max ? o.sweep_max : (gpu && any_gpu ? 32768 : 8192);
        for (size_t n = 256; n <= max && ns < 64 - 5; n *= 2)
            for (int e = 0; e < nes; e++)
                shapes[ns++] = (shape){n, n, sizes[e]};
    } else {
        size_t r = o.rows ? o.rows : (o.peers ? 16384 : 4000), c = o.cols ? o.cols : r;
        for (int e = 0; e < nes; e++)
            shapes[ns++] = (shape){r, c, sizes[e]};
    }
    for (int i = 0; i < ns; i++)
        if ((st = run_shape(&o, &sel, shapes[i], gpu, &res)) != 0) {
            free(res.rows);
            return st;
        }
    relate_rows(&res);
    report(stdout, o.format, &res, &o);
    int bad = 0;
    for (size_t i = 0; i < res.count; i++)
        bad |= res.rows[i].status != XPOSE_OK || !res.rows[i].verified;
    if (o.plot && (st = plot_png(o.plot, &res, o.sweep)) != 0)
        bad = st;
    free(res.rows);
    return bad ? (bad == CLI_EXIT_USAGE ? CLI_EXIT_USAGE : 1) : 0;
}
