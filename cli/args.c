/* args.c: GNU-style option parsing for `xpose bench`; every bad value gets one line naming it. */
#include <ctype.h>
#include <errno.h>
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

/* Parses "V[,V...]": up to CLI_MAX_LIST distinct whole numbers in lo..hi into out, their count into *count.
 * Splits by hand rather than with strtok, which would skip the empty entry of "4000," or "1,,2". */
static int parse_list(const char *what, const char *s, size_t lo, size_t hi, size_t *out, int *count)
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
        if (n == CLI_MAX_LIST) {
            fprintf(stderr, "xpose: %s takes at most %d values, got '%s'\n", what, CLI_MAX_LIST, s);
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
        for (int k = 0; k < n; k++)
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

/* Type names accepted by --type, with their element sizes. */
static const struct {
    const char *name;
    size_t size;
} types[] = {{"u8", 1},    {"i8", 1},     {"u16", 2},    {"i16", 2},    {"f16", 2},   {"bf16", 2},
             {"float", 4}, {"f32", 4},    {"i32", 4},    {"u32", 4},    {"double", 8}, {"f64", 8},
             {"i64", 8},   {"u64", 8},    {"c64", 8},    {"c128", 16},  {"v128", 16}};

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

void bench_usage(FILE *f)
{
    fputs("usage: xpose bench [options]\n"
          "Times every selected variant, verifies each against the reference on random data, and prints\n"
          "ms (median; GPU rows: mean of the middle half), GB/s (bytes read + written), % of memcpy from the\n"
          "same run and speedup over cpu-naive (a row left out with --backend cuda and --peers).\n"
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
          "                        16x16 vs 8x8), seed004 (the 256..32768 sweep)\n"
          "  --sweep               square sizes 256, 512, ... up to --sweep-max (default 32768 GPU, 8192 CPU);\n"
          "                        ignores a single --size\n"
          "  --op transpose|reduce --n N   reduction over N elements (default 2^26)\n"
          "  --reduce-op sum|min|max   with --op reduce (default sum; --type float|double|i32|i64)\n"
          "  --threads T[,T...]    CPU threads (default: all); a list (up to 8) runs every CPU variant once per\n"
          "                        count and GPU variants once; --op reduce takes one count\n"
          "  --reps K              timed repetitions (default 50 GPU, 5 CPU); CPU rows report the median, GPU\n"
          "                        rows the mean of the middle half (event times tick every 32 ns)\n"
          "  --warm                CPU rows without the cache flush between timed runs (a read of twice the\n"
          "                        last-level cache); GPU rows always flush the L2\n"
          "  --by-row              time each GPU row's reps together, one row after another (default: the\n"
          "                        GPU rows of a shape take turns, rep by rep, in a shuffled order)\n"
          "  --seed S              random data seed\n"
          "  --format table|csv|json|md\n"
          "  --plot FILE.png       draw the results with gnuplot\n",
          f);
}

/* The first option given that `xpose bench --op reduce` (reduce != 0) or the transpose bench does not read, or NULL:
 * such an option is refused rather than ignored. elem_size_given: --elem-size (not --type, which both read) was given;
 * reduce_op_given: --reduce-op was. */
static const char *foreign_option(const bench_opts *o, int reduce, int elem_size_given, int reduce_op_given)
{
    if (!reduce)
        return o->n ? "--n" : reduce_op_given ? "--reduce-op" : NULL;
    const struct {
        int given;
        const char *name;
    } t[] = {{o->nsizes > 0, "--size"}, {o->rect, "--rows/--cols"}, {o->batch > 0, "--batch"},
             {o->ld_src > 0, "--ld-src"}, {o->ld_dst > 0, "--ld-dst"}, {elem_size_given, "--elem-size"},
             {o->peers, "--peers"}, {o->preset != NULL, "--preset"}, {o->sweep, "--sweep"},
             {o->sweep_max > 0, "--sweep-max"}, {o->by_row, "--by-row"}, {o->plot != NULL, "--plot"}};
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++)
        if (t[k].given)
            return t[k].name;
    return NULL;
}

int parse_bench_args(int argc, char **argv, bench_opts *o)
{
    int elem_size_given = 0, reduce_op_given = 0;
    memset(o, 0, sizeof *o);
    o->elem_size = 4;
    o->backend = BE_AUTO;
    o->format = FMT_TABLE;
    o->seed = 2026;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        char key[32];
        const char *eq = strchr(a, '=');
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "xpose: unexpected argument '%s' (see xpose bench --help)\n", a);
            return CLI_EXIT_USAGE;
        }
        size_t klen = eq ? (size_t)(eq - a) : strlen(a);
        if (klen >= sizeof key) {
            fprintf(stderr, "xpose: unknown option '%s'\n", a);
            return CLI_EXIT_USAGE;
        }
        memcpy(key, a, klen);
        key[klen] = '\0';
        int flag = !strcmp(key, "--sweep") || !strcmp(key, "--peers") || !strcmp(key, "--warm") ||
                   !strcmp(key, "--by-row") || !strcmp(key, "--help");
        if (flag && eq) {
            fprintf(stderr, "xpose: option '%s' takes no value, got '%s'\n", key, a);
            return CLI_EXIT_USAGE;
        }
        if (!flag) {
            if (eq)
                v = eq + 1;
            else if (i + 1 < argc)
                v = argv[++i];
            else {
                fprintf(stderr, "xpose: option '%s' needs a value\n", key);
                return CLI_EXIT_USAGE;
            }
        }
        int st = 0;
        if (!strcmp(key, "--help")) {
            bench_usage(stdout);
            return -1;
        } else if (!strcmp(key, "--sweep"))
            o->sweep = 1;
        else if (!strcmp(key, "--peers"))
            o->peers = 1;
        else if (!strcmp(key, "--warm"))
            o->warm = 1;
        else if (!strcmp(key, "--by-row"))
            o->by_row = 1;
        else if (!strcmp(key, "--size")) {
            st = parse_list("--size", v, 1, SIZE_MAX, o->sizes, &o->nsizes);
            o->rows = o->cols = o->sizes[0]; /* one value: exactly the old --size N, and presets see it */
        } else if (!strcmp(key, "--rows")) {
            st = parse_positive("--rows", v, &o->rows);
            o->rect = 1;
        } else if (!strcmp(key, "--cols")) {
            st = parse_positive("--cols", v, &o->cols);
            o->rect = 1;
        } else if (!strcmp(key, "--batch"))
            st = parse_positive("--batch", v, &o->batch);
        else if (!strcmp(key, "--ld-src"))
            st = parse_positive("--ld-src", v, &o->ld_src);
        else if (!strcmp(key, "--ld-dst"))
            st = parse_positive("--ld-dst", v, &o->ld_dst);
        else if (!strcmp(key, "--n"))
            st = parse_positive("--n", v, &o->n); /* 0 would be "unset": the default 2^26, silently */
        else if (!strcmp(key, "--sweep-max"))
            st = parse_positive("--sweep-max", v, &o->sweep_max);
        else if (!strcmp(key, "--elem-size")) {
            st = parse_size("--elem-size", v, &o->elem_size);
            elem_size_given = o->elem_given = 1;
            if (!st && o->elem_size != 1 && o->elem_size != 2 && o->elem_size != 4 && o->elem_size != 8 &&
                o->elem_size != 16) {
                fprintf(stderr, "xpose: --elem-size must be 1, 2, 4, 8 or 16, got '%s'\n", v);
                st = CLI_EXIT_USAGE;
            }
        } else if (!strcmp(key, "--type")) {
            st = parse_type(v, &o->elem_size);
            o->type_name = v;
            o->elem_given = 1;
        } else if (!strcmp(key, "--reduce-op")) {
            static const char *const n[] = {"sum", "min", "max"};
            st = parse_choice("--reduce-op", v, n, 3, &o->reduce_op);
            reduce_op_given = 1;
        } else if (!strcmp(key, "--threads"))
            st = parse_list("--threads", v, 1, 4096, o->threads, &o->nthreads);
        else if (!strcmp(key, "--reps"))
            st = parse_int("--reps", v, &o->reps, 1, 100000);
        else if (!strcmp(key, "--seed")) {
            size_t s;
            st = parse_size("--seed", v, &s);
            o->seed = s;
        } else if (!strcmp(key, "--variants"))
            o->variants = v;
        else if (!strcmp(key, "--preset"))
            o->preset = v;
        else if (!strcmp(key, "--plot"))
            o->plot = v;
        else if (!strcmp(key, "--format")) {
            static const char *const n[] = {"table", "csv", "json", "md"};
            int k;
            st = parse_choice("--format", v, n, 4, &k);
            o->format = (out_format)k;
        } else if (!strcmp(key, "--backend")) {
            static const char *const n[] = {"auto", "cpu", "cuda", "all"};
            int k;
            st = parse_choice("--backend", v, n, 4, &k);
            o->backend = (be_choice)k;
        } else if (!strcmp(key, "--op")) {
            static const char *const n[] = {"transpose", "reduce"};
            int k;
            st = parse_choice("--op", v, n, 2, &k);
            o->op = (op_choice)k;
        } else {
            fprintf(stderr, "xpose: unknown option '%s' (see xpose bench --help)\n", key);
            return CLI_EXIT_USAGE;
        }
        if (st)
            return st;
    }
    if ((o->rows == 0) != (o->cols == 0)) {
        fprintf(stderr, "xpose: give both --rows and --cols, or --size\n");
        return CLI_EXIT_USAGE;
    }
    if (o->sweep_max && o->sweep_max < CLI_SWEEP_FIRST) { /* a top below the sweep's first size would run nothing */
        fprintf(stderr, "xpose: --sweep-max must be at least %d (the sweep's first size), got %zu\n", CLI_SWEEP_FIRST,
                o->sweep_max);
        return CLI_EXIT_USAGE;
    }
    if (o->nsizes > 0 && o->rect) { /* which one wins would depend on their order */
        fprintf(stderr, "xpose: --size makes square shapes; give --size or --rows/--cols, not both\n");
        return CLI_EXIT_USAGE;
    }
    if (elem_size_given && o->type_name) {
        fprintf(stderr, "xpose: give --type or --elem-size, not both\n");
        return CLI_EXIT_USAGE;
    }
    const char *foreign = foreign_option(o, o->op == OP_REDUCE, elem_size_given, reduce_op_given);
    if (foreign) {
        fprintf(stderr, "xpose: %s does not apply to --op %s\n", foreign, o->op == OP_REDUCE ? "reduce" : "transpose");
        return CLI_EXIT_USAGE;
    }
    if (o->nthreads > 1 && o->op == OP_REDUCE) {
        fprintf(stderr, "xpose: --op reduce takes a single --threads value\n");
        return CLI_EXIT_USAGE;
    }
    return o->plot ? plot_check(o->plot) : 0;
}
