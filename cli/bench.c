/* bench.c: `xpose bench`: reads the options, sets up threads, GPU and context, runs one bench, finishes the output. */
#include <string.h>
#include "cli.h"

/* The --threads values as the library runs them (0: one per processor, the library's reading of 0). A build
 * without OpenMP runs every CPU variant on one thread: it says so, and each count it really runs is timed once
 * rather than as repeated identical rows. */
static void plan_threads(const bench_opts *o, thread_plan *tp)
{
    tp->n = 0;
    for (int i = 0; i < o->nthreads; i++) {
        int want = (int)o->threads[i], got = xpose_set_threads(want), seen = 0;
        if (want && got != want)
            fprintf(stderr, "xpose: --threads %d: this build runs CPU variants on %d thread%s\n", want, got,
                    got == 1 ? "" : "s");
        for (int k = 0; k < tp->n; k++)
            seen |= tp->t[k] == got;
        if (!seen)
            tp->t[tp->n++] = got;
    }
    if (tp->n)
        xpose_set_threads(tp->t[0]); /* the reduce bench takes one count; the transposes set each pass's */
}

/* Closes the outputs (notes, JSON context), draws the plot, and gives the exit status: st where the bench
 * stopped on an error, else 1 where a row failed or was wrong, CLI_EXIT_USAGE where the plot failed, else 0. */
static int finish(const bench_opts *o, const bench_env *env, bench_result *res, int st)
{
    int write_failed = res->out ? report_close(res->out, res, &env->ctx) : 0;
    res->out = NULL;
    if (!st && o->plot && res->count)
        st = plot_png(o->plot, res, o->sweep);
    if (!st)
        st = result_failed(res) || write_failed;
    result_free(res);
    return st;
}

int cmd_bench(int argc, char **argv)
{
    bench_opts o;
    int st = parse_bench_args(argc, argv, &o);
    if (st)
        return st < 0 ? 0 : st;
    bench_env env;
    memset(&env, 0, sizeof env);
    plan_threads(&o, &env.tp);
    /* --op dist picks each process's GPU itself; a probe here would open every rank's context on GPU 0. */
    env.gpu = o.op == OP_DIST ? 0 : gpu_ready(env.why, sizeof env.why);
    context_init(&env.ctx, &o);
    bench_result res;
    result_init(&res, o.op == OP_REDUCE    ? "cpu-reduce"
                      : o.op == OP_PERMUTE ? NULL
                      : o.op == OP_INPLACE ? "cpu-inplace-naive"
                                           : "cpu-naive");
    st = o.op == OP_REDUCE    ? bench_reduce(&o, &env, &res)
         : o.op == OP_PERMUTE ? bench_permute(&o, &env, &res)
         : o.op == OP_INPLACE ? bench_inplace(&o, &env, &res)
         : o.op == OP_DIST    ? bench_dist(&o, &env, &res)
                              : bench_transpose(&o, &env, &res);
    result_reference_note(&res);
    return finish(&o, &env, &res, st);
}
