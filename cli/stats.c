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
