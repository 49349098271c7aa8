/* stats.c: wall clock, and the timing loop of CPU rows (summary.c sums their samples up). */
#include <stdlib.h>
#include <time.h>
#include "cli.h"

double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Times up to `reps` calls of run(ctx) into row (row_times: median ms, spread, the count made). Before each call,
 * outside the timed span, prep(ctx) runs where given (an in-place row's re-fill), then the caches are flushed when
 * `flush` (cpu_flush.c). A call that fails ends it (row->status); a slow row stops after 3 calls once 5 s have been
 * timed (re-fills and flushes not counted). */
void time_cpu_runs_prep(void (*prep)(void *ctx), int (*run)(void *ctx), void *ctx, int reps, int flush, bench_row *row)
{
    double *t = malloc(sizeof(double) * (size_t)reps), timed = 0;
    if (!t) {
        row->status = XPOSE_ERR_NO_MEMORY;
        return;
    }
    int k = 0;
    while (k < reps && row->status == XPOSE_OK && (k < 3 || timed <= 5000)) {
        if (prep)
            prep(ctx);
        if (flush)
            cpu_flush();
        double t0 = now_ms();
        row->status = run(ctx);
        t[k] = now_ms() - t0;
        timed += t[k++];
    }
    row_times(row, t, k, 0);
    free(t);
}

void time_cpu_runs(int (*run)(void *ctx), void *ctx, int reps, int flush, bench_row *row)
{
    time_cpu_runs_prep(NULL, run, ctx, reps, flush, row);
}

/* Times n rows in turn: round k runs each call once (a cache flush before each when `flush`), starting from call k mod
 * n, so that a shared machine's slow spells fall on every row alike where timing the rows one after another let them
 * fall on one (the ratio of two rows of a case varied by 10-15 % between runs on the CI VM). Row i takes up to
 * reps[i] calls, and stops after 3 once it has 5 s timed, as in time_cpu_runs_prep; a call that fails ends its row
 * (its status). Each row gets its samples' statistics (row_times). */
void time_cpu_turns(int n, int (*const run[])(void *ctx), void *const ctx[], const int reps[], int flush,
                    bench_row *const row[])
{
    int most = 0;
    for (int i = 0; i < n; i++)
        most = reps[i] > most ? reps[i] : most;
    double *t = malloc(sizeof(double) * (size_t)(most > 0 ? most : 1) * (size_t)(n > 0 ? n : 1)),
           *timed = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
    int *got = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    if (!t || !timed || !got) {
        for (int i = 0; i < n; i++)
            row[i]->status = XPOSE_ERR_NO_MEMORY;
        free(t), free(timed), free(got);
        return;
    }
    for (int k = 0; k < most; k++)
        for (int q = 0; q < n; q++) {
            const int i = (q + k) % n;
            if (row[i]->status != XPOSE_OK || got[i] >= reps[i] || (got[i] >= 3 && timed[i] > 5000))
                continue;
            if (flush)
                cpu_flush();
            double t0 = now_ms();
            row[i]->status = run[i](ctx[i]);
            const double ms = now_ms() - t0;
            t[(size_t)i * (size_t)most + (size_t)got[i]++] = ms;
            timed[i] += ms;
        }
    for (int i = 0; i < n; i++)
        row_times(row[i], t + (size_t)i * (size_t)most, got[i], 0);
    free(t), free(timed), free(got);
}
