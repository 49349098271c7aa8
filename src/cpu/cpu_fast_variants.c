/* cpu_fast_variants.c: the registry rows of cpu-fast, the CPU production transpose. */
#include "cpu_fast.h"

static const xp_variant rows[] = {
    {"cpu-fast", "", "threads over L1 tiles, SIMD register transposes, streaming stores past the caches",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, 0, 0, XP_ELEM_ALL, xp_cpu_fast, NULL, 0, NULL},
    {"cpu-fast", "long", "lab: tall tiles (32-64 source rows) where cpu-fast takes short or middle ones",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, XPF_TILES_LONG, 0, XP_ELEM_ALL, xp_cpu_fast, NULL, 0, NULL},
    {"cpu-fast", "mid", "lab: middle tiles (32 source rows of 2-4 bytes, 16 of 8-16), cpu-fast's own off AMD cores",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, XPF_TILES_MID, 0, XP_ELEM_ALL, xp_cpu_fast, NULL, 0, NULL},
    {"cpu-fast", "short", "lab: short tiles (16 source rows of 2-4 bytes, 8 of 8-16), cpu-fast's own on AMD cores",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, XPF_TILES_SHORT, 0, XP_ELEM_ALL, xp_cpu_fast, NULL, 0, NULL},
};

const xp_variant_table xp_cpu_fast_table = {rows, XP_COUNT_OF(rows)};
