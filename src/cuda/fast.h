/* fast.h: the launcher of the production GPU transpose (src/cuda/fast.cu). */
#ifndef XP_CUDA_FAST_H
#define XP_CUDA_FAST_H

#include "xp_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* p0 of a fast row: tile order, bands of p0 tile columns (0: row by row; 1: down one tile column at a time).
 * p1: these flags. */
enum {
    XP_FAST_SMALL_TILES = 1, /* the smallest vector tiles (SmallTile) instead of FastTile */
    XP_FAST_AUTO_ORDER = 2,  /* row by row when the whole call has few tiles of 1-4 byte elements (FAST_FEW_TILES) */
    XP_FAST_AUTO_TILES = 4,  /* SmallTile when the whole call has few FastTile tiles (SmallTile's AUTO_MAX), and
                              * no tiles at all where the call is a copy (xp_shape_is_copy) */
    XP_FAST_ONE_WALK = 8,    /* one column walk even where the source pitch asks for several (walk_count_log2) */
};

int xp_cuda_fast(const xp_call *c);

#ifdef __cplusplus
}
#endif
#endif
