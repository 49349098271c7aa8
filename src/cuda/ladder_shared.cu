/* ladder_shared.cu: the shared-memory steps, one element per thread in a square tile: shared (no care for
 * banks, seed 000 1.3), shared-swizzle (diagonal index, seed 000 1.4), shared-pad (one spare column,
 * seeds 001, 003, 004). */
#include "ladder_tile.cuh"

/* TILE x TILE threads, so SIDE = TILE: each thread moves one element. */
template <int LAYOUT> static int shared_step(const xp_call *c)
{
    switch (c->p0) {
    case 8: return xp_tile_launch<8, 8, LAYOUT>(c);
    case 16: return xp_tile_launch<16, 16, LAYOUT>(c);
    case 32: return xp_tile_launch<32, 32, LAYOUT>(c);
    }
    return XPOSE_ERR_INVALID;
}

extern "C" int xp_cuda_shared(const xp_call *c) { return shared_step<XP_TILE_PLAIN>(c); }
extern "C" int xp_cuda_shared_swizzle(const xp_call *c) { return shared_step<XP_TILE_SWIZZLE>(c); }
extern "C" int xp_cuda_shared_pad(const xp_call *c) { return shared_step<XP_TILE_PAD>(c); }
