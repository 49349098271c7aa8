/* ladder_unrolled.cu: the steps that give each thread several elements: unrolled (TILE x SIDE threads on
 * the swizzled tile, seed 000 1.5) and tiled64 (64 x 16 threads on the padded 64 x 65 tile, seed 003). */
#include "ladder_tile.cuh"

extern "C" int xp_cuda_unrolled(const xp_call *c)
{
    if (c->p0 == 32 && c->p1 == 8)
        return xp_tile_launch<32, 8, XP_TILE_SWIZZLE>(c);
    if (c->p0 == 32 && c->p1 == 16)
        return xp_tile_launch<32, 16, XP_TILE_SWIZZLE>(c);
    if (c->p0 == 64 && c->p1 == 16)
        return xp_tile_launch<64, 16, XP_TILE_SWIZZLE>(c);
    return XPOSE_ERR_INVALID;
}

extern "C" int xp_cuda_tiled64(const xp_call *c)
{
    if (c->p0 == 64 && c->p1 == 16)
        return xp_tile_launch<64, 16, XP_TILE_PAD>(c);
    return XPOSE_ERR_INVALID;
}
