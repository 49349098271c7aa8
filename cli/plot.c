/* plot.c: draws bench results with gnuplot. One shape (or a --size list): GB/s as horizontal bars, grouped and
 * coloured by family, memcpy as a dashed reference line, one panel per backend. A sweep: GB/s against N, one line
 * per variant (and thread count), one panel per element size. The layout is worked out here in pixels, so that a
 * chart of 50 rows is as readable as one of 5: the PNG grows with its rows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"

static int have_gnuplot(void) { return system("command -v gnuplot >/dev/null 2>&1") == 0; }

int plot_check(const char *path)
{
    if (!have_gnuplot()) {
        fprintf(stderr, "xpose: --plot needs gnuplot, which is not installed (apt-get install gnuplot-nox)\n");
        return CLI_EXIT_USAGE;
    }
    /* The path goes into gnuplot's script inside single quotes: a quote or a control character would end it. */
    for (const char *c = path; *c; c++)
        if (*c == '\'' || (unsigned char)*c < 32) {
            fprintf(stderr, "xpose: --plot: the file name '%s' has a quote or control character; choose another\n",
                    path);
            return CLI_EXIT_USAGE;
        }
    /* gnuplot that cannot open its output draws to its standard output instead: catch that before the bench runs. */
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!*path || (slash && !slash[1]) || strlen(path) >= sizeof dir) {
        fprintf(stderr, "xpose: --plot needs a file name such as results.png, got '%s'\n", path);
        return CLI_EXIT_USAGE;
    }
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "xpose: --plot needs a file name, and '%s' is a directory\n", path);
        return CLI_EXIT_USAGE;
    }
    if (access(path, F_OK) == 0 ? access(path, W_OK) != 0 : access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "xpose: --plot cannot write '%s': %s\n", path, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    return 0;
}

/* ---- What the run holds: families, thread passes, devices ---- */

/* A row's family on the chart, in the order the bars are drawn (the bound on top, then the ladder as it climbs). */
typedef enum { G_BOUND, G_LADDER, G_PROD, G_LAB, G_PEER, G_COUNT } group;
static const char *const group_title[G_COUNT] = {"copy (the bound)", "lab ladder", "production", "production, lab",
                                                 "library peers"};
static const char *const group_rgb[G_COUNT] = {"#9a9a9a", "#4c78a8", "#e4572e", "#f4a582", "#7b4fa3"};
#define REF_RGB "#222222" /* the memcpy reference line */
#define CHAR_PX 7.0       /* about one character of the 10-point font, for margins */

static group group_of(const bench_row *r)
{
    if (r->family == XPOSE_FAMILY_COPY)
        return G_BOUND;
    if (!strcmp(r->variant, "fast") || !strcmp(r->variant, "cpu-fast"))
        return r->params[0] ? G_LAB : G_PROD; /* fast/one-walk, cpu-fast/long: production's lab settings */
    if (!strcmp(r->variant, "cpu-openblas") || !strcmp(r->variant, "cublas-geam"))
        return G_PEER;
    return G_LADDER;
}

static int timed(const bench_row *r) { return r->status == XPOSE_OK && r->ms > 0 && r->gbps > 0; }

typedef struct run_info {
    int pass[CLI_MAX_LIST], npass; /* the CPU rows' --threads passes, ascending */
    int cpu, gpu;                  /* timed rows of that backend */
} run_info;

static run_info run_of(const bench_result *res)
{
    run_info ri;
    memset(&ri, 0, sizeof ri);
    for (size_t i = 0; i < res->count; i++) {
        const bench_row *r = &res->rows[i];
        if (!timed(r))
            continue;
        if (r->backend == XPOSE_BACKEND_CUDA) {
            ri.gpu = 1;
            continue;
        }
        ri.cpu = 1;
        int k = 0;
        while (k < ri.npass && ri.pass[k] < r->pass_threads)
            k++;
        if ((k == ri.npass || ri.pass[k] != r->pass_threads) && ri.npass < CLI_MAX_LIST) {
            memmove(&ri.pass[k + 1], &ri.pass[k], (size_t)(ri.npass - k) * sizeof ri.pass[0]);
            ri.pass[k] = r->pass_threads;
            ri.npass++;
        }
    }
    return ri;
}

/* A row's name on the chart: the variant, and its thread count where that is not the one the title states (a
 * run of several --threads passes, or a one-thread variant such as cpu-naive beside threaded ones). */
static void row_label(const bench_row *r, const run_info *ri, char *buf, size_t n)
{
    int k = snprintf(buf, n, "%s%s%s", r->variant, r->params[0] ? "/" : "", r->params);
    if (r->backend == XPOSE_BACKEND_CPU && (ri->npass > 1 || r->threads != r->pass_threads) && k > 0 && (size_t)k < n)
        snprintf(buf + k, n - k, " (%d thread%s)", r->threads, r->threads == 1 ? "" : "s");
}

/* "CPU: <model>, 2 threads" or "GPU: <name>" (backend b) */
static void device_str(xpose_backend b, const run_info *ri, char *buf, size_t n)
{
    char what[512];
    if (b == XPOSE_BACKEND_CUDA) {
        gpu_describe(what, sizeof what);
        what[strcspn(what, ",")] = 0; /* the device's name, without the memory and driver details */
        snprintf(buf, n, "GPU: %s", what);
        return;
    }
    cpu_model(what, sizeof what);
    char t[96] = "";
    size_t k = 0;
    for (int i = 0; i < ri->npass && k < sizeof t; i++)
        k += (size_t)snprintf(t + k, sizeof t - k, "%s%d",
                              i == 0               ? ""
                              : i + 1 == ri->npass ? " and "
                                                   : ", ",
                              ri->pass[i]);
    snprintf(buf, n, "CPU: %s, %s thread%s%s", what, t, ri->npass == 1 && ri->pass[0] == 1 ? "" : "s",
             ri->npass > 1 ? " (a pass each)" : "");
}

static void shape_str(const bench_row *r, char *buf, size_t n)
{
    int k = snprintf(buf, n, "%zu x %zu", r->rows, r->cols);
    if (r->batch > 1 && k > 0 && (size_t)k < n)
        snprintf(buf + k, n - k, " (batch of %zu)", r->batch);
}

/* GB/s to three figures or so: 2664, 27.3, 0.75. */
static int gbps_str(double v, char *buf, size_t n)
{
    return snprintf(buf, n, "%.*f GB/s", v >= 100 ? 0 : v >= 10 ? 1 : 2, v);
}

/* ---- gnuplot output helpers ---- */

/* s as a single-quoted gnuplot string: a quote doubled, control characters dropped. */
static void gq(FILE *g, const char *s)
{
    fputc('\'', g);
    for (; *s; s++)
        if (*s == '\'')
            fputs("''", g);
        else if ((unsigned char)*s >= 32)
            fputc(*s, g);
    fputc('\'', g);
}

/* A text label at pixel (x, y) from the top left of a W x H image. */
static void label_px(FILE *g, const char *text, double x, double y, int w, int h, const char *how)
{
    fprintf(g, "set label ");
    gq(g, text);
    fprintf(g, " at screen %.5f,%.5f %s\n", x / w, 1.0 - y / h, how);
}

/* The margins of the next plot, as a pixel box (left, top, right, bottom) of a W x H image. */
static void box_px(FILE *g, double l, double t, double r, double b, int w, int h)
{
    fprintf(g,
            "set lmargin at screen %.5f\nset rmargin at screen %.5f\nset tmargin at screen %.5f\n"
            "set bmargin at screen %.5f\n",
            l / w, r / w, 1.0 - t / h, 1.0 - b / h);
}

/* The run's note (how rows were timed, what was skipped), broken into lines of at most `width` characters, drawn
 * from pixel row y down; returns the pixels used. g NULL: only the pixels. */
#define NOTE_PX 15
static double note_lines(FILE *g, const char *note, int width, double y, int w, int h)
{
    double used = 0;
    const char *s = note;
    while (*s) {
        size_t len = strlen(s), cut = len;
        if ((int)len > width) {
            cut = (size_t)width;
            while (cut > 0 && s[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = (size_t)width;
        }
        if (g) {
            char line[512];
            snprintf(line, sizeof line, "%.*s", (int)cut, s);
            label_px(g, line, 14, y + used, w, h, "left font ',9' tc rgb '#555555'");
        }
        used += NOTE_PX;
        s += cut;
        while (*s == ' ')
            s++;
    }
    return used;
}

/* The footnote of a chart: the variants that were not timed (each once), then the run's note. */
static void footnote(const bench_result *res, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (size_t i = 0; i < res->count && k < n; i++) {
        const bench_row *r = &res->rows[i];
        int seen = timed(r);
        for (size_t j = 0; j < i && !seen; j++)
            seen = !timed(&res->rows[j]) && !strcmp(res->rows[j].variant, r->variant) &&
                   !strcmp(res->rows[j].params, r->params);
        if (seen)
            continue;
        k += (size_t)snprintf(buf + k, n - k, "%s%s%s%s (%s)", k ? ", " : "not timed: ", r->variant,
                              r->params[0] ? "/" : "", r->params,
                              r->status == XPOSE_OK ? "no time" : xpose_strerror(r->status));
    }
    for (int i = 0; i < res->nnotes && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? ". " : "", res->notes[i]);
}

/* ---- One shape, or a few: horizontal bars ---- */

typedef struct bar {
    const bench_row *r;
    int sec, grp, name, pass; /* sort keys: section (shape), family, the variant's first row, thread pass */
    size_t at;
} bar;

static int bar_cmp(const void *pa, const void *pb)
{
    const bar *a = pa, *b = pb;
    int d = a->sec != b->sec     ? a->sec - b->sec
            : a->grp != b->grp   ? a->grp - b->grp
            : a->name != b->name ? a->name - b->name
                                 : a->pass - b->pass;
    return d ? d : (a->at > b->at) - (a->at < b->at);
}

static int same_section(const bench_row *a, const bench_row *b)
{
    return a->rows == b->rows && a->cols == b->cols && a->elem_size == b->elem_size && a->batch == b->batch;
}

#define BAR_W 1200 /* image width */
#define ROW_PX 21  /* one bar's row */
#define TITLE_PX 70
#define PANEL_HEAD_PX 28
#define PANEL_AXIS_PX 52
#define KEY_PX 50

/* One panel's bars: rows of one backend, sorted, with a heading slot (bar NULL) before each section when the run
 * has several. */
typedef struct slot {
    const bar *b;
    int sec;
} slot;

static int draw_bars(FILE *g, const char *path, const bench_result *res)
{
    run_info ri = run_of(res);
    size_t n = 0;
    bar *bars = calloc(res->count + 1, sizeof *bars);
    slot *slots = calloc(2 * res->count + 2, sizeof *slots);
    if (!bars || !slots) {
        free(bars), free(slots);
        return -1;
    }
    /* Sections: the shapes, in the order they ran. */
    const bench_row *sec_row[64];
    int nsec = 0;
    size_t label_max = 10;
    for (size_t i = 0; i < res->count; i++) {
        const bench_row *r = &res->rows[i];
        if (!timed(r))
            continue;
        bar *b = &bars[n++];
        b->r = r, b->at = i, b->grp = group_of(r), b->pass = r->pass_threads;
        b->sec = 0;
        while (b->sec < nsec && !same_section(sec_row[b->sec], r))
            b->sec++;
        if (b->sec == nsec && nsec < 64)
            sec_row[nsec++] = r;
        for (size_t j = 0; j <= i; j++)
            if (!strcmp(res->rows[j].variant, r->variant) && !strcmp(res->rows[j].params, r->params)) {
                b->name = (int)j;
                break;
            }
        char name[96];
        row_label(r, &ri, name, sizeof name);
        if (strlen(name) > label_max)
            label_max = strlen(name);
    }
    qsort(bars, n, sizeof *bars, bar_cmp);

    /* Panels: the GPU's rows, then the CPU's, each with its own GB/s axis (they differ a hundredfold). */
    xpose_backend pb[2];
    int np = 0, per[2] = {0, 0};
    if (ri.gpu)
        pb[np++] = XPOSE_BACKEND_CUDA;
    if (ri.cpu)
        pb[np++] = XPOSE_BACKEND_CPU;
    for (int p = 0; p < np; p++)
        for (size_t i = 0, last = (size_t)-1; i < n; i++)
            if (bars[i].r->backend == pb[p]) {
                per[p] += 1 + (nsec > 1 && bars[i].sec != (int)last);
                last = (size_t)bars[i].sec;
            }
    char foot[2048];
    footnote(res, foot, sizeof foot);
    const int note_width = (int)((BAR_W - 28) / (CHAR_PX * 0.97));
    double h = TITLE_PX + KEY_PX + 10 + note_lines(NULL, foot, note_width, 0, 1, 1);
    for (int p = 0; p < np; p++)
        h += PANEL_HEAD_PX + per[p] * ROW_PX + PANEL_AXIS_PX;
    if (np == 0)
        h += 200;
    const int H = (int)h, W = BAR_W;
    const double left = 24 + CHAR_PX * (double)label_max, right = W - 24;

    fprintf(g,
            "set terminal pngcairo size %d,%d noenhanced font ',10'\nset output '%s'\nset multiplot\n"
            "set style textbox opaque noborder margins 1,0\n",
            W, H, path);
    /* Title: the shape and element size where the run has one, and what it ran on. */
    char title[512], sub[512], shape[96];
    int one_shape = 1, one_elem = 1;
    for (int s = 1; s < nsec; s++) {
        one_shape &= sec_row[s]->rows == sec_row[0]->rows && sec_row[s]->cols == sec_row[0]->cols &&
                     sec_row[s]->batch == sec_row[0]->batch;
        one_elem &= sec_row[s]->elem_size == sec_row[0]->elem_size;
    }
    shape[0] = 0;
    if (nsec)
        shape_str(sec_row[0], shape, sizeof shape);
    if (nsec == 0)
        snprintf(title, sizeof title, "xpose bench: no row was timed");
    else if (nsec == 1)
        snprintf(title, sizeof title, "xpose bench: transpose of %s, %zu-byte elements", shape, sec_row[0]->elem_size);
    else if (one_shape)
        snprintf(title, sizeof title, "xpose bench: transpose of %s at %d element sizes", shape, nsec);
    else if (one_elem)
        snprintf(title, sizeof title, "xpose bench: transpose at %d shapes, %zu-byte elements", nsec,
                 sec_row[0]->elem_size);
    else
        snprintf(title, sizeof title, "xpose bench: transpose at %d shapes and element sizes", nsec);
    label_px(g, title, W / 2.0, 22, W, H, "center font ',15'");
    snprintf(sub, sizeof sub,
             "GB/s: bytes read + written per second, higher is better; each bar labelled with its "
             "GB/s and its %% of memcpy at the same shape and threads");
    label_px(g, sub, W / 2.0, 48, W, H, "center font ',10' tc rgb '#444444'");

    /* Under the panels: the key, then the footnote. */
    double y = TITLE_PX, key_y = TITLE_PX;
    for (int p = 0; p < np; p++)
        key_y += PANEL_HEAD_PX + per[p] * ROW_PX + PANEL_AXIS_PX;
    fprintf(g, "set key at screen 0.5,%.5f center center horizontal reverse Left samplen 2.5 width 1 maxcols 6\n",
            1.0 - (key_y + KEY_PX / 2.0) / H);
    note_lines(g, foot, note_width, key_y + KEY_PX + 4, W, H);
    for (int p = 0; p < np; p++) {
        /* The slots of this panel, top to bottom. */
        int ns = 0;
        double maxv = 0;
        for (size_t i = 0; i < n; i++) {
            if (bars[i].r->backend != pb[p])
                continue;
            if (nsec > 1 && (ns == 0 || slots[ns - 1].sec != bars[i].sec))
                slots[ns++] = (slot){NULL, bars[i].sec};
            slots[ns++] = (slot){&bars[i], bars[i].sec};
            if (bars[i].r->gbps > maxv)
                maxv = bars[i].r->gbps;
        }
        const double top = y + PANEL_HEAD_PX, bottom = top + ns * ROW_PX;
        const double pw = right - left, label_px_w = CHAR_PX * 20;
        const double xmax = maxv * pw / (pw - label_px_w);
        char dev[640];
        device_str(pb[p], &ri, dev, sizeof dev);
        label_px(g, dev, left, y + PANEL_HEAD_PX / 2.0 + 2, W, H, "left font ',11'");
        box_px(g, left, top, right, bottom, W, H);
        fprintf(g,
                "set xrange [0:%g]\nset yrange [%g:0.5]\nset grid xtics lc rgb '#dddddd'\nset xtics nomirror out\n"
                "set mxtics\nset ytics scale 0 nomirror (",
                xmax, 0.5 - ns);
        for (int s = 0, first = 1; s < ns; s++) {
            if (!slots[s].b)
                continue;
            char name[96];
            row_label(slots[s].b->r, &ri, name, sizeof name);
            fprintf(g, "%s", first ? "" : ", ");
            gq(g, name);
            fprintf(g, " %d", -s);
            first = 0;
        }
        fprintf(g, ")\nset xlabel 'GB/s (read + write)' offset 0,0.3\nunset ylabel\nset border 3 lc rgb '#666666'\n");
        for (int s = 0; s < ns; s++) {
            if (!slots[s].b) { /* a section's heading */
                const bench_row *r = sec_row[slots[s].sec];
                char head[160];
                shape_str(r, shape, sizeof shape);
                if (one_shape)
                    snprintf(head, sizeof head, "%zu-byte elements", r->elem_size);
                else if (one_elem)
                    snprintf(head, sizeof head, "%s", shape);
                else
                    snprintf(head, sizeof head, "%s, %zu-byte elements", shape, r->elem_size);
                fprintf(g, "set label ");
                gq(g, head);
                fprintf(g, " at graph 0, first %d offset 0.6,0 left font ',10' tc rgb '#333333'\n", -s);
                continue;
            }
            const bench_row *r = slots[s].b->r;
            fprintf(g, "set object rect from 0,%g to %g,%g fc rgb '%s' fs solid 0.9 noborder behind\n", -s - 0.36,
                    r->gbps, -s + 0.36, group_rgb[slots[s].b->grp]);
            char v[96];
            int k = gbps_str(r->gbps, v, sizeof v);
            if (r->pct_memcpy >= 0 && r->family != XPOSE_FAMILY_COPY)
                snprintf(v + k, sizeof v - (size_t)k, "   %.0f%%", r->pct_memcpy);
            if (!r->verified)
                snprintf(v + strlen(v), sizeof v - strlen(v), "   WRONG RESULT");
            fprintf(g, "set label ");
            gq(g, v);
            fprintf(g, " at first %g,%d offset 0.5,0 left font ',9' tc rgb '%s' boxed front\n", r->gbps, -s,
                    r->verified ? "#333333" : "#cc0000");
        }
        /* memcpy: a dashed line across each section at its fastest copy row (with several --threads passes, the
         * best pass's: the bound of the machine; each bar's % still compares it with its own pass). */
        for (int s = 0; s < ns; s++) {
            if (!slots[s].b || slots[s].b->grp != G_BOUND)
                continue;
            int a = s, z = s, best = 1;
            while (a > 0 && slots[a - 1].b && slots[a - 1].sec == slots[s].sec)
                a--;
            while (z + 1 < ns && slots[z + 1].sec == slots[s].sec)
                z++;
            for (int t = a; t <= z; t++)
                best &= slots[t].b->grp != G_BOUND || slots[t].b->r->gbps < slots[s].b->r->gbps ||
                        (slots[t].b->r->gbps == slots[s].b->r->gbps && t >= s);
            if (best)
                fprintf(g, "set arrow from %g,%g to %g,%g nohead dt (8,5) lw 2 lc rgb '%s' back\n", slots[s].b->r->gbps,
                        -a + 0.48, slots[s].b->r->gbps, -z - 0.48, REF_RGB);
        }
        fprintf(g, "plot NaN notitle");
        if (p == 0) { /* the key, placed under the last panel, lists every family in the run */
            int have[G_COUNT] = {0};
            for (size_t i = 0; i < n; i++)
                have[bars[i].grp] = 1;
            for (int c = 0; c < G_COUNT; c++)
                if (have[c]) {
                    fprintf(g, ", keyentry with boxes fc rgb '%s' fs solid 0.9 noborder title ", group_rgb[c]);
                    gq(g, group_title[c]);
                }
            if (have[G_BOUND])
                fprintf(g, ", keyentry with lines dt (8,5) lw 2 lc rgb '%s' title 'fastest memcpy'", REF_RGB);
        }
        fprintf(g, "\nunset label\nunset object\nunset arrow\nunset key\n");
        y = bottom + PANEL_AXIS_PX;
    }
    if (np == 0) /* nothing to draw but the title and the footnote, which a plot puts on the page */
        fprintf(g, "unset border\nunset tics\nunset key\nset xrange [0:1]\nset yrange [0:1]\nplot NaN notitle\n");
    fprintf(g, "unset multiplot\n");
    free(bars), free(slots);
    return 0;
}

/* ---- A sweep: GB/s against N ---- */

#define SW_W 1200
#define SW_TITLE_PX 84
#define SW_CELL_H 400
/* Line colours and markers, a pair per line; the copy rows' lines are black and greys, dashed. */
static const char *const line_rgb[12] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                                         "#e377c2", "#17becf", "#393b79", "#637939", "#ad494a", "#008080"};
static const int line_pt[12] = {7, 5, 9, 11, 13, 15, 6, 4, 8, 10, 12, 14};
static const char *const ref_rgb[3] = {"#000000", "#5a5a5a", "#8f8f8f"};
static const int ref_pt[3] = {6, 4, 8};

typedef struct series {
    char name[96];
    xpose_backend be;
    int grp, first, threads; /* the legend's order: family, the variant's first row, thread count */
} series;

typedef struct panel {
    xpose_backend be;
    size_t es, batch;
} panel;

static int series_cmp(const void *pa, const void *pb)
{
    const series *a = pa, *b = pb;
    return a->grp != b->grp ? a->grp - b->grp : a->first != b->first ? a->first - b->first : a->threads - b->threads;
}

static int find_series(const series *s, int n, const char *name, xpose_backend be)
{
    for (int k = 0; k < n; k++)
        if (s[k].be == be && !strcmp(s[k].name, name))
            return k;
    return -1;
}

static int find_panel(const panel *p, int n, const bench_row *r)
{
    for (int k = 0; k < n; k++)
        if (p[k].be == r->backend && p[k].es == r->elem_size && p[k].batch == r->batch)
            return k;
    return -1;
}

static int draw_sweep(FILE *g, const char *path, const bench_result *res)
{
    run_info ri = run_of(res);
    series ser[64];
    panel pan[16];
    size_t nval[32];
    int nser = 0, npan = 0, nn = 0;
    size_t name_max = 8;
    for (size_t i = 0; i < res->count; i++) {
        const bench_row *r = &res->rows[i];
        if (!timed(r))
            continue;
        char name[96];
        row_label(r, &ri, name, sizeof name);
        if (find_series(ser, nser, name, r->backend) < 0 && nser < 64) {
            series *s = &ser[nser++];
            snprintf(s->name, sizeof s->name, "%s", name);
            s->be = r->backend, s->grp = group_of(r), s->threads = r->threads, s->first = (int)i;
            for (size_t j = 0; j < i; j++)
                if (!strcmp(res->rows[j].variant, r->variant) && !strcmp(res->rows[j].params, r->params)) {
                    s->first = (int)j;
                    break;
                }
            if (strlen(name) > name_max)
                name_max = strlen(name);
        }
        if (find_panel(pan, npan, r) < 0 && npan < 16)
            pan[npan++] = (panel){r->backend, r->elem_size, r->batch};
        int k = 0;
        while (k < nn && nval[k] < r->rows)
            k++;
        if ((k == nn || nval[k] != r->rows) && nn < 32) {
            memmove(&nval[k + 1], &nval[k], (size_t)(nn - k) * sizeof nval[0]);
            nval[k] = r->rows;
            nn++;
        }
    }
    qsort(ser, (size_t)nser, sizeof ser[0], series_cmp);

    /* Layout: one panel fills the width, its key on the right; several sit two to a row, the key in the empty
     * cell or, where none is, in a strip underneath. */
    const int W = SW_W, cols = npan > 1 ? 2 : 1, rows = (npan + cols - 1) / cols;
    const double key_w = 70 + CHAR_PX * (double)name_max;
    const int key_cols = (int)((W - 40) / key_w) > 0 ? (int)((W - 40) / key_w) : 1;
    const int strip = npan > 1 && npan % 2 == 0;
    const double strip_px = strip ? 24 + 18.0 * ((nser + key_cols - 1) / key_cols) : 0;
    const double cell_w = (double)W / cols, cell_h = npan == 1 ? 560 : SW_CELL_H;
    char foot[2048];
    footnote(res, foot, sizeof foot);
    const int note_width = (int)((W - 28) / (CHAR_PX * 0.97));
    const double body = SW_TITLE_PX + rows * cell_h + strip_px;
    const int H = (int)(body + 8 + note_lines(NULL, foot, note_width, 0, 1, 1));

    /* The data: one block per panel and line that has points there. */
    unsigned char has[16][64];
    memset(has, 0, sizeof has);
    for (int p = 0; p < npan; p++)
        for (int k = 0; k < nser; k++) {
            fprintf(g, "$p%ds%d << EOD\n", p, k);
            for (size_t i = 0; i < res->count; i++) {
                const bench_row *r = &res->rows[i];
                char name[96];
                if (!timed(r) || find_panel(pan, npan, r) != p)
                    continue;
                row_label(r, &ri, name, sizeof name);
                if (find_series(ser, nser, name, r->backend) == k) {
                    fprintf(g, "%zu %g\n", r->rows, r->gbps);
                    has[p][k] = 1;
                }
            }
            fprintf(g, "EOD\n");
        }
    fprintf(g, "set terminal pngcairo size %d,%d noenhanced font ',10'\nset output '%s'\nset multiplot\n", W, H, path);
    for (int k = 0, c = 0, l = 0; k < nser; k++) {
        if (ser[k].grp == G_BOUND) {
            fprintf(g, "set style line %d lc rgb '%s' lw 2.5 dt (8,5) pt %d ps 1.3\n", k + 1, ref_rgb[c % 3],
                    ref_pt[c % 3]);
            c++;
        } else {
            fprintf(g, "set style line %d lc rgb '%s' lw 2 dt solid pt %d ps 1.2\n", k + 1, line_rgb[l % 12],
                    line_pt[(l + l / 12) % 12]);
            l++;
        }
    }
    /* Titles: what ran, on what, and how to read it. */
    char title[256], dev[1400] = "", d[640];
    int k0 = snprintf(title, sizeof title, "xpose bench sweep: GB/s against N, N x N transpose");
    if (npan == 1 && k0 > 0)
        snprintf(title + k0, sizeof title - (size_t)k0, ", %zu-byte elements%s", pan[0].es,
                 pan[0].batch > 1 ? " (batched)" : "");
    if (ri.gpu)
        device_str(XPOSE_BACKEND_CUDA, &ri, dev, sizeof dev);
    if (ri.cpu) {
        device_str(XPOSE_BACKEND_CPU, &ri, d, sizeof d);
        snprintf(dev + strlen(dev), sizeof dev - strlen(dev), "%s%s", ri.gpu ? ";   " : "", d);
    }
    label_px(g, title, W / 2.0, 22, W, H, "center font ',15'");
    label_px(g, dev, W / 2.0, 46, W, H, "center font ',11'");
    label_px(g, "GB/s: bytes read + written per second, higher is better; dashed: memcpy, the copy bound", W / 2.0, 66,
             W, H, "center font ',10' tc rgb '#444444'");
    note_lines(g, foot, note_width, body + 8, W, H);

    fprintf(g, "set logscale x 2\nset xrange [%g:%g]\nset xtics nomirror out (", nn ? nval[0] / 1.25 : 1,
            nn ? nval[nn - 1] * 1.25 : 2);
    for (int k = 0; k < nn; k++)
        fprintf(g, "%s'%zu' %zu", k ? ", " : "", nval[k], nval[k]);
    fprintf(g, ")\nset yrange [0:*]\nset offsets 0,0,graph 0.06,0\nset ytics nomirror\nset mytics 2\n"
               "set grid xtics ytics lc rgb '#dddddd'\nset border 3 lc rgb '#666666'\nunset key\n"
               "set xlabel 'N (an N x N matrix)' offset 0,0.3\nset ylabel 'GB/s (read + write)' offset 1,0\n");
    for (int p = 0; p < npan; p++) {
        const double x0 = (p % cols) * cell_w, y0 = SW_TITLE_PX + (p / cols) * cell_h;
        const double right = npan == 1 ? W - key_w - 30 : x0 + cell_w - 24;
        box_px(g, x0 + 78, y0 + (npan == 1 ? 14 : 34), right, y0 + cell_h - 52, W, H);
        if (npan > 1) {
            char head[96];
            snprintf(head, sizeof head, "%s%zu-byte elements%s",
                     ri.gpu && ri.cpu ? (pan[p].be == XPOSE_BACKEND_CUDA ? "GPU, " : "CPU, ") : "", pan[p].es,
                     pan[p].batch > 1 ? ", batched" : "");
            fprintf(g, "set title ");
            gq(g, head);
            fprintf(g, " font ',11' offset 0,-0.4\n");
        }
        fprintf(g, "plot NaN notitle");
        for (int k = 0; k < nser; k++)
            if (has[p][k])
                fprintf(g, ", $p%ds%d using 1:2 with linespoints ls %d notitle", p, k, k + 1);
        fprintf(g, "\nunset label\n");
    }
    /* The key, a plot of its own beside or under the panels, so that it covers no line: every line of the run,
     * whatever panels it is in. */
    if (npan == 0) /* nothing timed: the plot only puts the title and the footnote on the page */
        box_px(g, 10, 10, W - 10, H - 10, W, H);
    else if (npan == 1)
        box_px(g, W - key_w - 10, SW_TITLE_PX + 14, W - 10, SW_TITLE_PX + cell_h - 52, W, H);
    else if (!strip)
        box_px(g, cell_w + 40, SW_TITLE_PX + (rows - 1) * cell_h + 34, W - 24, body - 52, W, H);
    else
        box_px(g, 20, body - strip_px, W - 20, body, W, H);
    fprintf(g,
            "unset title\nunset border\nunset tics\nunset xlabel\nunset ylabel\nunset grid\nunset logscale\n"
            "set xrange [0:1]\nset yrange [0:1]\nset key inside %s %s reverse Left samplen 3 spacing 1.3 "
            "maxcols %d\nplot NaN notitle",
            npan == 1 ? "left top" : "center center", strip ? "horizontal" : "vertical", strip ? key_cols : 8);
    for (int k = 0; k < nser; k++) {
        fprintf(g, ", keyentry with linespoints ls %d title ", k + 1);
        gq(g, ser[k].name);
    }
    fprintf(g, "\nunset multiplot\n");
    return 0;
}

int plot_png(const char *path, const bench_result *res, int sweep)
{
    FILE *g = popen("gnuplot >/dev/null", "w");
    if (!g) {
        fprintf(stderr, "xpose: --plot cannot start gnuplot\n");
        return CLI_EXIT_USAGE;
    }
    int st = sweep ? draw_sweep(g, path, res) : draw_bars(g, path, res);
    int rc = pclose(g);
    if (st != 0 || rc != 0) {
        fprintf(stderr, "xpose: gnuplot failed to draw %s\n", path);
        return CLI_EXIT_USAGE;
    }
    return 0;
}
