/* xp_cuda.h: C-ABI launchers of the CUDA variants, shared by the .cu files and the registry tables. */
#ifndef XP_CUDA_H
#define XP_CUDA_H

#include "../core/xp_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registry tables name launchers through this, so they compile (as unavailable rows) without CUDA. */
#ifdef XPOSE_HAVE_CUDA
#define XP_CUDA_FN(f) f
#else
#define XP_CUDA_FN(f) NULL
#endif

/* The bandwidth bound every GPU row is compared to. */
int xp_cuda_memcpy(const xp_call *c);

/* The in-place transposes (inplace.cu): square tile pairs, and the rectangular decomposition. */
int xp_cuda_inplace_square(xp_inplace_call *c);
int xp_cuda_inplace_rect(xp_inplace_call *c);

#ifdef __cplusplus
}
#endif
#endif
