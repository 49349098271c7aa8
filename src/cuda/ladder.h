/* ladder.h: C-ABI launchers of the seeds' GPU transpose ladder (naive ... tiled64), one per registry name. */
#ifndef XP_LADDER_H
#define XP_LADDER_H

#include "xp_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Each takes the registry row's parameters in c->p0 / c->p1 (block shape, or tile and side), launches on
 * the call's stream and returns XPOSE_OK or the launch error; XPOSE_ERR_INVALID for parameters that no
 * kernel was instantiated for. */
int xp_cuda_naive(const xp_call *c);          /* p0 x p1 threads, one element each, walking the source */
int xp_cuda_naive_write(const xp_call *c);    /* p0 x p1 threads, one element each, walking the destination */
int xp_cuda_shared(const xp_call *c);         /* p0 x p0 tile in shared memory, stored as it comes */
int xp_cuda_shared_swizzle(const xp_call *c); /* p0 x p0 tile, diagonal (staggered) shared index */
int xp_cuda_shared_pad(const xp_call *c);     /* p0 x (p0 + 1) tile */
int xp_cuda_unrolled(const xp_call *c);       /* p0 x p0 swizzled tile moved by p0 x p1 threads */
int xp_cuda_tiled64(const xp_call *c);        /* p0 x (p0 + 1) tile moved by p0 x p1 threads */

#ifdef __cplusplus
}
#endif
#endif
