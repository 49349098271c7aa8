/* main.c: the xpose command line: bench (the main job), list, overhead, explain, info, --version. */
#include <string.h>
#include "cli.h"
#include "xpose_peers.h"

static void usage(FILE *f)
{
    fputs("usage: xpose <command> [options]\n"
          "  bench   time and verify transpose variants (the main job; xpose bench --help)\n"
          "  list    every variant, its parameters and whether it can run here\n"
          "  overhead  host-side cost of one call on a small matrix (xpose overhead --help)\n"
          "  explain VARIANT|--all  memory traffic a GPU ladder variant makes, modelled on the CPU (xpose explain "
          "--help)\n"
          "  info    version, CPU, threads, GPU and driver\n"
          "  --version   version, commit, build type, CUDA architectures, OpenMP and the peers built\n",
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
        return cmd_bench(argc - 1, argv + 1); /* from "bench" on: getopt_long's argv[0] */
    if (!strcmp(cmd, "list"))
        return cmd_list(argc - 2, argv + 2);
    if (!strcmp(cmd, "overhead"))
        return cmd_overhead(argc - 2, argv + 2);
    if (!strcmp(cmd, "explain"))
        return cmd_explain(argc - 2, argv + 2);
    if (!strcmp(cmd, "info"))
        return cmd_info(argc - 2, argv + 2);
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        print_version(stdout);
        return 0;
    }
    fprintf(stderr, "xpose: unknown command '%s' (try xpose --help)\n", cmd);
    return CLI_EXIT_USAGE;
}
