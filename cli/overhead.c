/* overhead.c: `xpose overhead`: what one call costs on the host, for shapes so small that the data costs nothing,
 * against a plain loop (CPU) and a bare cudaMemcpyAsync (GPU). A benchmark, not a test: nothing here gates. */
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void overhead_usage(FILE *f)
{
    fputs("usage: xpose overhead [options]   host-side cost of one call on a small matrix, and of planning a\n"
          "                                  rank-4 permutation (xpose_permute_plan_create)\n"
          "  --rows R --cols C | --size N   shape (default 8 x 8)\n"
          "  --type T                       element type, as in xpose bench (default float)\n"
          "  --backend cpu|cuda|all         (default all: cuda is skipped where it cannot run)\n"
          "  --calls K                      calls per timed round (default 1000)\n"
          "  --rounds K                     timed rounds; the median round is reported (default 51)\n"
          "  --csv                          CSV (backend,call,rows,cols,elem_size,us_per_call) instead of a table\n",
          f);
}

/* The reference: the seeds' nested loop, written out for 4-byte elements and byte-wise for the rest. */
static void plain_loop(const xpose_layout *l, const void *src_, void *dst_)
{
    if (l->elem_size == 4) {
        const uint32_t *src = src_;
        uint32_t *dst = dst_;
        for (size_t i = 0; i < l->rows; i++)
            for (size_t j = 0; j < l->cols; j++)
                dst[j * l->rows + i] = src[i * l->cols + j];
        return;
    }
    const unsigned char *src = src_;
    unsigned char *dst = dst_;
    for (size_t i = 0; i < l->rows; i++)
        for (size_t j = 0; j < l->cols; j++)
            memcpy(dst + (j * l->rows + i) * l->elem_size, src + (i * l->cols + j) * l->elem_size, l->elem_size);
}

/* One CPU call of kind `which`: 0 xpose_transpose, 1 the plain loop, 2 the same transpose as a permutation (1,0) in
 * one call (xpose_permute: plans on its stack, then the same path), 3 creating and destroying a rank-4 plan
 * (NCHW -> NHWC of 2 x 3 x rows x cols): the planner's cost, which issue 36 bounds at 20 us. */
static int cpu_call(int which, const xpose_layout *l, const void *src, void *dst)
{
    const size_t ext2[2] = {l->rows, l->cols}, ext4[4] = {2, 3, l->rows, l->cols};
    static const int t[2] = {1, 0}, nhwc[4] = {0, 2, 3, 1};
    xpose_permute_plan p = NULL;
    int st = XPOSE_OK;
    switch (which) {
    case 0: return xpose_transpose(XPOSE_BACKEND_CPU, l, src, dst);
    case 1: plain_loop(l, src, dst); return XPOSE_OK;
    case 2: return xpose_permute(XPOSE_BACKEND_CPU, l->elem_size, 2, ext2, t, src, NULL, dst, NULL);
    default:
        st = xpose_permute_plan_create(&p, XPOSE_BACKEND_CPU, l->elem_size, 4, ext4, nhwc, NULL, NULL);
        xpose_permute_plan_destroy(p);
        return st;
    }
}

/* Median over rounds of (time of `calls` calls) / calls, in microseconds; a call that fails ends it with its status. */
static int time_cpu(int which, const xpose_layout *l, const void *src, void *dst, int calls, int rounds, double *us)
{
    double *t = malloc(sizeof(double) * (size_t)rounds);
    if (!t)
        return XPOSE_ERR_NO_MEMORY;
    for (int r = 0; r < rounds; r++) {
        double t0 = now_ms();
        for (int k = 0; k < calls; k++) {
            int st = cpu_call(which, l, src, dst);
            if (st != XPOSE_OK) {
                free(t);
                return st;
            }
            __asm__ volatile("" ::: "memory"); /* keep the loop's stores: each call is a real transpose */
        }
        t[r] = (now_ms() - t0) * 1e3 / calls;
    }
    double spread;
    time_stats(t, rounds, us, &spread);
    free(t);
    return XPOSE_OK;
}

static int csv;

static void print_row(const char *backend, const char *call, const xpose_layout *l, double us)
{
    if (csv)
        printf("%s,\"%s\",%zu,%zu,%zu,%.3f\n", backend, call, l->rows, l->cols, l->elem_size,
               us); /* names hold commas */
    else
        printf("%-8s %-40s %6zux%-6zu %5zu %10.3f\n", backend, call, l->rows, l->cols, l->elem_size, us);
}

int cmd_overhead(int argc, char **argv)
{
    static const struct option opts[] = {{"rows", required_argument, 0, 'r'},    {"cols", required_argument, 0, 'c'},
                                         {"size", required_argument, 0, 's'},    {"type", required_argument, 0, 't'},
                                         {"backend", required_argument, 0, 'b'}, {"calls", required_argument, 0, 'k'},
                                         {"rounds", required_argument, 0, 'n'},  {"help", no_argument, 0, 'h'},
                                         {"csv", no_argument, 0, 'v'},           {0, 0, 0, 0}};
    xpose_layout l = {.rows = 8, .cols = 8, .elem_size = 4};
    size_t calls = 1000, rounds = 51, v;
    const char *backend = "all";
    int c, st = 0;
    optind = 0; /* argv[0] is the first option: getopt_long skips it */
    opterr = 0;
    char **args = argv - 1; /* getopt wants a program name first */
    while ((c = getopt_long(argc + 1, args, "h", opts, NULL)) != -1 && st == 0) {
        switch (c) {
        case 'r': st = parse_size("--rows", optarg, &l.rows); break;
        case 'c': st = parse_size("--cols", optarg, &l.cols); break;
        case 's': st = parse_size("--size", optarg, &v), l.rows = l.cols = v; break;
        case 't': st = parse_type(optarg, &l.elem_size); break;
        case 'k': st = parse_size("--calls", optarg, &calls); break;
        case 'n': st = parse_size("--rounds", optarg, &rounds); break;
        case 'b': backend = optarg; break;
        case 'v': csv = 1; break;
        case 'h': overhead_usage(stdout); return 0;
        default:
            fprintf(stderr, "xpose overhead: unknown or incomplete option '%s' (try xpose overhead --help)\n",
                    args[optind - 1]);
            return CLI_EXIT_USAGE;
        }
    }
    if (st)
        return st;
    if (optind <= argc) {
        fprintf(stderr, "xpose overhead: unexpected argument '%s'\n", args[optind]);
        return CLI_EXIT_USAGE;
    }
    int cpu = !strcmp(backend, "cpu") || !strcmp(backend, "all"),
        cuda = !strcmp(backend, "cuda") || !strcmp(backend, "all");
    if (!cpu && !cuda) {
        fprintf(stderr, "xpose overhead: --backend takes cpu, cuda or all, got '%s'\n", backend);
        return CLI_EXIT_USAGE;
    }
    if (l.rows == 0 || l.cols == 0 || l.rows > 4096 || l.cols > 4096 || calls < 1 || calls > 1000000 || rounds < 1 ||
        rounds > 10001) {
        fprintf(stderr, "xpose overhead: rows and cols 1..4096, --calls 1..1000000, --rounds 1..10001\n");
        return CLI_EXIT_USAGE;
    }
    char why[256];
    if (!strcmp(backend, "cuda") && !gpu_ready(why, sizeof why)) {
        fprintf(stderr, "xpose overhead: --backend cuda: %s\n", why);
        return CLI_EXIT_USAGE;
    }
    if (csv)
        printf("backend,call,rows,cols,elem_size,us_per_call\n");
    else
        printf("%-8s %-40s %13s %5s %10s\n", "backend", "call", "shape", "elem", "us/call");
    if (cpu) {
        size_t bytes = l.rows * l.cols * l.elem_size;
        void *src = aligned_alloc(64, (bytes + 63) / 64 * 64), *dst = aligned_alloc(64, (bytes + 63) / 64 * 64);
        double us[4];
        if (!src || !dst)
            st = XPOSE_ERR_NO_MEMORY;
        if (st == 0) {
            for (size_t i = 0; i < bytes; i++)
                ((unsigned char *)src)[i] = (unsigned char)(i * 131 + 7);
            for (int which = 0; which < 4 && st == 0; which++)
                st = time_cpu(which, &l, src, dst, (int)calls, (int)rounds, &us[which]);
        }
        free(src);
        free(dst);
        if (st) {
            fprintf(stderr, "xpose overhead: cpu: %s\n", xpose_strerror(st));
            return 1;
        }
        print_row("cpu", "xpose_transpose", &l, us[0]);
        print_row("cpu", "plain nested loop", &l, us[1]);
        print_row("cpu", "xpose_permute (1,0), one call", &l, us[2]);
        print_row("cpu", "permute plan create+destroy, rank 4", &l, us[3]);
    }
    if (cuda && gpu_ready(why, sizeof why)) {
        double us[4];
        st = gpu_overhead(&l, (int)calls, (int)rounds, us);
        if (st) {
            fprintf(stderr, "xpose overhead: cuda: %s\n", xpose_strerror(st));
            return 1;
        }
        print_row("cuda", "xpose_transpose_cuda (host side, async)", &l, us[0]);
        print_row("cuda", "cudaMemcpyAsync d2d (host side, async)", &l, us[1]);
        print_row("cuda", "xpose_transpose (synchronous round trip)", &l, us[2]);
        print_row("cuda", "xpose's checks alone (no launch)", &l, us[3]);
    } else if (cuda) {
        fprintf(stderr, "xpose overhead: cuda skipped: %s\n", why);
    }
    return 0;
}
