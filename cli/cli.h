/* cli.h: the xpose CLI's shared types (options, result rows, the run's context) and each file's entry points. */
#ifndef XPOSE_CLI_H
#define XPOSE_CLI_H

#include <stddef.h>
#include <stdio.h>
#include "xpose.h"

#define CLI_EXIT_USAGE 2    /* bad input: one line on stderr, this status */
#define CLI_SWEEP_FIRST 256 /* --sweep's first (smallest) square size */
#define CLI_MAX_LIST 8      /* values in a --size or --threads list */

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON, FMT_MD } out_format;
typedef enum { BE_AUTO, BE_CPU, BE_CUDA, BE_ALL } be_choice;
typedef enum { OP_TRANSPOSE, OP_REDUCE, OP_PERMUTE, OP_INPLACE, OP_DIST } op_choice;
/* The --op names, in op_choice's order (args.c). */
extern const char *const bench_op_names[5];

typedef struct bench_opts {
    size_t rows, cols, elem_size, batch, ld_src, ld_dst;
    size_t sizes[CLI_MAX_LIST]; /* --size N[,N...]: square shapes; the first also sets rows and cols */
    int nsizes;
    int rect;                     /* --rows or --cols was given */
    int elem_given;               /* --type or --elem-size was given: a preset keeps it */
    size_t threads[CLI_MAX_LIST]; /* --threads T[,T...] (0: one per processor); none (nthreads 0): the default */
    int nthreads;
    size_t n;              /* reduce: element count */
    const char *type_name; /* --type as given (reduce: float, double, i32, i64); NULL: float */
    int reduce_op;         /* reduce: an xpose_reduce_op, from --reduce-op (default sum) */
    be_choice backend;
    const char *variants;        /* comma-separated ids, NULL: the default set */
    const char *preset;          /* seed000, seed001, seed002, seed004 */
    const char *plot;            /* PNG path or NULL */
    const char *json, *csv, *md; /* --json/--csv/--md FILE: written besides stdout; NULL: not asked */
    int reps, sweep, peers;
    int warm;   /* --warm: CPU rows timed without evicting the caches between runs */
    int by_row; /* --by-row: each GPU row's reps timed together, one row after another */
    size_t sweep_max;
    size_t shape[XPOSE_MAX_RANK]; /* permute: --shape D0,D1,... (rank: their count, 0 where not given) */
    size_t perm[XPOSE_MAX_RANK];  /* permute: --perm P0,P1,... */
    int rank, nperm;
    op_choice op;
    out_format format; /* stdout's */
    unsigned long long seed;
    int argc; /* the command line from "bench" on, for the JSON context */
    char **argv;
} bench_opts;

/* One timed, verified variant at one shape. */
typedef struct bench_row {
    char variant[40], params[24];
    char dtype[12]; /* the --type name, "float" by default, else e<bytes> (e4 for --elem-size 4) */
    xpose_backend backend;
    xpose_family family;
    size_t rows, cols, elem_size, batch;
    size_t ld_src, ld_dst; /* leading dimensions in elements; 0 for a reduction (none) */
    int setup;             /* rows of one setup (shape, or array) share it: a row relates to its own setup's */
    int threads;           /* CPU threads it ran with; 0 for GPU rows (not applicable) */
    int pass_threads;      /* CPU: the library's thread setting when it ran (its --threads pass) */
    double bytes;          /* bytes read + written by one run */
    double ms, spread_pct; /* median time (GPU rows: the mean of the middle half); (p90 - p10) / that */
    double min_ms, median_ms, max_ms; /* of the timed runs */
    double gbps, pct_memcpy, speedup; /* pct/speedup < 0: no reference row in this run */
    char reference[40];               /* the copy row pct_memcpy is against; "" where none */
    char shape[96];                   /* permute: "D0xD1x... (P0,P1,...)"; "" for the other benches */
    char plan[256];                   /* permute: the plan's description (xpose_permute_plan_describe); or "" */
    double plan_us;                   /* permute: the plan's creation time, us (median); < 0: not measured */
    int reps, verified, status;       /* status: XPOSE_OK or why it did not run */
} bench_row;

typedef struct report report; /* the outputs a run writes to (report.c) */

typedef struct bench_result {
    bench_row *rows;
    size_t count, cap;
    char **notes; /* remarks for the end of the output: why rows were skipped, how they were timed */
    int nnotes;
    const char *base; /* the variant speedups are over: cpu-naive, or cpu-reduce */
    int setup;        /* the setup rows pushed now belong to */
    int holding;      /* rows from hold_from on are not written yet (result_hold) */
    size_t hold_from;
    report *out; /* NULL until result_start */
} bench_result;

/* The GPU as the JSON context names it; "none" in each field where there is none. */
typedef struct gpu_id {
    char name[128], driver[16], runtime[16];
} gpu_id;

/* What a reader of the results needs to know about the run that made them (context.c fills it). */
typedef struct run_context {
    const char *version, *commit, *build_type, *cuda_archs;
    int openmp;
    char date[32]; /* UTC, ISO 8601, when the run started */
    char cpu[256]; /* /proc/cpuinfo's model name */
    gpu_id gpu;
    char command[2048]; /* the command line, quoted for a shell */
    unsigned long long seed;
} run_context;

/* The CPU thread counts to run, as the library runs them; n == 0: its default, never set. */
typedef struct thread_plan {
    int t[CLI_MAX_LIST];
    int n;
} thread_plan;

/* What both benches start from (bench.c sets it up). */
typedef struct bench_env {
    thread_plan tp;
    int gpu;       /* GPU variants can run here */
    char why[160]; /* why they cannot */
    run_context ctx;
} bench_env;

/* args.c */
void bench_usage(FILE *f);
int parse_bench_args(int argc, char **argv, bench_opts *o); /* argv[0]: "bench"; -1 after --help, 0, or a status */
int parse_size(const char *what, const char *s, size_t *out);
/* --type NAME: its element size; --format table|csv|json|md: the format. Else one line on stderr, CLI_EXIT_USAGE. */
int parse_type(const char *s, size_t *es);
int parse_format(const char *s, out_format *fmt);

/* build_info.c: what this binary was built from and with. */
void build_context(run_context *c); /* fills version, commit, build type, CUDA architectures and OpenMP */
void print_version(FILE *f);

/* context.c */
void cpu_model(char *buf, size_t n);
void context_init(run_context *c, const bench_opts *o);

/* summary.c: median and spread of n samples (sorts them). */
void time_stats(double *samples, int n, double *median, double *spread_pct);
/* GPU rows: the mean of the middle half (resolves below an event tick) and the same spread (sorts them). */
void gpu_time_stats(double *samples, int n, double *mid_mean, double *spread_pct);
/* A row's times from its n samples (sorts them): reps, min, median, max, spread, and ms: the median, or the mean
 * of the middle half where mid_mean. */
void row_times(bench_row *row, double *samples, int n, int mid_mean);
double now_ms(void);
void *host_big_alloc(size_t bytes); /* host_buffers.c: 2 MiB pages where allowed; free() releases */

/* cpu_cache.c: cache sizes in bytes (0: unknown), from sysfs, else sysconf; source says which. */
typedef struct cpu_caches {
    size_t l1d, l2, l3;
    const char *source; /* "sysfs" or "sysconf" */
} cpu_caches;
void cpu_caches_read(cpu_caches *c);

/* cpu_flush.c: a buffer twice the last-level cache, read between timed CPU runs. init returns its size (0: none);
 * size: what init would take, for the memory check; note: how the CPU rows were timed, added to a run's notes. */
size_t cpu_flush_size(void);
size_t cpu_flush_init(void);
void cpu_flush(void);
void cpu_flush_note(bench_result *r, int cold);
void cpu_flush_free(void);

/* stats.c: the CPU rows' timing loop, run(ctx) up to `reps` times into row, each after a cache flush if asked. */
void time_cpu_runs(int (*run)(void *ctx), void *ctx, int reps, int flush, bench_row *row);
/* The same with prep(ctx) before each run and its flush, outside the timed span (NULL: nothing). */
void time_cpu_runs_prep(void (*prep)(void *ctx), int (*run)(void *ctx), void *ctx, int reps, int flush, bench_row *row);
/* One row of time_cpu_turns: its call (prep before each, untimed, where not NULL), up to reps of them, into row. */
typedef struct cpu_turn {
    void (*prep)(void *ctx);
    int (*run)(void *ctx);
    void *ctx;
    int reps;
    bench_row *row;
} cpu_turn;
/* n rows timed in turn, round by round, each call after a flush if asked. */
void time_cpu_turns(const cpu_turn *t, int n, int flush);

/* bench.c: `xpose bench`; bench_transpose.c and bench_reduce.c: the two benches it runs. Each selects its rows
 * (CLI_EXIT_USAGE with one line where nothing can run), calls result_start, then pushes its rows as they finish. */
int cmd_bench(int argc, char **argv);
int bench_transpose(bench_opts *o, const bench_env *env, bench_result *res);
int bench_reduce(const bench_opts *o, const bench_env *env, bench_result *res);
int bench_inplace(const bench_opts *o, const bench_env *env, bench_result *res); /* bench_inplace.c */
int bench_permute(const bench_opts *o, const bench_env *env, bench_result *res);
/* bench_dist.c (dist_none.c where NCCL was not found): one process of `mpirun -np P xpose bench --op dist`. */
int bench_dist(const bench_opts *o, const bench_env *env, bench_result *res);
/* bench_transpose.c's helpers that bench_permute.c shares: the host's memory in bytes; one CPU variant run into
 * poisoned out (dst_bytes), its first cmp_bytes compared with want (row->status, row->verified); the call that
 * times it (time_cpu_turns' run, ctx a transpose_run); the note on how GPU rows were timed. */
size_t phys_bytes(void);
typedef struct transpose_run {
    const char *id;
    const xpose_layout *lay;
    const void *src;
    void *out;
} transpose_run;
void check_cpu_variant(const char *id, const xpose_layout *lay, const void *src, const void *want, size_t cmp_bytes,
                       void *out, size_t dst_bytes, bench_row *row);
int run_transpose(void *ctx);
void gpu_timing_note(bench_result *res, int by_row);

/* result.c: the rows of a run. result_start opens the outputs (report_open) and writes their headers;
 * result_push adds a finished row, relates it to its setup's references pushed before it (% of memcpy,
 * speedup over res->base) and writes it out at once; 0 or CLI_EXIT_USAGE. */
void result_init(bench_result *r, const char *base);
int result_start(bench_result *r, const bench_opts *o, int shape_width);
int result_push(bench_result *r, const bench_row *row);
/* Rows pushed between hold and release are written at release, each related to all of them: for references
 * (memcpy, cpu-naive), which relate to each other. */
void result_hold(bench_result *r);
void result_release(bench_result *r);
int result_failed(const bench_result *r); /* a row that did not run or was wrong */
void result_free(bench_result *r);
void result_reference_note(bench_result *r); /* which copy row the CPU rows' % of memcpy was against */
/* Appends a remark to the run's notes (after the table, on stderr for CSV, in the JSON context). */
void note_add(bench_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void variant_id(const xpose_variant_info *v, char *buf, size_t n); /* "name" or "name/params" */
/* Starts a row: the variant's name, parameters, backend and family, the thread count the library runs it with now
 * for a CPU variant (xpose_get_threads), the type's name, and no reference yet. */
void row_start(bench_row *row, const xpose_variant_info *v, const bench_opts *o, size_t elem_size);
void progress(const char *id); /* the row being run, on a terminal's stderr; NULL clears it */

/* report.c: the outputs of a run: stdout in --format, and --json/--csv/--md files. */
report *report_open(const bench_opts *o); /* NULL after one line on stderr: a file cannot be written */
void report_header(report *r, int shape_width);
void report_row(report *r, const bench_row *row);
/* Writes the notes and the JSON context, closes the files: 0, or 1 where a file could not be written. */
int report_close(report *r, const bench_result *res, const run_context *ctx);

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

/* explain.c: `xpose explain`, the GPU ladder's memory traffic from a CPU model of its kernels (explain_model.c). */
int cmd_explain(int argc, char **argv);

/* info.c */
int cmd_list(int argc, char **argv);
int cmd_info(int argc, char **argv);

/* gpu_bench.c / gpu_none.c: the GPU side of the bench, present only when CUDA is built. */
int gpu_ready(char *why, size_t why_len); /* 1 when GPU variants can be timed here */
void gpu_describe(char *buf, size_t len); /* device name, memory, driver; or why none */
void gpu_identity(gpu_id *id);            /* name, driver and runtime versions, or "none" */
/* The current device's name, compute capability major, SMs and L2 bytes: 1, or 0 where there is none. */
int gpu_facts(char *name, size_t name_len, int *major, unsigned *sms, size_t *l2_bytes);
/* Uploads one shape; then gpu_verify_variant per variant and gpu_time_jobs; gpu_end_shape frees. 0 or an
 * xpose status. */
int gpu_begin_shape(const xpose_layout *lay, const void *host_src, size_t src_bytes, size_t dst_bytes);
/* Re-fills the working copy from the uploaded source, runs in-place variant id on it (the device workspace its
 * backend's query asks for, allocated once a shape) and compares its first cmp_bytes with want (row->verified). */
void gpu_inplace_verify(const char *id, const xpose_layout *lay, const void *want, size_t cmp_bytes, bench_row *row);
/* A GPU row of the current shape: variant id on lay, or (plan not NULL) a permutation plan; an in-place row, by its
 * family, runs on the working copy re-filled from the source first, outside the timed span. */
typedef struct gpu_job {
    char id[96];
    const xpose_layout *lay;
    bench_row *row;
    xpose_permute_plan plan;
} gpu_job;
/* Runs the job into a poisoned output and compares its first cmp_bytes with want (row->verified, row->status). */
void gpu_verify_job(const gpu_job *job, const void *want, size_t cmp_bytes);
/* The same for variant id on lay. */
void gpu_verify_variant(const char *id, const xpose_layout *lay, const void *want, size_t cmp_bytes, bench_row *row);
/* Times n verified jobs, reps launches each, in turn (round k runs every job once); each row gets its row_times. */
void gpu_time_jobs(gpu_job *jobs, int n, int reps);
void gpu_end_shape(void);

#endif
