/* cli.h: the xpose CLI's shared types: parsed options, one timed result row, and the pieces' entry points. */
#ifndef XPOSE_CLI_H
#define XPOSE_CLI_H

#include <stddef.h>
#include <stdio.h>
#include "xpose.h"

#define CLI_EXIT_USAGE 2 /* bad input: one line on stderr, this status */
#define CLI_SWEEP_FIRST 256 /* --sweep's first (smallest) square size */
#define CLI_MAX_LIST 8   /* values in a --size or --threads list */

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON, FMT_MD } out_format;
typedef enum { BE_AUTO, BE_CPU, BE_CUDA, BE_ALL } be_choice;
typedef enum { OP_TRANSPOSE, OP_REDUCE } op_choice;

typedef struct bench_opts {
    size_t rows, cols, elem_size, batch, ld_src, ld_dst;
    size_t sizes[CLI_MAX_LIST];   /* --size N[,N...]: square shapes; the first also sets rows and cols */
    int nsizes;
    int rect;                     /* --rows or --cols was given */
    int elem_given;               /* --type or --elem-size was given: a preset keeps it */
    size_t threads[CLI_MAX_LIST]; /* --threads T[,T...]; none (nthreads 0): the library's default, all cores */
    int nthreads;
    size_t n;                 /* reduce: element count */
    const char *type_name;    /* --type as given (reduce: float, double, i32, i64); NULL: float */
    int reduce_op;            /* reduce: an xpose_reduce_op, from --reduce-op (default sum) */
    be_choice backend;
    const char *variants;     /* comma-separated ids, NULL: the default set */
    const char *preset;       /* seed000, seed001, seed002, seed004 */
    const char *plot;         /* PNG path or NULL */
    int reps, sweep, peers;
    int warm;                 /* --warm: CPU rows timed without evicting the caches between runs */
    int by_row;               /* --by-row: each GPU row's reps timed together, one row after another */
    size_t sweep_max;
    op_choice op;
    out_format format;
    unsigned long long seed;
} bench_opts;

/* One timed, verified variant at one shape. */
typedef struct bench_row {
    char variant[40], params[24];
    xpose_backend backend;
    xpose_family family;
    size_t rows, cols, elem_size, batch;
    int threads;              /* CPU threads it ran with; 0 for GPU rows (not applicable) */
    int pass_threads;         /* CPU: the library's thread setting when it ran (its --threads pass) */
    double bytes;             /* bytes read + written by one run */
    double ms, spread_pct;    /* median time (GPU rows: the mean of the middle half); (p90 - p10) / that */
    double gbps, pct_memcpy, speedup;  /* pct/speedup < 0: no reference row in this run */
    int reps, verified, status;        /* status: XPOSE_OK or why it did not run */
} bench_row;

typedef struct bench_result {
    bench_row *rows;
    size_t count, cap;
    char note[512];           /* e.g. why GPU variants were skipped; how CPU rows were timed */
} bench_result;

/* args.c */
void bench_usage(FILE *f);
int parse_bench_args(int argc, char **argv, bench_opts *o);
int parse_size(const char *what, const char *s, size_t *out);
int parse_type(const char *s, size_t *es); /* --type NAME: its element size; else one line on stderr, CLI_EXIT_USAGE */

/* summary.c: median and spread of n samples (sorts them). */
void time_stats(double *samples, int n, double *median, double *spread_pct);
/* GPU rows: the mean of the middle half (resolves below an event tick) and the same spread (sorts them). */
void gpu_time_stats(double *samples, int n, double *mid_mean, double *spread_pct);
double now_ms(void);
void *host_big_alloc(size_t bytes); /* host_buffers.c: 2 MiB pages where allowed; free() releases */

/* cpu_flush.c: a buffer twice the last-level cache, read between timed CPU runs. init returns its size (0: none);
 * size: what init would take, for the memory check; note: how the CPU rows were timed, appended to a run's note. */
size_t cpu_flush_size(void);
size_t cpu_flush_init(void);
void cpu_flush(void);
void cpu_flush_note(bench_result *r, int cold);
void cpu_flush_free(void);

/* stats.c: the CPU rows' timing loop, run(ctx) up to `reps` times into row, each after a cache flush if asked. */
void time_cpu_runs(int (*run)(void *ctx), void *ctx, int reps, int flush, bench_row *row);

/* bench.c, bench_reduce.c */
int bench_reduce(const bench_opts *o, bench_result *res);
int cmd_bench(int argc, char **argv);
bench_row *result_add(bench_result *r);
/* Copies a variant's name, parameters, backend and family into a row, and for a CPU variant the thread count
 * the library runs it with now (xpose_get_threads). */
void row_name(bench_row *row, const xpose_variant_info *v);

/* report.c. note_add: appends a remark to the run's note (printed under the table, a # line in CSV). */
void note_add(bench_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void report(FILE *f, out_format fmt, const bench_result *r, const bench_opts *o);

/* plot.c: plot_check, before the bench: 0 where gnuplot is installed and `path` can be written, else one line on
 * stderr and CLI_EXIT_USAGE. plot_png: 0 on success, CLI_EXIT_USAGE when gnuplot fails. */
int plot_check(const char *path);
int plot_png(const char *path, const bench_result *r, int sweep);

/* overhead.c: `xpose overhead`, the host-side cost of one call. gpu_overhead (gpu_overhead.c / gpu_none.c) times
 * the CUDA entry points on one shape: us per call into us[0] (xpose_transpose_cuda, host side), us[1]
 * (cudaMemcpyAsync of the same bytes, host side), us[2] (xpose_transpose, synchronous, round trip), us[3] (the
 * checks alone: a call refused for a host pointer before any launch); 0 or a status. */
int cmd_overhead(int argc, char **argv);
int gpu_overhead(const xpose_layout *lay, int calls, int rounds, double us[4]);

/* info.c */
int cmd_list(int argc, char **argv);
int cmd_info(int argc, char **argv);

/* gpu_bench.c / gpu_none.c: the GPU side of the bench, present only when CUDA is built. */
int gpu_ready(char *why, size_t why_len);                /* 1 when GPU variants can be timed here */
void gpu_describe(char *buf, size_t len);                /* device name, memory, driver; or why none */
/* Uploads one shape; then gpu_verify_variant per variant and gpu_time_jobs; gpu_end_shape frees. 0 or an
 * xpose status. */
int gpu_begin_shape(const xpose_layout *lay, const void *host_src, size_t src_bytes, size_t dst_bytes);
/* Runs variant id on lay into a poisoned output and compares its first cmp_bytes with want (row->verified). */
void gpu_verify_variant(const char *id, const xpose_layout *lay, const void *want, size_t cmp_bytes, bench_row *row);
/* A verified GPU row of the current shape, to be timed. */
typedef struct gpu_job {
    char id[96];
    const xpose_layout *lay;
    bench_row *row;
} gpu_job;
/* Times n jobs, reps launches each, in turn (round k runs every job once); each row gets gpu_time_stats. */
void gpu_time_jobs(gpu_job *jobs, int n, int reps);
void gpu_end_shape(void);

#endif
