/* main.c: the xpose command line: bench (the main job), list, info. */
#include <string.h>
#include "cli.h"

static void usage(FILE *f)
{
    fputs("usage: xpose <command> [options]\n"
          "  bench   time and verify transpose variants (the main job; xpose bench --help)\n"
          "  list    every variant, its parameters and whether it can run here\n"
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
    const char *cmd = argv[1];
    if (!strcmp(cmd, "bench"))
        return cmd_bench(argc - 2, argv + 2);
    if (!strcmp(cmd, "list"))
        return cmd_list(argc - 2, argv + 2);
    if (!strcmp(cmd, "info"))
        return cmd_info(argc - 2, argv + 2);
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("xpose %s\n", xpose_version());
        return 0;
    }
    fprintf(stderr, "xpose: unknown command '%s' (try xpose --help)\n", cmd);
    return CLI_EXIT_USAGE;
}
