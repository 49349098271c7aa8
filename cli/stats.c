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
 * fall on one (the ratio of two rows of a case varied by 10-15 % between runs on the CI VM). Each row gets its samples'
 * statistics (row_times); a call that fails ends its row (its status); the rounds stop after 3 once a row has 5 s
 * timed. */
void time_cpu_turns(int n, int (*const run[])(void *ctx), void *const ctx[], int reps, int flush,
                    bench_row *const row[])
{
    double *t = malloc(sizeof(double) * (size_t)reps * (size_t)(n > 0 ? n : 1)), most = 0;
    int *got = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    if (!t || !got) {
        for (int i = 0; i < n; i++)
            row[i]->status = XPOSE_ERR_NO_MEMORY;
        free(t), free(got);
        return;
    }
    for (int k = 0; k < reps && (k < 3 || most <= 5000); k++)
        for (int q = 0; q < n; q++) {
            const int i = (q + k) % n;
            if (row[i]->status != XPOSE_OK)
                continue;
            if (flush)
                cpu_flush();
            double t0 = now_ms();
            row[i]->status = run[i](ctx[i]);
            double *ti = t + (size_t)i * (size_t)reps, sum = 0;
            ti[got[i]++] = now_ms() - t0;
            for (int j = 0; j < got[i]; j++)
                sum += ti[j];
            most = sum > most ? sum : most;
        }
    for (int i = 0; i < n; i++)
        row_times(row[i], t + (size_t)i * (size_t)reps, got[i], 0);
    free(t), free(got);
}
