/* dist_none.c: `xpose bench --op dist` in a build without NCCL (or without CUDA): says so and exits 2. */
#include "cli.h"

int bench_dist(const bench_opts *o, const bench_env *env, bench_result *res)
{
    (void)o, (void)env, (void)res;
    fprintf(stderr, "xpose: --op dist: this build has no libxpose_dist; it needs CUDA and NCCL (nccl.h and libnccl) "
                    "when CMake runs\n");
    return CLI_EXIT_USAGE;
}
