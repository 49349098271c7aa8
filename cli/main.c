/* main.c: the xpose command line: bench (the main job), list, info. */
#include <string.h>
#include "cli.h"
#include "xpose_peers.h"

#ifdef XPOSE_HAVE_CUDA
#define BUILD_CUDA "yes"
#else
#define BUILD_CUDA "no"
#endif

/* What this binary was built with: the library's version and options, and which peers the bench can time. */
static void version(void)
{
    printf("xpose %s (ABI %d)\nbuild: %s, CUDA backend %s, OpenMP %s\npeers: cpu-openblas %s, cublas-geam %s\n",
           xpose_version(), XPOSE_ABI_VERSION, XPOSE_BUILD_TYPE, BUILD_CUDA, XPOSE_BUILD_OPENMP ? "yes" : "no",
           XPOSE_BUILD_OPENBLAS ? "yes" : "no", BUILD_CUDA);
}

static void usage(FILE *f)
{
    fputs("usage: xpose <command> [options]\n"
          "  bench   time and verify transpose variants (the main job; xpose bench --help)\n"
          "  list    every variant, its parameters and whether it can run here\n"
          "  overhead  host-side cost of one call on a small matrix (xpose overhead --help)\n"
          "  info    version, CPU, threads, GPU and driver\n"
          "  --version\n",
          f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    xp_peers_register();
    const char *cmd = argv[1];
    if (!strcmp(cmd, "bench"))
        return cmd_bench(argc - 2, argv + 2);
    if (!strcmp(cmd, "list"))
        return cmd_list(argc - 2, argv + 2);
    if (!strcmp(cmd, "overhead"))
        return cmd_overhead(argc - 2, argv + 2);
    if (!strcmp(cmd, "info"))
        return cmd_info(argc - 2, argv + 2);
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        version();
        return 0;
    }
    fprintf(stderr, "xpose: unknown command '%s' (try xpose --help)\n", cmd);
    return CLI_EXIT_USAGE;
}
