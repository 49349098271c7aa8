/* result.c: the rows of a bench run: each is related to its references and written out as soon as it is pushed. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

void result_init(bench_result *r, const char *base)
{
    memset(r, 0, sizeof *r);
    r->base = base;
}

/* Opens the outputs and writes their headers: before the first row runs, so that a file that cannot be written
 * costs no bench time. */
int result_start(bench_result *r, const bench_opts *o, int shape_width)
{
    if (!(r->out = report_open(o)))
        return CLI_EXIT_USAGE;
    report_header(r->out, shape_width);
    return 0;
}

/* GB/s, then % of memcpy and speedup against the references of the row's own setup. A run times its references
 * first, and holds them back until all are there, since they relate to each other. % of memcpy: against the fastest
 * of the same backend's copy rows of the same --threads pass (CPU: cpu-memcpy or cpu-stream, whose streaming stores
 * do not read the destination as glibc's memcpy does, so that the bound is the real one), so that a ratio compares
 * like with like (a one-thread variant, timed in the first pass, against that pass's copy); by GB/s rather than time,
 * since a reduction reads its bytes once and a copy of them also writes. Speedup: over r->base, which runs on one
 * thread in every pass. A row that failed has neither. */
static void relate(const bench_result *r, bench_row *a)
{
    const bench_row *ref = NULL;
    a->pct_memcpy = a->speedup = -1;
    a->reference[0] = '\0';
    a->gbps = a->status == XPOSE_OK && a->ms > 0 ? a->bytes / (a->ms * 1e6) : 0;
    if (a->gbps <= 0)
        return;
    for (size_t j = 0; j < r->count; j++) {
        const bench_row *b = &r->rows[j];
        if (b->setup != a->setup || b->gbps <= 0)
            continue;
        if (b->family == XPOSE_FAMILY_COPY && b->backend == a->backend && b->pass_threads == a->pass_threads &&
            (!ref || b->gbps > ref->gbps))
            ref = b;
        if (a->speedup < 0 && r->base && !strcmp(b->variant, r->base))
            a->speedup = b->ms / a->ms;
    }
    if (ref) {
        a->pct_memcpy = 100.0 * a->gbps / ref->gbps;
        snprintf(a->reference, sizeof a->reference, "%s", ref->variant);
    }
}

int result_push(bench_result *r, const bench_row *row)
{
    if (r->count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        bench_row *p = realloc(r->rows, cap * sizeof *p);
        if (!p) {
            fprintf(stderr, "xpose: out of memory for the result rows\n");
            return CLI_EXIT_USAGE;
        }
        r->rows = p;
        r->cap = cap;
    }
    bench_row *a = &r->rows[r->count++];
    *a = *row;
    a->setup = r->setup;
    relate(r, a);
    if (!r->holding && r->out) {
        progress(NULL);
        report_row(r->out, a);
    }
    return 0;
}

void result_hold(bench_result *r)
{
    if (!r->holding)
        r->hold_from = r->count;
    r->holding = 1;
}

void result_release(bench_result *r)
{
    if (!r->holding)
        return;
    r->holding = 0;
    for (size_t i = r->hold_from; i < r->count; i++) {
        relate(r, &r->rows[i]);
        progress(NULL);
        if (r->out)
            report_row(r->out, &r->rows[i]);
    }
}

int result_failed(const bench_result *r)
{
    for (size_t i = 0; i < r->count; i++)
        if (r->rows[i].status != XPOSE_OK || !r->rows[i].verified)
            return 1;
    return 0;
}

void result_free(bench_result *r)
{
    for (int i = 0; i < r->nnotes; i++)
        free(r->notes[i]);
    free(r->notes);
    free(r->rows);
    r->notes = NULL;
    r->rows = NULL;
    r->nnotes = 0;
    r->count = r->cap = 0;
}

/* The CPU rows' % of memcpy is against whichever copy row was faster in its setup and pass: the note says how often
 * each was, as each JSON row's "reference" says it for the row. */
void result_reference_note(bench_result *r)
{
    const char *names[2] = {"cpu-stream", "cpu-memcpy"};
    int won[2] = {0, 0}, cpu = 0;
    for (size_t i = 0; i < r->count; i++) {
        const bench_row *a = &r->rows[i];
        if (a->backend != XPOSE_BACKEND_CPU || a->family != XPOSE_FAMILY_COPY || strcmp(a->variant, a->reference))
            continue; /* one per setup and pass: the copy row that is its own reference */
        for (int k = 0; k < 2; k++)
            won[k] += !strcmp(a->variant, names[k]);
        cpu++;
    }
    if (cpu)
        note_add(r,
                 "CPU rows' %%memcpy: against the faster of cpu-memcpy and cpu-stream of the same shape, element size "
                 "and threads pass (JSON: each row's \"reference\"): cpu-stream in %d of %d, cpu-memcpy in %d",
                 won[0], cpu, won[1]);
}

void note_add(bench_result *r, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **p = realloc(r->notes, sizeof *p * (size_t)(r->nnotes + 1));
    if (!p)
        return; /* a remark lost rather than the run */
    r->notes = p;
    if ((p[r->nnotes] = strdup(buf)) != NULL)
        r->nnotes++;
}

void variant_id(const xpose_variant_info *v, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s", v->name, v->params[0] ? "/" : "", v->params);
}

/* The name of the element type: the one --type gave; "float", the default, where neither --type nor --elem-size
 * was given (--peers runs every element size: then e<bytes> too); else e<bytes>, which says the size and nothing
 * more, since the transposes move bytes. */
static void dtype_name(const bench_opts *o, size_t elem_size, char *buf, size_t n)
{
    if (o->type_name)
        snprintf(buf, n, "%s", o->type_name);
    else if (!o->elem_given && !o->peers && elem_size == 4)
        snprintf(buf, n, "float");
    else
        snprintf(buf, n, "e%zu", elem_size);
}

void row_start(bench_row *row, const xpose_variant_info *v, const bench_opts *o, size_t elem_size)
{
    memset(row, 0, sizeof *row);
    row->pct_memcpy = row->speedup = row->plan_us = -1;
    snprintf(row->variant, sizeof row->variant, "%s", v->name);
    snprintf(row->params, sizeof row->params, "%s", v->params);
    row->backend = v->backend;
    row->family = v->family;
    row->pass_threads = v->backend == XPOSE_BACKEND_CPU ? xpose_get_threads() : 0;
    row->threads = v->threaded ? row->pass_threads : v->backend == XPOSE_BACKEND_CPU; /* one-thread variants: 1 */
    row->elem_size = elem_size;
    dtype_name(o, elem_size, row->dtype, sizeof row->dtype);
}

/* The line is drawn over in place ("\r"), and cleared before a row is written, which may go to the same
 * terminal. */
void progress(const char *id)
{
    static int shown;
    if (!isatty(2) || (!id && !shown))
        return;
    if (id)
        fprintf(stderr, "\r%-60s", id);
    else
        fprintf(stderr, "\r%-60s\r", "");
    fflush(stderr);
    shown = id != NULL;
}
