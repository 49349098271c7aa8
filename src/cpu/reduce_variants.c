/* reduce_variants.c: the registry rows of CPU reductions. */
#include "../core/xp_internal.h"

int xp_cpu_reduce(const xp_reduce_call *c); /* cpu_reduce.c */

static const xp_variant rows[] = {
    {"cpu-reduce", "", "fixed slices over OpenMP threads, 8 lanes each; float sums in double; deterministic",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_REDUCE, 0, 0, 0, NULL, xp_cpu_reduce, 0, NULL},
};

const xp_variant_table xp_cpu_reduce_table = {rows, XP_COUNT_OF(rows)};
