/* ladder_variants.c: the registry rows of the seeds' GPU transpose ladder (filled in as the variants land). */
#include "../core/xp_internal.h"

const xp_variant_table xp_cuda_ladder_table = {NULL, 0};
