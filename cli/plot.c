/* plot.c: draws bench results with gnuplot: latency per variant, or GB/s against size for a sweep. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"

static int have_gnuplot(void) { return system("command -v gnuplot >/dev/null 2>&1") == 0; }

/* Which of a row's setup differs between this run's rows, beyond variant and parameters. */
typedef struct varies {
    int shape, elem, threads;
} varies;

static varies what_varies(const bench_result *res)
{
    varies v = {0, 0, 0};
    const bench_row *a = res->count ? &res->rows[0] : NULL, *cpu = NULL; /* cpu: the first CPU row */
    for (size_t i = 0; i < res->count; i++) {
        const bench_row *b = &res->rows[i];
        v.shape |= b->rows != a->rows || b->cols != a->cols;
        v.elem |= b->elem_size != a->elem_size;
        if (b->threads > 0 && !cpu)
            cpu = b;
        v.threads |= b->threads > 0 && b->threads != cpu->threads; /* GPU rows (0) have no count to differ */
    }
    return v;
}

/* The row's name, with what varies across the run (so that, say, cpu-fast at 1 and at 2 threads are two bars, or
 * two lines of a sweep); shape_too: 0 for a sweep, whose x axis is the size. */
static void label(const bench_row *r, varies v, int shape_too, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "%s%s%s", r->variant, r->params[0] ? "/" : "", r->params);
    if (shape_too && v.shape && k < n)
        k += (size_t)snprintf(buf + k, n - k, " %zux%zu", r->rows, r->cols);
    if (v.elem && k < n)
        k += (size_t)snprintf(buf + k, n - k, " %zuB", r->elem_size);
    if (v.threads && r->threads > 0 && k < n)
        snprintf(buf + k, n - k, " %dt", r->threads);
}

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

int plot_png(const char *path, const bench_result *res, int sweep)
{
    char data[] = "/tmp/xpose-plot-XXXXXX";
    int fd = mkstemp(data);
    if (fd < 0) {
        fprintf(stderr, "xpose: --plot cannot create a temporary file\n");
        return CLI_EXIT_USAGE;
    }
    FILE *d = fdopen(fd, "w");
    FILE *g = d ? popen("gnuplot >/dev/null", "w") : NULL;
    if (!g) {
        if (d)
            fclose(d);
        unlink(data);
        fprintf(stderr, "xpose: --plot cannot start gnuplot\n");
        return CLI_EXIT_USAGE;
    }
    varies vary = what_varies(res);
    fprintf(g, "set terminal pngcairo size 1100,600 noenhanced\nset output '%s'\nset grid ytics\n", path);
    if (!sweep) {
        for (size_t i = 0; i < res->count; i++) {
            char name[96];
            label(&res->rows[i], vary, 1, name, sizeof name);
            fprintf(d, "\"%s\" %g\n", name, res->rows[i].ms);
        }
        fclose(d);
        fprintf(g, "set style fill solid 0.6\nset boxwidth 0.7\nset ylabel 'median latency (ms)'\n"
                   "set xtics rotate by -45\nset logscale y\nunset key\n"
                   "plot '%s' using 0:2:xtic(1) with boxes\n", data);
    } else {
        /* One block per variant, separated by two blank lines, so gnuplot draws one line each. */
        char names[64][96];
        int nn = 0;
        for (size_t i = 0; i < res->count; i++) {
            char name[96];
            label(&res->rows[i], vary, 0, name, sizeof name);
            int seen = 0;
            for (int k = 0; k < nn; k++)
                seen |= !strcmp(names[k], name);
            if (!seen && nn < 64)
                strcpy(names[nn++], name);
        }
        for (int k = 0; k < nn; k++) {
            for (size_t i = 0; i < res->count; i++) {
                char name[96];
                label(&res->rows[i], vary, 0, name, sizeof name);
                if (!strcmp(name, names[k]))
                    fprintf(d, "%zu %g\n", res->rows[i].rows, res->rows[i].gbps);
            }
            fprintf(d, "\n\n");
        }
        fclose(d);
        fprintf(g, "set logscale x 2\nset xlabel 'N (N x N)'\nset ylabel 'GB/s (read + write)'\nset key left top\n"
                   "plot ");
        for (int k = 0; k < nn; k++)
            fprintf(g, "%s'%s' index %d using 1:2 with linespoints title '%s'", k ? ", " : "", data, k, names[k]);
        fprintf(g, "\n");
    }
    int rc = pclose(g);
    unlink(data);
    if (rc != 0) {
        fprintf(stderr, "xpose: gnuplot failed to draw %s\n", path);
        return CLI_EXIT_USAGE;
    }
    return 0;
}
