/* fast_variants.c: the registry rows of the production GPU transpose and its tile-order steps. */
#include "fast.h"

#define FAST_ROW(params, band, flags, about)                                                                           \
    {                                                                                                                  \
        "fast", params, about, XPOSE_BACKEND_CUDA, XPOSE_FAMILY_TRANSPOSE, band, flags, XP_ELEM_ALL,                   \
            XP_CUDA_FN(xp_cuda_fast), NULL, 0, NULL                                                                    \
    }

static const xp_variant rows[] = {
    /* Tiles walked down one tile column at a time measured best for every element size (docs/tuning.md, "fast:
     * column walks"), except for calls of few tiles (XP_FAST_AUTO_ORDER, XP_FAST_AUTO_TILES). */
    FAST_ROW("", 1, XP_FAST_AUTO_ORDER | XP_FAST_AUTO_TILES,
             "tiles with 256-byte source segments walked down tile columns, 16-byte loads and stores, byte permutes, "
             "shifted or skewed misaligned rows, small tiles for small calls, copies for vectors"),
    FAST_ROW("one-walk", 1, XP_FAST_AUTO_ORDER | XP_FAST_AUTO_TILES | XP_FAST_ONE_WALK,
             "fast with one column walk at every source pitch (the order before interleaved walks)"),
    FAST_ROW("bands4", 4, 0, "fast with tiles walked in bands of 4 tile columns (the order before column walks)"),
    FAST_ROW("small", 1, XP_FAST_SMALL_TILES,
             "fast with the smallest vector tiles (4 KB for 4-16 byte elements): more blocks for small matrices"),
    FAST_ROW("rows", 0, 0, "fast with tiles taken row by row: the page-locality step"),
};

const xp_variant_table xp_cuda_fast_table = {rows, XP_COUNT_OF(rows)};
