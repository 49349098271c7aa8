/* report.c: writes bench rows as they come, to stdout and to --json/--csv/--md files: table, CSV, JSON or Markdown. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* One output: a stream and its format. */
typedef struct sink {
    FILE *f;
    const char *path; /* NULL: stdout */
    out_format fmt;
} sink;

/* The table's column widths are fixed before the first row, so that each row can be printed as it is measured:
 * variant and params as wide as the longest in the registry, shape as the widest the run will have. */
struct report {
    sink s[4];
    int n, rows, header_done;
    int permute; /* --op permute: each row's shape is text, and its plan follows in a last column */
    int w_variant, w_params, w_shape;
};

static const char *backend_name(xpose_backend b) { return b == XPOSE_BACKEND_CUDA ? "cuda" : "cpu"; }

static const char *bool_word(int v) { return v ? "true" : "false"; }

static void registry_widths(report *r)
{
    r->w_variant = (int)strlen("variant");
    r->w_params = (int)strlen("params");
    xpose_variant_info v;
    for (int i = 0; i < xpose_variant_count(); i++)
        if (xpose_variant_get(i, &v) == XPOSE_OK) {
            int a = (int)strlen(v.name), b = (int)strlen(v.params);
            r->w_variant = a > r->w_variant ? a : r->w_variant;
            r->w_params = b > r->w_params ? b : r->w_params;
        }
}

report *report_open(const bench_opts *o)
{
    report *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "xpose: out of memory for the outputs\n");
        return NULL;
    }
    registry_widths(r);
    r->permute = o->op == OP_PERMUTE;
    r->s[r->n++] = (sink){stdout, NULL, o->format};
    const struct {
        const char *path;
        out_format fmt;
    } files[] = {{o->json, FMT_JSON}, {o->csv, FMT_CSV}, {o->md, FMT_MD}};
    for (int k = 0; k < 3; k++) {
        if (!files[k].path)
            continue;
        FILE *f = fopen(files[k].path, "w");
        if (!f) {
            fprintf(stderr, "xpose: cannot write '%s': %s\n", files[k].path, strerror(errno));
            for (int i = 1; i < r->n; i++)
                fclose(r->s[i].f);
            free(r);
            return NULL;
        }
        r->s[r->n++] = (sink){f, files[k].path, files[k].fmt};
    }
    return r;
}

/* The characters of a JSON string: quotes, backslashes and control characters escaped. */
static void json_chars(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    json_chars(f, s);
    fputc('"', f);
}

/* The permute bench's columns come last, so that the other benches' outputs keep their columns. */
static void header(const report *r, const sink *s)
{
    switch (s->fmt) {
    case FMT_CSV:
        fprintf(s->f,
                "variant,params,backend,rows,cols,elem_size,batch,threads,ms,gbps,pct_memcpy,speedup,"
                "spread_pct,reps,verified,status,dtype,ld_src,ld_dst,min_ms,median_ms,max_ms%s\n",
                r->permute ? ",shape,plan,plan_us" : "");
        break;
    case FMT_JSON: fprintf(s->f, "{\n  \"xpose_version\": \"%s\",\n  \"results\": [", xpose_version()); break;
    case FMT_MD:
        fprintf(s->f,
                "| variant | params | shape | elem | threads | ms | GB/s | %% memcpy | speedup | spread %% | "
                "verified |%s\n|---|---|---|--:|--:|--:|--:|--:|--:|--:|:-:|%s\n",
                r->permute ? " plan |" : "", r->permute ? "---|" : "");
        break;
    default:
        fprintf(s->f, "%-*s  %-*s  %-*s  %4s  %7s  %10s  %9s  %8s  %9s  %7s  %s%s\n", r->w_variant, "variant",
                r->w_params, "params", r->w_shape, "shape", "elem", "threads", "ms", "GB/s", "%memcpy", "speedup",
                "spread%", "verified", r->permute ? "  plan" : "");
    }
    fflush(s->f);
}

void report_header(report *r, int shape_width)
{
    r->w_shape = shape_width > (int)strlen("shape") ? shape_width : (int)strlen("shape");
    for (int k = 0; k < r->n; k++)
        header(r, &r->s[k]);
    r->header_done = 1;
}

static void shape_str(const bench_row *r, char *buf, size_t n)
{
    if (r->shape[0])
        snprintf(buf, n, "%s", r->shape);
    else if (r->family == XPOSE_FAMILY_REDUCE) /* a reduction's row holds its element count in rows */
        snprintf(buf, n, "n=%zu", r->rows);
    else if (r->batch > 1)
        snprintf(buf, n, "%zux%zu x%zu", r->rows, r->cols, r->batch);
    else
        snprintf(buf, n, "%zux%zu", r->rows, r->cols);
}

/* v, or `none` where v is negative (no reference row, or a GPU row's thread count). */
static void num_or(char *buf, size_t n, double v, const char *fmt, const char *none)
{
    if (v < 0)
        snprintf(buf, n, "%s", none);
    else
        snprintf(buf, n, fmt, v);
}

/* Table and Markdown: the same columns; a failed row is followed by why (on stderr for Markdown, whose table a
 * line of text would end). */
static void text_row(const report *rep, const sink *s, const bench_row *r)
{
    char shape[sizeof r->shape], thr[16], pct[24], spd[24];
    shape_str(r, shape, sizeof shape);
    num_or(thr, sizeof thr, r->threads > 0 ? r->threads : -1, "%.0f", "-");
    num_or(pct, sizeof pct, r->pct_memcpy, "%.1f", "-");
    num_or(spd, sizeof spd, r->speedup, "%.1f", "-");
    const char *ok = bool_word(r->status == XPOSE_OK && r->verified);
    if (s->fmt == FMT_MD)
        fprintf(s->f, "| %s | %s | %s | %zu | %s | %.4f | %.1f | %s | %s | %.1f | %s |%s%s%s\n", r->variant, r->params,
                shape, r->elem_size, thr, r->ms, r->gbps, pct, spd, r->spread_pct, ok, rep->permute ? " " : "", r->plan,
                rep->permute ? " |" : "");
    else
        fprintf(s->f, "%-*s  %-*s  %-*s  %4zu  %7s  %10.4f  %9.1f  %8s  %9s  %7.1f  %-*s%s%s\n", rep->w_variant,
                r->variant, rep->w_params, r->params, rep->w_shape, shape, r->elem_size, thr, r->ms, r->gbps, pct, spd,
                r->spread_pct, r->plan[0] ? 8 : 0, ok, r->plan[0] ? "  " : "", r->plan);
    if (r->status != XPOSE_OK)
        fprintf(s->fmt == FMT_MD ? stderr : s->f, "  %s: %s\n", r->variant, xpose_strerror(r->status));
}

/* CSV leaves what does not apply empty (a GPU row's thread count, a reduction's leading dimensions, a ratio without
 * its reference row), which CSV readers take as missing. */
/* A CSV field, quoted where it holds a comma or a quote (a plan's description does). */
static void csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_row(FILE *f, const bench_row *r, int permute)
{
    char thr[16], pct[24], spd[24], lds[24], ldd[24];
    num_or(thr, sizeof thr, r->threads > 0 ? r->threads : -1, "%.0f", "");
    num_or(pct, sizeof pct, r->pct_memcpy, "%.3f", "");
    num_or(spd, sizeof spd, r->speedup, "%.3f", "");
    num_or(lds, sizeof lds, r->ld_src ? (double)r->ld_src : -1, "%.0f", "");
    num_or(ldd, sizeof ldd, r->ld_dst ? (double)r->ld_dst : -1, "%.0f", "");
    fprintf(f, "%s,%s,%s,%zu,%zu,%zu,%zu,%s,%.6f,%.3f,%s,%s,%.2f,%d,%s,%d,%s,%s,%s,%.6f,%.6f,%.6f", r->variant,
            r->params, backend_name(r->backend), r->rows, r->cols, r->elem_size, r->batch, thr, r->ms, r->gbps, pct,
            spd, r->spread_pct, r->reps, bool_word(r->verified), r->status, r->dtype, lds, ldd, r->min_ms, r->median_ms,
            r->max_ms);
    if (permute) {
        char us[24];
        num_or(us, sizeof us, r->plan_us, "%.3f", "");
        fputc(',', f);
        csv_str(f, r->shape);
        fputc(',', f);
        csv_str(f, r->plan);
        fprintf(f, ",%s", us);
    }
    fputc('\n', f);
}

static void json_num(FILE *f, const char *key, double v, const char *tail)
{
    if (v < 0 || v != v || v > 1e300) /* none, NaN or infinite: JSON has no such numbers */
        fprintf(f, "\"%s\": null%s", key, tail);
    else
        fprintf(f, "\"%s\": %.6g%s", key, v, tail);
}

static void json_row(FILE *f, const bench_row *r, int first)
{
    fprintf(f,
            "%s\n    {\"variant\": \"%s\", \"params\": \"%s\", \"backend\": \"%s\", \"dtype\": \"%s\", "
            "\"rows\": %zu, \"cols\": %zu, \"elem_size\": %zu, \"batch\": %zu, ",
            first ? "" : ",", r->variant, r->params, backend_name(r->backend), r->dtype, r->rows, r->cols, r->elem_size,
            r->batch);
    json_num(f, "ld_src", r->ld_src ? (double)r->ld_src : -1, ", "); /* null for a reduction */
    json_num(f, "ld_dst", r->ld_dst ? (double)r->ld_dst : -1, ", ");
    json_num(f, "threads", r->threads > 0 ? r->threads : -1, ", "); /* null for a GPU row */
    json_num(f, "ms", r->ms, ", ");
    json_num(f, "min_ms", r->min_ms, ", ");
    json_num(f, "median_ms", r->median_ms, ", ");
    json_num(f, "max_ms", r->max_ms, ", ");
    json_num(f, "gbps", r->gbps, ", ");
    json_num(f, "pct_memcpy", r->pct_memcpy, ", ");
    fprintf(f, "\"reference\": ");
    if (r->reference[0])
        json_str(f, r->reference);
    else
        fputs("null", f);
    fputs(", ", f);
    json_num(f, "speedup", r->speedup, ", ");
    if (r->shape[0]) { /* permute rows */
        fprintf(f, "\"shape\": ");
        json_str(f, r->shape);
        fprintf(f, ", \"plan\": ");
        json_str(f, r->plan);
        fputs(", ", f);
        json_num(f, "plan_us", r->plan_us, ", ");
    }
    json_num(f, "spread_pct", r->spread_pct, ", ");
    fprintf(f, "\"reps\": %d, \"verified\": %s, \"status\": \"%s\"}", r->reps, bool_word(r->verified),
            r->status == XPOSE_OK ? "ok" : xpose_strerror(r->status));
}

void report_row(report *r, const bench_row *row)
{
    for (int k = 0; k < r->n; k++) {
        const sink *s = &r->s[k];
        if (s->fmt == FMT_CSV)
            csv_row(s->f, row, r->permute);
        else if (s->fmt == FMT_JSON)
            json_row(s->f, row, r->rows == 0);
        else
            text_row(r, s, row);
        fflush(s->f); /* an interrupted run keeps every row it measured */
    }
    r->rows++;
}

/* The notes joined by "; ", as one JSON string (the "note" key that scripts read). */
static void json_notes_joined(FILE *f, const bench_result *res)
{
    fputc('"', f);
    for (int i = 0; i < res->nnotes; i++) {
        fputs(i ? "; " : "", f);
        json_chars(f, res->notes[i]);
    }
    fputc('"', f);
}

static void json_context(FILE *f, const bench_result *res, const run_context *c)
{
    fprintf(f, ",\n  \"context\": {\n    \"version\": ");
    json_str(f, c->version);
    const struct {
        const char *key, *value;
    } s[] = {{"commit", c->commit},
             {"build_type", c->build_type},
             {"cuda_architectures", c->cuda_archs},
             {"date", c->date},
             {"host_cpu", c->cpu},
             {"gpu", c->gpu.name},
             {"gpu_driver", c->gpu.driver},
             {"cuda_runtime", c->gpu.runtime},
             {"command_line", c->command}};
    for (size_t k = 0; k < sizeof s / sizeof s[0]; k++) {
        fprintf(f, ",\n    \"%s\": ", s[k].key);
        json_str(f, s[k].value);
    }
    fprintf(f, ",\n    \"openmp\": %s,\n    \"seed\": %llu,\n    \"notes\": [", bool_word(c->openmp), c->seed);
    for (int i = 0; i < res->nnotes; i++) {
        fprintf(f, "%s\n      ", i ? "," : "");
        json_str(f, res->notes[i]);
    }
    fprintf(f, "%s]\n  }\n}\n", res->nnotes ? "\n    " : "");
}

/* After the rows: the notes (CSV has no place for them: stdout's go to stderr) and the JSON's closing. */
static void footer(const sink *s, const bench_result *res, const run_context *ctx)
{
    if (s->fmt == FMT_JSON) {
        fprintf(s->f, "\n  ],\n  \"note\": ");
        json_notes_joined(s->f, res);
        json_context(s->f, res, ctx);
        return;
    }
    if (s->fmt == FMT_CSV && s->path)
        return; /* stdout's notes, or the table's, say them */
    FILE *f = s->fmt == FMT_CSV ? stderr : s->f;
    for (int i = 0; i < res->nnotes; i++)
        fprintf(f, "%snote: %s\n", s->fmt == FMT_MD && i == 0 ? "\n" : "", res->notes[i]);
}

int report_close(report *r, const bench_result *res, const run_context *ctx)
{
    if (!r)
        return 0;
    if (!r->header_done)
        report_header(r, 0);
    int bad = 0;
    for (int k = 0; k < r->n; k++) {
        sink *s = &r->s[k];
        footer(s, res, ctx);
        if (s->path && (ferror(s->f) | fclose(s->f)) != 0) {
            fprintf(stderr, "xpose: cannot write '%s': %s\n", s->path, strerror(errno));
            bad = 1;
        } else if (!s->path)
            fflush(s->f);
    }
    free(r);
    return bad;
}
