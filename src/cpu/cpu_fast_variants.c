/* cpu_fast_variants.c: the registry rows of cpu-fast and the OpenBLAS peer (filled in as the variants land). */
#include "../core/xp_internal.h"

const xp_variant_table xp_cpu_fast_table = {NULL, 0};
