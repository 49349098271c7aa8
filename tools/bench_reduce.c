/* bench_reduce.c: `xpose bench --op reduce` (in progress: see issue 5). */
#include "cli.h"

int bench_reduce(const bench_opts *o, bench_result *res)
{
    (void)o;
    (void)res;
    fprintf(stderr, "xpose: --op reduce is not available in this build yet\n");
    return CLI_EXIT_USAGE;
}
