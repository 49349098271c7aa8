/* fast_variants.c: the registry row of the production GPU transpose. */
#include "fast.h"

static const xp_variant rows[] = {
    {"fast", "", "16 KB swizzled tiles, 16-byte loads and stores, register permutes for small elements",
     XPOSE_BACKEND_CUDA, XPOSE_FAMILY_TRANSPOSE, 0, 0, XP_ELEM_ALL, XP_CUDA_FN(xp_cuda_fast), NULL},
};

const xp_variant_table xp_cuda_fast_table = {rows, XP_COUNT_OF(rows)};
