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
    cpu_turn t = {prep, run, ctx, reps, row};
    time_cpu_turns(&t, 1, flush);
}

void time_cpu_runs(int (*run)(void *ctx), void *ctx, int reps, int flush, bench_row *row)
{
    time_cpu_runs_prep(NULL, run, ctx, reps, flush, row);
}

/* Times n rows in turn: round k runs each row's call once, starting from row k mod n, so that a shared machine's slow
 * spells fall on every row alike where timing the rows one after another let them fall on one (the ratio of two rows
 * of a case varied by 10-15 % between runs on the CI VM). Each call as in time_cpu_runs_prep: prep, flush, the timed
 * call; a row takes up to its reps calls, stops after 3 once it has 5 s timed, and ends at a call that fails (its
 * status). The rows whose status was XPOSE_OK on entry get their samples' statistics (row_times); the others are left
 * as they are. */
void time_cpu_turns(const cpu_turn *t, int n, int flush)
{
    int most = 0;
    for (int i = 0; i < n; i++)
        most = t[i].reps > most ? t[i].reps : most;
    const size_t rows = (size_t)(n > 0 ? n : 1);
    double *ms = malloc(sizeof(double) * (size_t)(most > 0 ? most : 1) * rows), *timed = calloc(rows, sizeof(double));
    int *got = calloc(rows, sizeof(int)), *began = calloc(rows, sizeof(int));
    if (!ms || !timed || !got || !began) {
        for (int i = 0; i < n; i++)
            t[i].row->status = t[i].row->status == XPOSE_OK ? XPOSE_ERR_NO_MEMORY : t[i].row->status;
        free(ms), free(timed), free(got), free(began);
        return;
    }
    for (int i = 0; i < n; i++)
        began[i] = t[i].row->status == XPOSE_OK;
    for (int k = 0; k < most; k++)
        for (int q = 0; q < n; q++) {
            const int i = (q + k) % n;
            bench_row *row = t[i].row;
            if (row->status != XPOSE_OK || got[i] >= t[i].reps || (got[i] >= 3 && timed[i] > 5000))
                continue;
            if (t[i].prep)
                t[i].prep(t[i].ctx);
            if (flush)
                cpu_flush();
            const double t0 = now_ms();
            row->status = t[i].run(t[i].ctx);
            const double took = now_ms() - t0;
            ms[(size_t)i * (size_t)most + (size_t)got[i]++] = took;
            timed[i] += took;
        }
    for (int i = 0; i < n; i++)
        if (began[i])
            row_times(t[i].row, ms + (size_t)i * (size_t)most, got[i], 0);
    free(ms), free(timed), free(got), free(began);
}
