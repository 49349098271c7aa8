/* reduce_variants.c: the registry rows of GPU reductions (filled in as the variants land). */
#include "../core/xp_internal.h"

const xp_variant_table xp_cuda_reduce_table = {NULL, 0};
