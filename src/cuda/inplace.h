/* inplace.h: what the in-place transposes' CUDA files share: the skew form of the rectangles' column permutation. */
#ifndef XP_CUDA_INPLACE_H
#define XP_CUDA_INPLACE_H

#include "../core/xp_inplace_math.h"
#include "../core/xp_internal.h"

/* Whether the skew form (inplace_skew.cu) takes the column permutation of plan k: gcd 1, at least 512 rows, and row
 * pieces whose permutation has cycles of at most 4096. */
int xp_skew_suits(const xp_ckg *k);

/* Plan k's column permutation (gather: the forward pass; scatter: the inverse) over c's batch by the skew form. */
int xp_skew_perm(const xp_inplace_call *c, const xp_ckg *k, int gather, int sms);

#endif
