/* args.c: option parsing for `xpose bench` (getopt_long); every bad value gets one line naming it. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

int parse_size(const char *what, const char *s, size_t *out)
{
    if (!s || !*s || !isdigit((unsigned char)s[0])) {
        fprintf(stderr, "xpose: %s needs a non-negative whole number, got '%s'\n", what, s ? s : "");
        return CLI_EXIT_USAGE;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end) {
        fprintf(stderr, "xpose: %s needs a whole number (digits only), got '%s'\n", what, s);
        return CLI_EXIT_USAGE;
    }
    if (errno) {
        fprintf(stderr, "xpose: %s needs a whole number that fits in 64 bits, got '%s'\n", what, s);
        return CLI_EXIT_USAGE;
    }
    *out = (size_t)v;
    return 0;
}

/* Checks lo <= v <= hi; s is the text v came from, named in the message. */
static int check_range(const char *what, const char *s, size_t v, size_t lo, size_t hi)
{
    if (v >= lo && v <= hi)
        return 0;
    if (hi == SIZE_MAX)
        fprintf(stderr, "xpose: %s must be at least %zu, got '%s'\n", what, lo, s);
    else
        fprintf(stderr, "xpose: %s must be between %zu and %zu, got '%s'\n", what, lo, hi, s);
    return CLI_EXIT_USAGE;
}

static int parse_positive(const char *what, const char *s, size_t *out)
{
    int st = parse_size(what, s, out);
    return st ? st : check_range(what, s, *out, 1, SIZE_MAX);
}

static int parse_int(const char *what, const char *s, int *out, int lo, int hi)
{
    size_t v;
    int st = parse_size(what, s, &v);
    if (!st && !(st = check_range(what, s, v, (size_t)lo, (size_t)hi)))
        *out = (int)v;
    return st;
}

/* Parses "V[,V...]": up to `max` whole numbers in lo..hi into out (distinct: none twice), their count into *count.
 * Splits by hand rather than with strtok, which would skip the empty entry of "4000," or "1,,2". */
static int parse_values(const char *what, const char *s, size_t lo, size_t hi, int max, int distinct, size_t *out,
                        int *count)
{
    int n = 0;
    const char *p = s;
    for (;;) {
        size_t len = strcspn(p, ","), v;
        char tok[32];
        if (len == 0 && strchr(s, ',')) {
            fprintf(stderr, "xpose: %s has an empty entry in '%s'\n", what, s);
            return CLI_EXIT_USAGE;
        }
        if (n == max) {
            fprintf(stderr, "xpose: %s takes at most %d values, got '%s'\n", what, max, s);
            return CLI_EXIT_USAGE;
        }
        if (len >= sizeof tok) { /* no number that fits in 64 bits is this long */
            fprintf(stderr, "xpose: %s needs whole numbers that fit in 64 bits, got '%s'\n", what, s);
            return CLI_EXIT_USAGE;
        }
        memcpy(tok, p, len);
        tok[len] = '\0';
        int st = parse_size(what, tok, &v);
        if (st || (st = check_range(what, tok, v, lo, hi)))
            return st;
        for (int k = 0; k < n && distinct; k++)
            if (out[k] == v) {
                fprintf(stderr, "xpose: %s lists %zu twice in '%s'\n", what, v, s);
                return CLI_EXIT_USAGE;
            }
        out[n++] = v;
        p += len;
        if (*p != ',')
            break;
        p++;
    }
    *count = n;
    return 0;
}

/* Up to CLI_MAX_LIST distinct values: --size and --threads lists. */
static int parse_list(const char *what, const char *s, size_t lo, size_t hi, size_t *out, int *count)
{
    return parse_values(what, s, lo, hi, CLI_MAX_LIST, 1, out, count);
}

/* Type names accepted by --type, with their element sizes. */
static const struct {
    const char *name;
    size_t size;
} types[] = {{"u8", 1},    {"i8", 1},  {"u16", 2}, {"i16", 2},   {"f16", 2},    {"bf16", 2},
             {"float", 4}, {"f32", 4}, {"i32", 4}, {"u32", 4},   {"double", 8}, {"f64", 8},
             {"i64", 8},   {"u64", 8}, {"c64", 8}, {"c128", 16}, {"v128", 16}};

int parse_type(const char *s, size_t *es)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(s, types[i].name) == 0) {
            *es = types[i].size;
            return 0;
        }
    fprintf(stderr, "xpose: unknown --type '%s' (try u8, f16, float, double, c128)\n", s);
    return CLI_EXIT_USAGE;
}

static int parse_choice(const char *what, const char *s, const char *const *names, int n, int *out)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return 0;
        }
    fprintf(stderr, "xpose: unknown %s '%s'\n", what, s);
    return CLI_EXIT_USAGE;
}

int parse_format(const char *s, out_format *fmt)
{
    static const char *const formats[] = {"table", "csv", "json", "md"}; /* in out_format's order */
    int k = 0, st = parse_choice("--format", s, formats, 4, &k);
    *fmt = (out_format)k;
    return st;
}

void bench_usage(FILE *f)
{
    fputs("usage: xpose bench [options]\n"
          "Times every selected variant, verifies each against the reference on random data, and prints\n"
          "ms (median; GPU rows: mean of the middle half), GB/s (bytes read + written), % of memcpy from the\n"
          "same run and speedup over cpu-naive (a row left out with --backend cuda and --peers). Each row is\n"
          "printed as soon as it is measured; notes on the run follow the table.\n"
          "  --size N[,N...]       square N x N matrix (default 4000, seed 000); a list (up to 8) runs every\n"
          "                        size; does not combine with --rows/--cols, nor a list with --sweep\n"
          "  --rows R --cols C     rectangular matrix\n"
          "  --type T | --elem-size B   element: u8 u16 f16 float double c128 ... | 1 2 4 8 16 (default float)\n"
          "  --batch B             B matrices back to back\n"
          "  --ld-src L --ld-dst L leading dimensions in elements (sub-matrices)\n"
          "  --backend cpu|cuda|all   which variants (default: all that can run here)\n"
          "  --variants LIST       comma-separated names or name/params (xpose list shows them)\n"
          "  --peers               the production transpose next to its library peer and memcpy, at every\n"
          "                        element size or the one --type names (GPU: fast, cublas-geam; CPU: cpu-fast,\n"
          "                        cpu-openblas)\n"
          "  --preset NAME         seed000 (N=4000 float), seed001 (8192 double), seed002 (16384 float naive\n"
          "                        16x16 vs 8x8), seed004 (the 256..32768 sweep), permute (issue 36's suite of\n"
          "                        permutations: its sizes on the GPU, each at most 64 MiB on the CPU)\n"
          "  --sweep               square sizes 256, 512, ... up to --sweep-max (default 32768 GPU, 8192 CPU);\n"
          "                        ignores a single --size\n"
          "  --op transpose|reduce|permute|inplace|dist   what to time (default transpose)\n"
          "  --n N                 --op reduce: elements (default 2^26)\n"
          "  --shape D0,D1,... --perm P0,P1,...   with --op permute: a dense row-major tensor (rank 1 to 32) and\n"
          "                        the permutation (np.transpose's axes); one row per backend through the plan API\n"
          "                        (its plan in the last column), beside a copy of the same bytes\n"
          "  --reduce-op sum|min|max   with --op reduce (default sum; --type float|double|i32|i64)\n"
          "  --op inplace          in-place transposes (dense rows x cols, --batch) next to memcpy of the same\n"
          "                        bytes; every row verified against the out-of-place reference, the data\n"
          "                        re-filled before each timed run (not timed)\n"
          "  --op dist             under mpirun -np P: the transpose of a matrix split by rows over P GPUs\n"
          "                        (--size N or --rows/--cols, --type), each method verified on every rank and\n"
          "                        timed beside NCCL's all-to-all of the same bytes\n"
          "  --threads T[,T...]    CPU threads (default: all; 0: one per processor); a list (up to 8) runs\n"
          "                        every CPU variant once per count and GPU variants once; --op reduce takes one\n"
          "  --reps K              timed repetitions (default 50 GPU, 5 CPU); CPU rows report the median, GPU\n"
          "                        rows the mean of the middle half (event times tick every 32 ns)\n"
          "  --warm                CPU rows without the cache flush between timed runs (a read of twice the\n"
          "                        last-level cache); GPU rows always flush the L2\n"
          "  --by-row              time each GPU row's reps together, one row after another (default: the\n"
          "                        GPU rows of a shape take turns, rep by rep, in a shuffled order)\n"
          "  --seed S              random data seed\n"
          "  --format table|csv|json|md   what stdout gets (default table)\n"
          "  --json FILE, --csv FILE, --md FILE   also write the results there (any of them, besides stdout);\n"
          "                        the JSON holds the run's context: build, date, CPU, GPU, command line, notes\n"
          "  --plot FILE.png       draw the results with gnuplot\n"
          "  -h, --help            this text\n",
          f);
}

const char *const bench_op_names[5] = {"transpose", "reduce", "permute", "inplace", "dist"};

/* The first option given that the chosen --op does not read, or NULL: such an option is refused rather than ignored.
 * elem_size_given: --elem-size (not --type, which every op reads) was given; reduce_op_given: --reduce-op was. */
static const char *foreign_option(const bench_opts *o, int elem_size_given, int reduce_op_given)
{
    /* --op inplace: dense matrices, one shape list, no presets, peers or plots. */
    enum { T = 1 << OP_TRANSPOSE, R = 1 << OP_REDUCE, P = 1 << OP_PERMUTE, I = 1 << OP_INPLACE, D = 1 << OP_DIST };
    const struct {
        int given;
        const char *name;
        unsigned ops; /* the benches that read it */
    } t[] = {{o->nsizes > 0, "--size", T | I | D},
             {o->rect, "--rows/--cols", T | I | D},
             {o->batch > 0, "--batch", T | I},
             {o->ld_src > 0, "--ld-src", T},
             {o->ld_dst > 0, "--ld-dst", T},
             {elem_size_given, "--elem-size", T | P | I | D},
             {o->peers, "--peers", T},
             {o->preset != NULL, "--preset", T | P},
             {o->sweep, "--sweep", T},
             {o->sweep_max > 0, "--sweep-max", T},
             {o->by_row, "--by-row", T | I},
             {o->plot != NULL, "--plot", T},
             {o->variants != NULL, "--variants", T | R | I},
             {o->n > 0, "--n", R},
             {reduce_op_given, "--reduce-op", R},
             {o->rank > 0, "--shape", P},
             {o->nperm > 0, "--perm", P}};
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++)
        if (t[k].given && !(t[k].ops & (1u << o->op)))
            return t[k].name;
    return NULL;
}

/* getopt_long's ids for the options that have no one-letter form. */
enum {
    OPT_SIZE = 256,
    OPT_ROWS,
    OPT_COLS,
    OPT_BATCH,
    OPT_LD_SRC,
    OPT_LD_DST,
    OPT_N,
    OPT_SWEEP_MAX,
    OPT_TYPE,
    OPT_ELEM_SIZE,
    OPT_OP,
    OPT_REDUCE_OP,
    OPT_THREADS,
    OPT_REPS,
    OPT_SEED,
    OPT_VARIANTS,
    OPT_PRESET,
    OPT_BACKEND,
    OPT_FORMAT,
    OPT_PLOT,
    OPT_JSON,
    OPT_CSV,
    OPT_MD,
    OPT_SWEEP,
    OPT_PEERS,
    OPT_WARM,
    OPT_BY_ROW,
    OPT_SHAPE,
    OPT_PERM,
};

static const struct option bench_options[] = {{"size", required_argument, 0, OPT_SIZE},
                                              {"rows", required_argument, 0, OPT_ROWS},
                                              {"cols", required_argument, 0, OPT_COLS},
                                              {"batch", required_argument, 0, OPT_BATCH},
                                              {"ld-src", required_argument, 0, OPT_LD_SRC},
                                              {"ld-dst", required_argument, 0, OPT_LD_DST},
                                              {"n", required_argument, 0, OPT_N},
                                              {"sweep-max", required_argument, 0, OPT_SWEEP_MAX},
                                              {"type", required_argument, 0, OPT_TYPE},
                                              {"elem-size", required_argument, 0, OPT_ELEM_SIZE},
                                              {"op", required_argument, 0, OPT_OP},
                                              {"reduce-op", required_argument, 0, OPT_REDUCE_OP},
                                              {"threads", required_argument, 0, OPT_THREADS},
                                              {"reps", required_argument, 0, OPT_REPS},
                                              {"seed", required_argument, 0, OPT_SEED},
                                              {"variants", required_argument, 0, OPT_VARIANTS},
                                              {"preset", required_argument, 0, OPT_PRESET},
                                              {"backend", required_argument, 0, OPT_BACKEND},
                                              {"format", required_argument, 0, OPT_FORMAT},
                                              {"plot", required_argument, 0, OPT_PLOT},
                                              {"json", required_argument, 0, OPT_JSON},
                                              {"csv", required_argument, 0, OPT_CSV},
                                              {"md", required_argument, 0, OPT_MD},
                                              {"sweep", no_argument, 0, OPT_SWEEP},
                                              {"peers", no_argument, 0, OPT_PEERS},
                                              {"warm", no_argument, 0, OPT_WARM},
                                              {"by-row", no_argument, 0, OPT_BY_ROW},
                                              {"shape", required_argument, 0, OPT_SHAPE},
                                              {"perm", required_argument, 0, OPT_PERM},
                                              {"help", no_argument, 0, 'h'},
                                              {0, 0, 0, 0}};

#define NOT_MINE (-2) /* an option handler's answer for an option of another group */

/* Which options were given that the checks after parsing need and bench_opts does not show. */
typedef struct given {
    int elem_size, reduce_op, op;
} given;

/* --size, --rows, --cols, --batch, --ld-src, --ld-dst, --n, --sweep-max. */
static int shape_option(bench_opts *o, int id, const char *v)
{
    switch (id) {
    case OPT_SIZE: {
        int st = parse_list("--size", v, 1, SIZE_MAX, o->sizes, &o->nsizes);
        o->rows = o->cols = o->sizes[0]; /* one value: exactly the old --size N, and presets see it */
        return st;
    }
    case OPT_ROWS: o->rect = 1; return parse_positive("--rows", v, &o->rows);
    case OPT_COLS: o->rect = 1; return parse_positive("--cols", v, &o->cols);
    case OPT_BATCH: return parse_positive("--batch", v, &o->batch);
    case OPT_LD_SRC: return parse_positive("--ld-src", v, &o->ld_src);
    case OPT_LD_DST: return parse_positive("--ld-dst", v, &o->ld_dst);
    case OPT_N: return parse_positive("--n", v, &o->n); /* 0 would be "unset": the default 2^26, silently */
    case OPT_SWEEP_MAX: return parse_positive("--sweep-max", v, &o->sweep_max);
    case OPT_SHAPE: return parse_values("--shape", v, 1, SIZE_MAX, XPOSE_MAX_RANK, 0, o->shape, &o->rank);
    case OPT_PERM: return parse_values("--perm", v, 0, XPOSE_MAX_RANK - 1, XPOSE_MAX_RANK, 1, o->perm, &o->nperm);
    default: return NOT_MINE;
    }
}

/* --type, --elem-size, --op, --reduce-op. */
static int element_option(bench_opts *o, given *g, int id, const char *v)
{
    static const char *const reduce_ops[] = {"sum", "min", "max"};
    int k = 0, st;
    switch (id) {
    case OPT_TYPE:
        o->type_name = v;
        o->elem_given = 1;
        return parse_type(v, &o->elem_size);
    case OPT_ELEM_SIZE:
        g->elem_size = o->elem_given = 1;
        st = parse_size("--elem-size", v, &o->elem_size);
        if (!st && o->elem_size != 1 && o->elem_size != 2 && o->elem_size != 4 && o->elem_size != 8 &&
            o->elem_size != 16) {
            fprintf(stderr, "xpose: --elem-size must be 1, 2, 4, 8 or 16, got '%s'\n", v);
            st = CLI_EXIT_USAGE;
        }
        return st;
    case OPT_OP:
        g->op = 1;
        st = parse_choice("--op", v, bench_op_names, 5, &k);
        o->op = (op_choice)k;
        return st;
    case OPT_REDUCE_OP: g->reduce_op = 1; return parse_choice("--reduce-op", v, reduce_ops, 3, &o->reduce_op);
    default: return NOT_MINE;
    }
}

/* What to run and where the results go: --threads, --reps, --seed, --variants, --preset, --backend, --format,
 * --plot, --json, --csv, --md. */
static int run_option(bench_opts *o, int id, const char *v)
{
    static const char *const be[] = {"auto", "cpu", "cuda", "all"};
    int k = 0, st = 0;
    size_t seed;
    switch (id) {
    case OPT_THREADS: return parse_list("--threads", v, 0, 4096, o->threads, &o->nthreads);
    case OPT_REPS: return parse_int("--reps", v, &o->reps, 1, 100000);
    case OPT_SEED:
        st = parse_size("--seed", v, &seed);
        o->seed = seed;
        return st;
    case OPT_FORMAT: return parse_format(v, &o->format);
    case OPT_BACKEND:
        st = parse_choice("--backend", v, be, 4, &k);
        o->backend = (be_choice)k;
        return st;
    case OPT_VARIANTS: o->variants = v; return 0;
    case OPT_PRESET: o->preset = v; return 0;
    case OPT_PLOT: o->plot = v; return 0;
    case OPT_JSON: o->json = v; return 0;
    case OPT_CSV: o->csv = v; return 0;
    case OPT_MD: o->md = v; return 0;
    case OPT_SWEEP: o->sweep = 1; return 0;
    case OPT_PEERS: o->peers = 1; return 0;
    case OPT_WARM: o->warm = 1; return 0;
    case OPT_BY_ROW: o->by_row = 1; return 0;
    default: return NOT_MINE;
    }
}

/* getopt_long's refusals, in our words: c is ':' (a value is missing) or '?' (an unknown option, or a value given to
 * an option that takes none); argv[optind - 1] is the argument it stopped at. */
static int bad_option(int c, char **argv)
{
    const char *a = argv[optind - 1], *eq = strchr(a, '=');
    if (c == ':')
        fprintf(stderr, "xpose: option '%s' needs a value\n", a);
    else if (optopt && eq) /* a known option's val: it takes no value */
        fprintf(stderr, "xpose: option '%.*s' takes no value, got '%s'\n", (int)(eq - a), a, a);
    else
        fprintf(stderr, "xpose: unknown option '%s' (see xpose bench --help)\n", a);
    return CLI_EXIT_USAGE;
}

/* --op permute: a --shape and a --perm that names each of its axes once, or the preset (which brings its own). */
static const char *check_permute(const bench_opts *o)
{
    if (o->preset)
        return o->rank || o->nperm ? "--preset permute brings its own shapes; give it no --shape or --perm" : NULL;
    if (!o->rank || !o->nperm)
        return "--op permute needs --shape D0,D1,... and --perm P0,P1,... (or --preset permute)";
    if (o->nperm != o->rank)
        return "--perm must list as many axes as --shape has dimensions";
    for (int k = 0; k < o->nperm; k++)
        if (o->perm[k] >= (size_t)o->rank)
            return "--perm must be a permutation of 0..rank-1 (each axis of --shape once)";
    return NULL;
}

/* Checks between options, once all are read: each refusal names what to drop. */
static int check_combinations(bench_opts *o, const given *g)
{
    const char *err = NULL;
    if ((o->rows == 0) != (o->cols == 0))
        err = "give both --rows and --cols, or --size";
    else if (o->sweep_max && o->sweep_max < CLI_SWEEP_FIRST) { /* a top below the first size would run nothing */
        fprintf(stderr, "xpose: --sweep-max must be at least %d (the sweep's first size), got %zu\n", CLI_SWEEP_FIRST,
                o->sweep_max);
        return CLI_EXIT_USAGE;
    } else if (o->nsizes > 0 && o->rect) /* which one wins would depend on their order */
        err = "--size makes square shapes; give --size or --rows/--cols, not both";
    else if (g->elem_size && o->type_name)
        err = "give --type or --elem-size, not both";
    else if (o->nthreads > 1 && o->op == OP_REDUCE)
        err = "--op reduce takes a single --threads value";
    else if (o->preset && !strcmp(o->preset, "permute") && o->op != OP_PERMUTE) {
        if (g->op) /* the suite of permutations under another --op: which one was meant? */
            err = "--preset permute runs --op permute; drop the other --op";
        o->op = OP_PERMUTE;
    } else if (o->preset && strcmp(o->preset, "permute") && o->op == OP_PERMUTE)
        err = "--op permute takes --preset permute only";
    if (err) {
        fprintf(stderr, "xpose: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    const char *foreign = foreign_option(o, g->elem_size, g->reduce_op);
    if (foreign) {
        fprintf(stderr, "xpose: %s does not apply to --op %s\n", foreign, bench_op_names[o->op]);
        return CLI_EXIT_USAGE;
    }
    if (o->op == OP_PERMUTE && (err = check_permute(o)) != NULL) {
        fprintf(stderr, "xpose: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    return o->plot ? plot_check(o->plot) : 0;
}

int parse_bench_args(int argc, char **argv, bench_opts *o)
{
    given g = {0, 0, 0};
    memset(o, 0, sizeof *o);
    o->elem_size = 4;
    o->backend = BE_AUTO;
    o->format = FMT_TABLE;
    o->seed = 2026;
    o->argc = argc;
    o->argv = argv;
    optind = 0; /* 0, not 1: glibc starts afresh */
    opterr = 0; /* its messages are replaced by bad_option's */
    for (int c; (c = getopt_long(argc, argv, ":h", bench_options, NULL)) != -1;) {
        if (c == 'h') {
            bench_usage(stdout);
            return -1;
        }
        if (c == '?' || c == ':')
            return bad_option(c, argv);
        int st = shape_option(o, c, optarg);
        if (st == NOT_MINE)
            st = element_option(o, &g, c, optarg);
        if (st == NOT_MINE)
            st = run_option(o, c, optarg);
        if (st)
            return st;
    }
    if (optind < argc) {
        fprintf(stderr, "xpose: unexpected argument '%s' (see xpose bench --help)\n", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    return check_combinations(o, &g);
}
