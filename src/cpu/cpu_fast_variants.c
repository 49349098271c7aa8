/* cpu_fast_variants.c: the registry rows of cpu-fast (the CPU production transpose) and the OpenBLAS peer. */
#include "cpu_fast.h"

#ifdef XPOSE_HAVE_OPENBLAS
#define XP_OPENBLAS_FN xp_cpu_openblas
#else
#define XP_OPENBLAS_FN NULL
#endif

static const xp_variant rows[] = {
    {"cpu-fast", "", "threads over L1 tiles, SIMD register transposes, streaming stores past the caches",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, 0, 0, XP_ELEM_ALL, xp_cpu_fast, NULL, 0},
    {"cpu-fast", "short", "lab: the AMD cores' short tiles (8-16 source rows) on any CPU",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, XPF_TILES_SHORT, 0, XP_ELEM_ALL, xp_cpu_fast, NULL, 0},
    {"cpu-fast", "long", "lab: the other cores' tiles (32-64 source rows) on any CPU",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, XPF_TILES_LONG, 0, XP_ELEM_ALL, xp_cpu_fast, NULL, 0},
    {"cpu-openblas", "",
     "OpenBLAS cblas_?omatcopy (row-major, transposed, alpha 1): the CPU library peer; floating-point values, not bits",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, 0, 0, XP_ELEM_4_8_16, XP_OPENBLAS_FN, NULL, 1}, /* not threaded */
};

const xp_variant_table xp_cpu_fast_table = {rows, XP_COUNT_OF(rows)};
