/* fast.h: the launcher of the production GPU transpose (src/cuda/fast.cu). */
#ifndef XP_CUDA_FAST_H
#define XP_CUDA_FAST_H

#include "xp_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

int xp_cuda_fast(const xp_call *c);

#ifdef __cplusplus
}
#endif
#endif
