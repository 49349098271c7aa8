/* cpu_fast_variants.c: the registry rows of cpu-fast, the CPU production transpose. */
#include "cpu_fast.h"

static const xp_variant rows[] = {
    {"cpu-fast", "", "threads over L1 tiles, SIMD register transposes, streaming stores past the caches",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, 0, 0, XP_ELEM_ALL, xp_cpu_fast, NULL, 0, NULL},
    {"cpu-fast", "long", "lab: tall tiles (32-64 source rows) where cpu-fast takes short ones (8-16)",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, XPF_TILES_LONG, 0, XP_ELEM_ALL, xp_cpu_fast, NULL, 0, NULL},
};

const xp_variant_table xp_cpu_fast_table = {rows, XP_COUNT_OF(rows)};
