/* inplace.h: what the in-place transposes' CUDA files share: the cycle leader search, the shared memory opt-in, and
 * the skew form of the rectangles' column permutation. */
#ifndef XP_CUDA_INPLACE_H
#define XP_CUDA_INPLACE_H

#include "../core/xp_inplace_math.h"
#include "../core/xp_internal.h"

/* Whether x0 leads its cycle (is its smallest member), and the cycle's length: one warp, its lanes 32 members at a
 * time, until one is smaller or the cycle closes (most positions stop within a round). step(z, t): the member t (1 to
 * 32) steps on from z. */
#ifdef __CUDACC__
template <class Step>
__device__ __forceinline__ unsigned xp_cycle_leads(unsigned long long x0, unsigned lane, Step step)
{
    unsigned long long z = step(x0, lane + 1);
    for (unsigned r = 0;; r += 32) {
        const unsigned below = __ballot_sync(0xffffffffu, z < x0), back = __ballot_sync(0xffffffffu, z == x0);
        if (back) {
            const unsigned b = __ffs(back) - 1;
            return below & ((1u << b) - 1) ? 0 : r + b + 1;
        }
        if (below)
            return 0;
        z = step(z, 32);
    }
}

/* Opts kernel fn in to smem bytes of dynamic shared memory where they pass the default 48 KiB: XPOSE_OK, or
 * XPOSE_ERR_CUDA with the error cleared. */
static inline int xp_smem_optin(const void *fn, size_t smem)
{
    if (smem > 48 * 1024 &&
        cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != cudaSuccess) {
        cudaGetLastError();
        return XPOSE_ERR_CUDA;
    }
    return XPOSE_OK;
}
#endif

/* Whether the skew form (inplace_skew.cu) takes the column permutation of plan k: gcd 1, at least 512 rows, and row
 * pieces whose permutation has cycles of at most 4096. Returns the bound on those cycles (the same for either
 * direction), 0 where the form does not apply. */
unsigned xp_skew_suits(const xp_ckg *k);

/* Plan k's column permutation (gather: the forward pass; scatter: the inverse) over c's batch by the skew form;
 * order: xp_skew_suits(k). */
int xp_skew_perm(const xp_inplace_call *c, const xp_ckg *k, int gather, unsigned order, int sms);

#endif
