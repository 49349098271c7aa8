/* stats.c: wall clock and the median/spread summary every timed row reports. */
#include <stdlib.h>
#include <time.h>
#include "cli.h"

double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(const double *sorted, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)pos;
    int hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

void time_stats(double *s, int n, double *median, double *spread_pct)
{
    if (n <= 0) {
        *median = 0;
        *spread_pct = 0;
        return;
    }
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    *median = quantile(s, n, 0.5);
    *spread_pct = *median > 0 ? 100.0 * (quantile(s, n, 0.9) - quantile(s, n, 0.1)) / *median : 0;
}

/* Times up to `reps` calls of run(ctx) into row: median ms, spread and the count made. Before each call, outside
 * the timed span, the caches are flushed when `flush` (cpu_flush.c). A call that fails ends it (row->status); a
 * slow row stops after 3 calls once 5 s have been timed (flushes not counted). */
void time_cpu_runs(int (*run)(void *ctx), void *ctx, int reps, int flush, bench_row *row)
{
    double *t = malloc(sizeof(double) * (size_t)reps), timed = 0;
    if (!t) {
        row->status = XPOSE_ERR_NO_MEMORY;
        return;
    }
    int k = 0;
    while (k < reps && row->status == XPOSE_OK && (k < 3 || timed <= 5000)) {
        if (flush)
            cpu_flush();
        double t0 = now_ms();
        row->status = run(ctx);
        t[k] = now_ms() - t0;
        timed += t[k++];
    }
    row->reps = k;
    time_stats(t, k, &row->ms, &row->spread_pct);
    free(t);
}
