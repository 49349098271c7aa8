/* ncu_csv.c: reading `ncu --csv --page raw` output (see ncu_csv.h); plain C, no CUDA, unit-tested on a sample. */
#include "ncu_csv.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ncu_metric_names[NCU_NMETRICS] = {
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
};

/* The raw page has a column per device attribute and launch statistic besides the metrics, sorted by name: several
 * hundred, with the smsp__ metrics last. */
#define MAX_FIELDS 2048
#define FIELD_LEN 192

typedef struct csv_line {
    int n;
    char f[MAX_FIELDS][FIELD_LEN];
} csv_line;

/* Splits one line (up to end, exclusive) into fields: quoted fields may hold commas and "" for a quote. */
static void split(const char *p, const char *end, csv_line *out)
{
    out->n = 0;
    while (p <= end && out->n < MAX_FIELDS) {
        char *dst = out->f[out->n++];
        size_t len = 0;
        if (p < end && *p == '"') {
            p++;
            while (p < end) {
                if (*p == '"' && p + 1 < end && p[1] == '"')
                    p++;
                else if (*p == '"') {
                    p++;
                    break;
                }
                if (len + 1 < FIELD_LEN)
                    dst[len++] = *p;
                p++;
            }
        }
        while (p < end && *p != ',') { /* unquoted text, or stray text after a closing quote */
            if (len + 1 < FIELD_LEN)
                dst[len++] = *p;
            p++;
        }
        while (len && (dst[len - 1] == '\r' || dst[len - 1] == ' '))
            len--;
        dst[len] = 0;
        p++; /* past the comma (or the end) */
    }
}

static const char *line_end(const char *p)
{
    const char *e = strchr(p, '\n');
    return e ? e : p + strlen(p);
}

/* A value as ncu prints it: "33,554,432", "1.07", "n/a". 0 and the number, or -1. */
static int number(const char *s, double *out)
{
    char buf[FIELD_LEN];
    size_t len = 0;
    for (; *s && len + 1 < sizeof buf; s++)
        if (*s != ',' && *s != ' ')
            buf[len++] = *s;
    buf[len] = 0;
    char *end;
    double v = strtod(buf, &end);
    if (!len || *end)
        return -1;
    *out = v;
    return 0;
}

/* The factor a unit's prefix stands for: "Kbyte" 1e3, "Mbyte" 1e6, ... (ncu's prefixes are decimal); 1 without. */
static double unit_scale(const char *u)
{
    if (!u[0] || !isalpha((unsigned char)u[1]) || !islower((unsigned char)u[1]))
        return 1;
    switch (u[0]) {
    case 'K': return 1e3;
    case 'M': return 1e6;
    case 'G': return 1e9;
    case 'T': return 1e12;
    default: return 1;
    }
}

int ncu_parse_csv(const char *text, ncu_result *out, char *why, size_t wl)
{
    static csv_line head, units, row; /* 384 KiB each: off the stack */
    memset(out, 0, sizeof *out);
    const char *p = text;
    int found = 0;
    while (*p) {
        const char *e = line_end(p);
        if (!strncmp(p, "\"ID\",\"Process ID\"", 17)) {
            split(p, e, &head);
            found = 1;
            p = *e ? e + 1 : e;
            break;
        }
        p = *e ? e + 1 : e;
    }
    if (!found) {
        snprintf(why, wl, "no CSV header (\"ID\",\"Process ID\",...) in ncu's output: no kernel profiled?");
        return -1;
    }
    if (head.n == MAX_FIELDS) {
        snprintf(why, wl, "ncu's CSV has more than %d columns", MAX_FIELDS - 1);
        return -1;
    }
    units.n = 0;
    found = 0;
    while (*p) {
        const char *e = line_end(p);
        split(p, e, &row);
        p = *e ? e + 1 : e;
        if (row.n >= head.n && row.f[0][0] == 0 && !units.n) {
            units = row; /* the unit line: no ID */
            continue;
        }
        double id;
        if (row.n >= head.n && number(row.f[0], &id) == 0) {
            found = 1;
            break;
        }
    }
    if (!found) {
        snprintf(why, wl, "ncu's CSV has a header but no kernel row: no launch matched?");
        return -1;
    }
    for (int c = 0; c < head.n; c++)
        if (!strcmp(head.f[c], "Kernel Name"))
            snprintf(out->kernel, sizeof out->kernel, "%s", row.f[c]);
    for (int m = 0; m < NCU_NMETRICS; m++) {
        int col = -1;
        for (int c = 0; c < head.n && col < 0; c++)
            if (!strcmp(head.f[c], ncu_metric_names[m]))
                col = c;
        if (col < 0) {
            snprintf(why, wl, "metric %s not in ncu's CSV", ncu_metric_names[m]);
            return -1;
        }
        if (number(row.f[col], &out->v[m])) {
            snprintf(why, wl, "metric %s: '%s' is not a number", ncu_metric_names[m], row.f[col]);
            return -1;
        }
        if (units.n > col)
            out->v[m] *= unit_scale(units.f[col]);
    }
    return 0;
}

int ncu_error_line(const char *text, char *buf, size_t n)
{
    const char *p = text, *last = NULL, *last_end = NULL;
    while (*p) {
        const char *e = line_end(p);
        const char *q = p;
        while (q < e && isspace((unsigned char)*q))
            q++;
        if (q < e) {
            int is_err = 0;
            for (const char *r = p; r + 9 <= e && !is_err; r++)
                is_err = !strncmp(r, "==ERROR==", 9);
            last = p, last_end = e;
            if (is_err)
                break;
        }
        p = *e ? e + 1 : e;
    }
    if (!last)
        return 0;
    size_t len = (size_t)(last_end - last);
    while (len && (last[len - 1] == '\r' || last[len - 1] == ' '))
        len--;
    if (len >= n)
        len = n - 1;
    memcpy(buf, last, len);
    buf[len] = 0;
    return 1;
}
