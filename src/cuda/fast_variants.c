/* fast_variants.c: the registry rows of the production GPU transpose and its tile-order step. */
#include "fast.h"

#define FAST_ROW(params, band, flags, about)                                                               \
    {"fast", params, about, XPOSE_BACKEND_CUDA, XPOSE_FAMILY_TRANSPOSE, band, flags, XP_ELEM_ALL,          \
     XP_CUDA_FN(xp_cuda_fast), NULL}

static const xp_variant rows[] = {
    /* Bands 4 tiles wide measured best for 2-16 byte elements, equal for 1 (docs/notes/fast-v5-*). */
    FAST_ROW("", 4, 0, "16 KB swizzled tiles in bands, 16-byte loads and stores, byte permutes, skewed misaligned rows"),
    FAST_ROW("rows", 0, 0, "fast with tiles taken row by row instead of in bands: the page-locality step"),
};

const xp_variant_table xp_cuda_fast_table = {rows, XP_COUNT_OF(rows)};
