/* bench_select.c: which variants `xpose bench` runs: --variants lists, the defaults per backend, the seeds' presets,
 * less what cannot run here. */
#include <string.h>
#include "bench_select.h"

static int sel_has(const selection *s, int i)
{
    for (int k = 0; k < s->n; k++)
        if (s->idx[k] == i)
            return 1;
    return 0;
}

void sel_add(selection *s, int i, int implicit)
{
    if (i >= 0 && !sel_has(s, i) && s->n < 512) {
        s->idx[s->n] = i;
        s->implicit[s->n++] = implicit;
    }
}

void sel_put_first(selection *s, int i, int implicit)
{
    if (i < 0)
        return;
    int k = 0;
    while (k < s->n && s->idx[k] != i)
        k++;
    if (k >= s->nref) /* not a reference yet */
        s->nref += s->nref < 512;
    if (k == s->n) { /* not there yet: one more, or the last one dropped where the selection is full */
        if (s->n < 512)
            s->n++;
        k = s->n - 1;
    } else
        implicit = s->implicit[k]; /* named by the user: stays so */
    memmove(&s->idx[1], &s->idx[0], sizeof s->idx[0] * (size_t)k);
    memmove(&s->implicit[1], &s->implicit[0], sizeof s->implicit[0] * (size_t)k);
    s->idx[0] = i;
    s->implicit[0] = implicit;
}

int sel_has_backend(const selection *s, xpose_backend b)
{
    xpose_variant_info v;
    for (int k = 0; k < s->n; k++)
        if (xpose_variant_get(s->idx[k], &v) == XPOSE_OK && v.backend == b)
            return 1;
    return 0;
}

/* Drops the variants that cannot run here (a peer whose library was not found at build time): for the lists the
 * bench makes up itself, where a missing optional peer is not an error (`xpose list` says why it is missing). */
void sel_drop_unavailable(selection *s)
{
    int n = 0;
    for (int k = 0; k < s->n; k++) {
        xpose_variant_info v;
        if (xpose_variant_get(s->idx[k], &v) == XPOSE_OK && v.available) {
            s->idx[n] = s->idx[k];
            s->implicit[n++] = s->implicit[k];
        }
    }
    s->n = n;
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

int select_list(selection *s, const char *list)
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

int sel_check_named(const selection *s, const size_t *es, int nes, bench_result *res)
{
    xpose_variant_info v;
    int named = 0, runnable = 0;
    for (int k = 0; k < s->n; k++) {
        if (s->implicit[k] || xpose_variant_get(s->idx[k], &v) != XPOSE_OK)
            continue;
        named++;
        char id[96];
        variant_id(&v, id, sizeof id);
        for (int e = 0; e < nes; e++)
            if (!(v.elem_sizes & es[e])) /* bit k: 2^k bytes */
                note_add(res, "not run at %zu-byte elements, which it does not take: %s", es[e], id);
            else
                runnable = 1;
    }
    if (named && !runnable) {
        fprintf(stderr, "xpose: no variant in --variants takes %zu-byte elements\n", es[0]);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

/* Whether a variant of family f belongs in bench `which` (0, 1 or SEL_INPLACE); copies are named as references too
 * where `refs`. */
static int in_bench(xpose_family f, int which, int refs)
{
    if (which == SEL_INPLACE)
        return f == XPOSE_FAMILY_INPLACE || (refs && f == XPOSE_FAMILY_COPY);
    if (f == XPOSE_FAMILY_INPLACE)
        return 0;
    return (f == XPOSE_FAMILY_REDUCE) == which;
}

int sel_check_family(const selection *s, int reduce)
{
    xpose_variant_info v;
    for (int k = 0; k < s->n; k++) {
        if (xpose_variant_get(s->idx[k], &v) != XPOSE_OK || in_bench(v.family, reduce, 1))
            continue;
        if (reduce == SEL_INPLACE)
            fprintf(stderr, "xpose: %s is not an in-place transpose (xpose list shows them, family inplace)\n", v.name);
        else if (v.family == XPOSE_FAMILY_INPLACE)
            fprintf(stderr, "xpose: %s is an in-place transpose; run it with --op inplace\n", v.name);
        else if (reduce)
            fprintf(stderr, "xpose: %s is no reduction (xpose list shows them, family reduce)\n", v.name);
        else
            fprintf(stderr, "xpose: %s is a reduction; run it with --op reduce\n", v.name);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

static int wants_backend(const bench_opts *o, xpose_backend be, int gpu)
{
    switch (o->backend) {
    case BE_CPU: return be == XPOSE_BACKEND_CPU;
    case BE_CUDA: return be == XPOSE_BACKEND_CUDA;
    case BE_ALL: return 1;
    default: /* auto: the GPU ladder where a GPU is, else the CPU side */
        return gpu ? be == XPOSE_BACKEND_CUDA : be == XPOSE_BACKEND_CPU;
    }
}

void select_default(selection *s, const bench_opts *o, int gpu, int reduce)
{
    xpose_variant_info v;
    for (int i = 0; i < xpose_variant_count(); i++)
        if (xpose_variant_get(i, &v) == XPOSE_OK && in_bench(v.family, reduce, 0) && v.available &&
            wants_backend(o, v.backend, gpu)) /* an optional peer not built here is left out, not failed */
            sel_add(s, i, 0);
}

/* Why selected variants cannot run: counts, and the first of each kind, named. */
typedef struct dropped {
    int backend, gpu, unbuilt;
    char backend_id[96], unbuilt_id[96];
    const char *unbuilt_why;
} dropped;

/* 1 when variant v stays; else 0, and why it goes is counted in d. */
static int runs_here(const xpose_variant_info *v, const bench_opts *o, int gpu, dropped *d)
{
    int cuda = v->backend == XPOSE_BACKEND_CUDA;
    if ((o->backend == BE_CPU && cuda) || (o->backend == BE_CUDA && !cuda)) {
        if (!d->backend++)
            variant_id(v, d->backend_id, sizeof d->backend_id);
        return 0;
    }
    if (cuda && !gpu) {
        d->gpu++;
        return 0;
    }
    if (!v->available) {
        if (!d->unbuilt++) {
            variant_id(v, d->unbuilt_id, sizeof d->unbuilt_id);
            d->unbuilt_why = v->why_not;
        }
        return 0;
    }
    return 1;
}

/* One line for a selection left empty: the GPU's absence first, as the likeliest thing to fix (with --backend cuda
 * and no CUDA build, the default selection is empty from the start: no GPU variant is available). */
static int nothing_runs(const dropped *d, const bench_opts *o, const bench_env *env)
{
    static const char *const be[] = {"auto", "cpu", "cuda", "all"};
    if (d->gpu || (o->backend == BE_CUDA && !env->gpu))
        fprintf(stderr, "xpose: nothing to run: GPU variants cannot run here (%s)\n", env->why);
    else if (d->unbuilt)
        fprintf(stderr, "xpose: nothing to run: %s is not built here (%s)\n", d->unbuilt_id, d->unbuilt_why);
    else
        fprintf(stderr, "xpose: nothing to run: no selected variant runs on --backend %s\n", be[o->backend]);
    return CLI_EXIT_USAGE;
}

int sel_runnable(selection *s, const bench_opts *o, const bench_env *env, bench_result *res)
{
    dropped d;
    memset(&d, 0, sizeof d);
    int n = 0;
    for (int k = 0; k < s->n; k++) {
        xpose_variant_info v;
        if (xpose_variant_get(s->idx[k], &v) == XPOSE_OK && runs_here(&v, o, env->gpu, &d)) {
            s->idx[n] = s->idx[k];
            s->implicit[n++] = s->implicit[k];
        }
    }
    s->n = n;
    if (n == 0)
        return nothing_runs(&d, o, env);
    /* Said where GPU rows were asked for, or could have been (no --backend cpu). */
    if (!env->gpu && (d.gpu || o->backend != BE_CPU))
        note_add(res, "GPU variants skipped: %s", env->why);
    if (d.backend)
        note_add(res, "left out by --backend %s: %s%s", o->backend == BE_CPU ? "cpu" : "cuda", d.backend_id,
                 d.backend > 1 ? " and others" : "");
    if (d.unbuilt)
        note_add(res, "not built here: %s (%s)%s", d.unbuilt_id, d.unbuilt_why, d.unbuilt > 1 ? " and others" : "");
    return 0;
}

/* Presets reproduce the seeds' experiments; each sets what the user did not. */
int apply_preset(bench_opts *o, selection *s)
{
    const char *p = o->preset;
    if (!p)
        return 0;
    if (!strcmp(p, "seed000")) {
        o->rows = o->rows ? o->rows : 4000;
        o->elem_size = o->elem_given ? o->elem_size : 4;
    } else if (o->backend == BE_CPU && !o->variants &&
               (!strcmp(p, "seed001") || !strcmp(p, "seed002") || !strcmp(p, "seed004"))) { /* GPU lists */
        fprintf(stderr, "xpose: --preset %s times GPU variants; drop --backend cpu, or name CPU ones with --variants\n",
                p);
        return CLI_EXIT_USAGE;
    } else if (!strcmp(p, "seed001")) {
        o->rows = o->rows ? o->rows : 8192;
        o->elem_size = o->elem_given ? o->elem_size : 8;
        if (!o->variants)
            return select_list(s, "naive/16x16,naive-write/16x16,shared-pad/32,cublas-geam,memcpy");
    } else if (!strcmp(p, "seed002")) {
        o->rows = o->rows ? o->rows : 16384;
        o->elem_size = o->elem_given ? o->elem_size : 4;
        if (!o->variants)
            return select_list(s, "naive/16x16,naive/8x8,memcpy");
    } else if (!strcmp(p, "seed004")) {
        o->sweep = 1;
        o->elem_size = o->elem_given ? o->elem_size : 4;
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
