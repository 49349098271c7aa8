/* cpu_fast_narrow.c: cpu-fast's kernels for narrow matrices, rows of 2-4 elements narrower than 16 bytes (HWC -> CHW
 * images, pairs): the block kernels need 16 bytes of a row and leave such matrices to the scalar rim. Here each chunk of
 * XPF_NARROW_ROWS rows is split into its C destination rows by a loop over whole source rows, which the compiler turns
 * into permutes for each instruction set. */
#include <stdint.h>
#include "cpu_fast.h"

/* Chunk of n rows of C elements (dense: the source pitch is C) into C rows of the staging buffer, XPF_NARROW_ROWS
 * elements apart. */
#define XPN_BODY(TY, C)                                                                                                \
    {                                                                                                                  \
        const TY *s = (const TY *)(const void *)src;                                                                   \
        TY *d = (TY *)(void *)buf;                                                                                     \
        for (size_t k = 0; k < n; k++)                                                                                 \
            for (size_t c = 0; c < C; c++)                                                                             \
                d[c * XPF_NARROW_ROWS + k] = s[k * C + c];                                                             \
    }

#define XPN_FN(TARGET, SET, N, TY, C)                                                                                  \
    TARGET static void xpn_##SET##_##N##_##C(const unsigned char *src, size_t n, unsigned char *buf) XPN_BODY(TY, C)

/* One set's kernels by [element index 0..2][C - 2]; NULL where none (4-byte rows of 4 are a whole SIMD column). */
#define XPN_SET(TARGET, SET)                                                                                           \
    XPN_FN(TARGET, SET, 1, uint8_t, 2)                                                                                 \
    XPN_FN(TARGET, SET, 1, uint8_t, 3)                                                                                 \
    XPN_FN(TARGET, SET, 1, uint8_t, 4)                                                                                 \
    XPN_FN(TARGET, SET, 2, uint16_t, 2)                                                                                \
    XPN_FN(TARGET, SET, 2, uint16_t, 3)                                                                                \
    XPN_FN(TARGET, SET, 2, uint16_t, 4)                                                                                \
    XPN_FN(TARGET, SET, 4, uint32_t, 2)                                                                                \
    XPN_FN(TARGET, SET, 4, uint32_t, 3)                                                                                \
    static const xp_fast_narrow_fn xpn_##SET[3][3] = {{xpn_##SET##_1_2, xpn_##SET##_1_3, xpn_##SET##_1_4},             \
                                                      {xpn_##SET##_2_2, xpn_##SET##_2_3, xpn_##SET##_2_4},             \
                                                      {xpn_##SET##_4_2, xpn_##SET##_4_3, NULL}};

XPN_SET(, base)
#if XP_FAST_X86
XPN_SET(__attribute__((target("avx2"))), avx2)
XPN_SET(__attribute__((target("avx512f,avx512bw,avx512vbmi"))), avx512)
#endif

xp_fast_narrow_fn xp_fast_narrow_pick(const xp_fast_isa *isa, size_t es, size_t cols)
{
    if (es > 4 || cols < 2 || cols > 4)
        return NULL;
    const int e = xp_elem_index(es), c = (int)cols - 2;
#if XP_FAST_X86
    /* The set cpu-fast picked; byte permutes across a whole AVX-512 register need VBMI, else AVX2's. */
    __builtin_cpu_init();
    if (isa->width == 64 && __builtin_cpu_supports("avx512vbmi"))
        return xpn_avx512[e][c];
    if (isa->width >= 32)
        return xpn_avx2[e][c];
#endif
    return isa->width ? xpn_base[e][c] : NULL; /* scalar (XPOSE_CPU_ISA=scalar): the portable rim, as before */
}
