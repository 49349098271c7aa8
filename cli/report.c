/* report.c: prints bench results as an aligned table, CSV, JSON or Markdown. */
#include <stdarg.h>
#include <string.h>
#include "cli.h"

/* Appends one printf-formatted remark to a run's note, after a "; " when the note already says something; what
 * does not fit is cut. */
void note_add(bench_result *r, const char *fmt, ...)
{
    size_t used = strlen(r->note);
    if (used + 2 >= sizeof r->note)
        return;
    if (used) {
        memcpy(r->note + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note + used, sizeof r->note - used, fmt, ap);
    va_end(ap);
}

static const char *backend_name(xpose_backend b) { return b == XPOSE_BACKEND_CUDA ? "cuda" : "cpu"; }

static void shape_str(const bench_row *r, char *buf, size_t n)
{
    if (r->family == XPOSE_FAMILY_REDUCE) /* a reduction's row holds its element count in rows */
        snprintf(buf, n, "n=%zu", r->rows);
    else if (r->batch > 1)
        snprintf(buf, n, "%zux%zu x%zu", r->rows, r->cols, r->batch);
    else
        snprintf(buf, n, "%zux%zu", r->rows, r->cols);
}

static void num_or_dash(char *buf, size_t n, double v, const char *fmt)
{
    if (v < 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, fmt, v);
}

/* The thread count of a CPU row, or `none` for a GPU row, where it does not apply. */
static void threads_str(const bench_row *r, char *buf, size_t n, const char *none)
{
    if (r->threads > 0)
        snprintf(buf, n, "%d", r->threads);
    else
        snprintf(buf, n, "%s", none);
}

static const char *verdict(const bench_row *r)
{
    if (r->status != XPOSE_OK)
        return "ERROR";
    return r->verified ? "yes" : "NO";
}

static void print_text(FILE *f, const bench_result *res, int md)
{
    const char *sep = md ? " | " : "  ";
    if (md)
        fprintf(f, "| variant | params | shape | elem | threads | ms | GB/s | %% memcpy | speedup | spread %% | "
                   "verified |\n|---|---|---|--:|--:|--:|--:|--:|--:|--:|:-:|\n");
    else
        fprintf(f, "%-14s%s%-7s%s%-16s%s%4s%s%7s%s%10s%s%9s%s%8s%s%9s%s%7s%s%s\n", "variant", sep, "params", sep,
                "shape", sep, "elem", sep, "threads", sep, "ms", sep, "GB/s", sep, "%memcpy", sep, "speedup", sep,
                "spread%", sep, "verified");
    for (size_t i = 0; i < res->count; i++) {
        const bench_row *r = &res->rows[i];
        char shape[48], thr[16], pct[24], spd[24];
        shape_str(r, shape, sizeof shape);
        threads_str(r, thr, sizeof thr, "-");
        num_or_dash(pct, sizeof pct, r->pct_memcpy, "%.1f");
        num_or_dash(spd, sizeof spd, r->speedup, "%.1f");
        if (md)
            fprintf(f, "| %s | %s | %s | %zu | %s | %.4f | %.1f | %s | %s | %.1f | %s |\n", r->variant, r->params,
                    shape, r->elem_size, thr, r->ms, r->gbps, pct, spd, r->spread_pct, verdict(r));
        else
            fprintf(f, "%-14s%s%-7s%s%-16s%s%4zu%s%7s%s%10.4f%s%9.1f%s%8s%s%9s%s%7.1f%s%s\n", r->variant, sep,
                    r->params, sep, shape, sep, r->elem_size, sep, thr, sep, r->ms, sep, r->gbps, sep, pct, sep, spd,
                    sep, r->spread_pct, sep, verdict(r));
        if (r->status != XPOSE_OK)
            fprintf(md ? stderr : f, "  %s: %s\n", r->variant, xpose_strerror(r->status));
    }
    if (res->note[0])
        fprintf(f, "%s%s\n", md ? "\n" : "", res->note);
}

/* CSV leaves the thread count of a GPU row empty (not applicable), which CSV readers take as missing. */
static void print_csv(FILE *f, const bench_result *res)
{
    fprintf(f, "variant,params,backend,rows,cols,elem_size,batch,threads,ms,gbps,pct_memcpy,speedup,spread_pct,"
               "reps,verified,status\n");
    for (size_t i = 0; i < res->count; i++) {
        const bench_row *r = &res->rows[i];
        char thr[16];
        threads_str(r, thr, sizeof thr, "");
        fprintf(f, "%s,%s,%s,%zu,%zu,%zu,%zu,%s,%.6f,%.3f,%.3f,%.3f,%.2f,%d,%s,%d\n", r->variant, r->params,
                backend_name(r->backend), r->rows, r->cols, r->elem_size, r->batch, thr, r->ms, r->gbps,
                r->pct_memcpy, r->speedup, r->spread_pct, r->reps, r->verified ? "yes" : "no", r->status);
    }
    if (res->note[0])
        fprintf(f, "# %s\n", res->note); /* a comment line (pandas: comment='#'), after the rows */
}

static void json_num(FILE *f, const char *key, double v, const char *tail)
{
    if (v < 0 || v != v || v > 1e300) /* none, NaN or infinite: JSON has no such numbers */
        fprintf(f, "\"%s\": null%s", key, tail);
    else
        fprintf(f, "\"%s\": %.6g%s", key, v, tail);
}

static void print_json(FILE *f, const bench_result *res)
{
    fprintf(f, "{\n  \"xpose_version\": \"%s\",\n  \"note\": \"%s\",\n  \"results\": [", xpose_version(), res->note);
    for (size_t i = 0; i < res->count; i++) {
        const bench_row *r = &res->rows[i];
        fprintf(f, "%s\n    {\"variant\": \"%s\", \"params\": \"%s\", \"backend\": \"%s\", \"rows\": %zu, "
                   "\"cols\": %zu, \"elem_size\": %zu, \"batch\": %zu, ",
                i ? "," : "", r->variant, r->params, backend_name(r->backend), r->rows, r->cols, r->elem_size,
                r->batch);
        json_num(f, "threads", r->threads > 0 ? r->threads : -1, ", "); /* null for a GPU row */
        json_num(f, "ms", r->ms, ", ");
        json_num(f, "gbps", r->gbps, ", ");
        json_num(f, "pct_memcpy", r->pct_memcpy, ", ");
        json_num(f, "speedup", r->speedup, ", ");
        json_num(f, "spread_pct", r->spread_pct, ", ");
        fprintf(f, "\"reps\": %d, \"verified\": %s, \"status\": \"%s\"}", r->reps, r->verified ? "true" : "false",
                r->status == XPOSE_OK ? "ok" : xpose_strerror(r->status));
    }
    fprintf(f, "\n  ]\n}\n");
}

void report(FILE *f, out_format fmt, const bench_result *res, const bench_opts *o)
{
    (void)o;
    switch (fmt) {
    case FMT_CSV:
        print_csv(f, res);
        break;
    case FMT_JSON:
        print_json(f, res);
        break;
    case FMT_MD:
        print_text(f, res, 1);
        break;
    default:
        print_text(f, res, 0);
        break;
    }
}
