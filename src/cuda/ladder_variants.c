/* ladder_variants.c: the registry rows of the seeds' GPU transpose ladder, in the order the steps build on
 * each other. The first row of a name is what the bare name picks. */
#include "ladder.h"

#define LADDER(name, params, p0, p1, fn, about)                                                                        \
    {                                                                                                                  \
        name, params, about, XPOSE_BACKEND_CUDA, XPOSE_FAMILY_TRANSPOSE, p0, p1, XP_ELEM_ALL, XP_CUDA_FN(fn), NULL, 0, \
            NULL                                                                                                       \
    }

/* What each step changes over the one before it. */
#define NAIVE_WRITE "threads walk the destination: coalesced writes, strided reads"
#define SHARED "stage a tile in shared memory: reads and writes both coalesced"
#define SWIZZLE "diagonal (staggered) shared index: no bank conflicts"
#define PAD "shared tile padded by one column: no bank conflicts"
#define UNROLLED "swizzled tile moved by TILE x SIDE threads, TILE/SIDE elements each"

static const xp_variant rows[] = {
    LADDER("naive", "16x16", 16, 16, xp_cuda_naive, "one element per thread: coalesced reads, strided writes"),
    LADDER("naive", "8x8", 8, 8, xp_cuda_naive, "8x8 blocks: a warp writes 4 floats per 32-byte sector, not 2"),
    LADDER("naive", "32x8", 32, 8, xp_cuda_naive, "32x8 blocks: a warp reads one 128-byte row, writes 32 sectors"),
    LADDER("naive-write", "16x16", 16, 16, xp_cuda_naive_write, NAIVE_WRITE),
    LADDER("naive-write", "8x8", 8, 8, xp_cuda_naive_write, NAIVE_WRITE),
    LADDER("shared", "8", 8, 0, xp_cuda_shared, SHARED),
    LADDER("shared", "16", 16, 0, xp_cuda_shared, SHARED),
    LADDER("shared", "32", 32, 0, xp_cuda_shared, SHARED),
    LADDER("shared-swizzle", "8", 8, 0, xp_cuda_shared_swizzle, SWIZZLE),
    LADDER("shared-swizzle", "16", 16, 0, xp_cuda_shared_swizzle, SWIZZLE),
    LADDER("shared-swizzle", "32", 32, 0, xp_cuda_shared_swizzle, SWIZZLE),
    LADDER("shared-pad", "8", 8, 0, xp_cuda_shared_pad, PAD),
    LADDER("shared-pad", "16", 16, 0, xp_cuda_shared_pad, PAD),
    LADDER("shared-pad", "32", 32, 0, xp_cuda_shared_pad, PAD),
    LADDER("unrolled", "32x8", 32, 8, xp_cuda_unrolled, UNROLLED),
    LADDER("unrolled", "32x16", 32, 16, xp_cuda_unrolled, UNROLLED),
    LADDER("unrolled", "64x16", 64, 16, xp_cuda_unrolled, UNROLLED),
    LADDER("tiled64", "64x16", 64, 16, xp_cuda_tiled64, "64x65 padded tile, 64x16 threads: 4 elements each"),
};

const xp_variant_table xp_cuda_ladder_table = {rows, XP_COUNT_OF(rows)};
