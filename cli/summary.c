/* summary.c: what a timed row reports of its samples: median (CPU) or mean of the middle half (GPU), and spread. */
#include <stdlib.h>
#include "cli.h"

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

/* The mean of the middle half of n samples (sorted: the interquartile mean), and the spread as time_stats gives it.
 * CUDA event times tick every 32 ns on the H200, so a median sits on a tick: a 6 us call's moves in steps of
 * 0.5 %, and two rows a few ns apart can be a whole tick apart. The jitter of the launches spreads each row's
 * samples over several ticks, so the mean of the middle half resolves a fraction of a tick, while still
 * ignoring the quarter of slowest (and fastest) launches as the median does. */
void gpu_time_stats(double *s, int n, double *mid_mean, double *spread_pct)
{
    double median;
    time_stats(s, n, &median, spread_pct);
    const int lo = n / 4, hi = n - n / 4;
    double sum = 0;
    for (int i = lo; i < hi; i++)
        sum += s[i];
    *mid_mean = hi > lo ? sum / (hi - lo) : median;
    if (*mid_mean > 0)
        *spread_pct *= median / *mid_mean;
}

void row_times(bench_row *row, double *s, int n, int mid_mean)
{
    row->reps = n;
    if (mid_mean)
        gpu_time_stats(s, n, &row->ms, &row->spread_pct);
    else
        time_stats(s, n, &row->ms, &row->spread_pct);
    if (n <= 0)
        return;
    row->min_ms = s[0]; /* sorted by the stats above */
    row->max_ms = s[n - 1];
    row->median_ms = quantile(s, n, 0.5);
}
