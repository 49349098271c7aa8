/* cpu_fast_narrow.c: cpu-fast's kernels for narrow matrices, rows of 2-8 elements (HWC -> CHW images, pairs), and for
 * wide ones, 2-8 rows (CHW -> HWC): the block kernels need 16 bytes of a row and leave such matrices to the rim.
 * Here each chunk of XPN_ROWS rows is split into its C destination rows, or C rows' chunks interleaved into one run
 * of destination rows, by loops the compiler turns into permutes for each instruction set. */
#include <stdint.h>
#include "cpu_fast.h"

/* The kernels ask for the source XPN_AHEAD bytes on, a line at a time, into L1: the one stream they read is the core
 * prefetchers' to follow, but those do not run far enough ahead of loads that shuffles separate ("cpu-fast: narrow
 * asks ahead"). */
#define XPN_AHEAD 8192

/* Chunk of n rows of C elements (dense: the source pitch is C) into C rows of the staging buffer, XPN_ROWS(es)
 * elements apart; 64 rows (C element sizes' lines) a step, after asking for their lines XPN_AHEAD on. */
#define XPN_BODY(TY, C)                                                                                                \
    {                                                                                                                  \
        const TY *s = (const TY *)(const void *)src;                                                                   \
        TY *d = (TY *)(void *)buf;                                                                                     \
        for (size_t k0 = 0; k0 < n; k0 += 64) {                                                                        \
            for (size_t l = 0; l < C * sizeof(TY); l++)                                                                \
                __builtin_prefetch((const void *)((uintptr_t)src + k0 * C * sizeof(TY) + XPN_AHEAD + l * 64), 0, 3);   \
            const size_t k1 = n - k0 < 64 ? n : k0 + 64;                                                               \
            for (size_t k = k0; k < k1; k++)                                                                           \
                for (size_t c = 0; c < C; c++)                                                                         \
                    d[c * XPN_ROWS(sizeof(TY)) + k] = s[k * C + c];                                                    \
        }                                                                                                              \
    }

#define XPN_FN(TARGET, SET, N, TY, C)                                                                                  \
    TARGET static void xpn_##SET##_##N##_##C(const unsigned char *src, size_t n, unsigned char *buf) XPN_BODY(TY, C)

/* The C rows' chunks of n elements (rows lds bytes apart) interleaved into buf; 64 elements a step, after asking for
 * each row's lines XPN_AHEAD on. */
#define XPW_BODY(TY, C)                                                                                                \
    {                                                                                                                  \
        TY *d = (TY *)(void *)buf;                                                                                     \
        for (size_t k0 = 0; k0 < n; k0 += 64) {                                                                        \
            for (size_t c = 0; c < C; c++)                                                                             \
                for (size_t l = 0; l < sizeof(TY); l++)                                                                \
                    __builtin_prefetch(                                                                                \
                        (const void *)((uintptr_t)src + c * lds + k0 * sizeof(TY) + XPN_AHEAD + l * 64), 0, 3);        \
            const size_t k1 = n - k0 < 64 ? n : k0 + 64;                                                               \
            for (size_t k = k0; k < k1; k++)                                                                           \
                for (size_t c = 0; c < C; c++)                                                                         \
                    d[k * C + c] = ((const TY *)(const void *)(src + c * lds))[k];                                     \
        }                                                                                                              \
    }

#define XPW_FN(TARGET, SET, N, TY, C)                                                                                  \
    TARGET static void xpw_##SET##_##N##_##C(const unsigned char *src, size_t lds, size_t n, unsigned char *buf)       \
        XPW_BODY(TY, C)

/* One set's kernels by [element index][C - 2]: C up to 8 where rows of C elements are under a line, else 4. */
#define XPN_CMAX 8
#define XPN_ALL(X, TARGET, SET)                                                                                        \
    X(TARGET, SET, 1, uint8_t, 2)                                                                                      \
    X(TARGET, SET, 1, uint8_t, 3)                                                                                      \
    X(TARGET, SET, 1, uint8_t, 4)                                                                                      \
    X(TARGET, SET, 1, uint8_t, 5)                                                                                      \
    X(TARGET, SET, 1, uint8_t, 6)                                                                                      \
    X(TARGET, SET, 1, uint8_t, 7)                                                                                      \
    X(TARGET, SET, 1, uint8_t, 8)                                                                                      \
    X(TARGET, SET, 2, uint16_t, 2)                                                                                     \
    X(TARGET, SET, 2, uint16_t, 3)                                                                                     \
    X(TARGET, SET, 2, uint16_t, 4)                                                                                     \
    X(TARGET, SET, 2, uint16_t, 5)                                                                                     \
    X(TARGET, SET, 2, uint16_t, 6)                                                                                     \
    X(TARGET, SET, 2, uint16_t, 7)                                                                                     \
    X(TARGET, SET, 2, uint16_t, 8)                                                                                     \
    X(TARGET, SET, 4, uint32_t, 2)                                                                                     \
    X(TARGET, SET, 4, uint32_t, 3)                                                                                     \
    X(TARGET, SET, 4, uint32_t, 4)                                                                                     \
    X(TARGET, SET, 4, uint32_t, 5)                                                                                     \
    X(TARGET, SET, 4, uint32_t, 6)                                                                                     \
    X(TARGET, SET, 4, uint32_t, 7)                                                                                     \
    X(TARGET, SET, 4, uint32_t, 8)                                                                                     \
    X(TARGET, SET, 8, uint64_t, 2)                                                                                     \
    X(TARGET, SET, 8, uint64_t, 3)                                                                                     \
    X(TARGET, SET, 8, uint64_t, 4)                                                                                     \
    X(TARGET, SET, 16, xp_e16, 2)                                                                                      \
    X(TARGET, SET, 16, xp_e16, 3)                                                                                      \
    X(TARGET, SET, 16, xp_e16, 4)
#define XPN_ROW8(P, N)                                                                                                 \
    {                                                                                                                  \
        P##_##N##_2, P##_##N##_3, P##_##N##_4, P##_##N##_5, P##_##N##_6, P##_##N##_7, P##_##N##_8                      \
    }
#define XPN_ROW4(P, N)                                                                                                 \
    {                                                                                                                  \
        P##_##N##_2, P##_##N##_3, P##_##N##_4, NULL, NULL, NULL, NULL                                                  \
    }
#define XPN_SET(TARGET, SET)                                                                                           \
    XPN_ALL(XPN_FN, TARGET, SET)                                                                                       \
    XPN_ALL(XPW_FN, TARGET, SET)                                                                                       \
    static const xp_fast_narrow_fn xpn_##SET[5][XPN_CMAX - 1] = {XPN_ROW8(xpn_##SET, 1), XPN_ROW8(xpn_##SET, 2),       \
                                                                 XPN_ROW8(xpn_##SET, 4), XPN_ROW4(xpn_##SET, 8),       \
                                                                 XPN_ROW4(xpn_##SET, 16)};                             \
    static const xp_fast_wide_fn xpw_##SET[5][XPN_CMAX - 1] = {XPN_ROW8(xpw_##SET, 1), XPN_ROW8(xpw_##SET, 2),         \
                                                               XPN_ROW8(xpw_##SET, 4), XPN_ROW4(xpw_##SET, 8),         \
                                                               XPN_ROW4(xpw_##SET, 16)};

XPN_SET(, base)
#if XP_FAST_X86
#include <immintrin.h>

/* AVX2, bytes in rows of C (HWC -> CHW): 32 rows (32 C bytes) a step, 16 in each lane; C byte shuffles a channel pick
 * its bytes from the lane's C 16-byte loads ("cpu-fast: narrow bytes of 3 on AVX2"). */
__attribute__((target("avx2"), always_inline)) static inline void xpn_avx2_bytes(const unsigned char *src, size_t n,
                                                                                 unsigned char *buf, int C)
{
    __m256i m[4][4]; /* m[ch][r]: where channel ch's byte k of a lane sits in the lane's load r, or none */
    for (int ch = 0; ch < C; ch++)
        for (int r = 0; r < C; r++) {
            _Alignas(32) uint8_t idx[32];
            for (int k = 0; k < 32; k++) {
                const int p = C * (k % 16) + ch;
                idx[k] = p / 16 == r ? (uint8_t)(p % 16) : 0x80;
            }
            m[ch][r] = _mm256_load_si256((const __m256i *)(const void *)idx);
        }
    size_t k = 0;
    uintptr_t ask = (uintptr_t)src + XPN_AHEAD; /* an integer: past the matrix, C pointers may not go */
    for (; k + 32 <= n; k += 32, src += 32 * (size_t)C) {
        __m256i v[4];
        for (; ask < (uintptr_t)src + XPN_AHEAD + 32 * (size_t)C; ask += 64) /* every line to the step's end */
            __builtin_prefetch((const void *)ask, 0, 3);
        for (int r = 0; r < C; r++) /* lane 0: rows k .. k + 15, lane 1: the next 16 */
            v[r] = _mm256_loadu2_m128i((const __m128i *)(const void *)(src + 16 * (C + r)),
                                       (const __m128i *)(const void *)(src + 16 * r));
        for (int ch = 0; ch < C; ch++) {
            __m256i o = _mm256_shuffle_epi8(v[0], m[ch][0]);
            for (int r = 1; r < C; r++)
                o = _mm256_or_si256(o, _mm256_shuffle_epi8(v[r], m[ch][r]));
            _mm256_storeu_si256((__m256i *)(void *)(buf + (size_t)ch * XPF_NARROW_ROWS + k), o);
        }
    }
    for (; k < n; k++, src += C)
        for (int ch = 0; ch < C; ch++)
            buf[(size_t)ch * XPF_NARROW_ROWS + k] = src[ch];
}

/* Rows of 3 only: the compiler's loops for 2 and 4 measured level with these. */
__attribute__((target("avx2"))) static void xpn_avx2_bytes_3(const unsigned char *src, size_t n, unsigned char *buf)
{
    xpn_avx2_bytes(src, n, buf, 3);
}

XPN_SET(__attribute__((target("avx2"))), avx2)
XPN_SET(__attribute__((target("avx512f,avx512bw,avx512vbmi"))), avx512)
#endif

/* The kernels' set for cpu-fast's: 2 AVX-512 (byte permutes across a whole register need VBMI), 1 AVX2, 0 the
 * portable loops; -1 none (XPOSE_CPU_ISA=scalar: the portable rim, as before). */
static int pick_set(const xp_fast_isa *isa)
{
#if XP_FAST_X86
    __builtin_cpu_init();
    if (isa->width == 64 && __builtin_cpu_supports("avx512vbmi"))
        return 2;
    if (isa->width >= 32)
        return 1;
#endif
    return isa->width ? 0 : -1;
}

xp_fast_narrow_fn xp_fast_narrow_pick(const xp_fast_isa *isa, size_t es, size_t cols)
{
    const int set = pick_set(isa), e = xp_elem_index(es), c = (int)cols - 2;
    if (cols < 2 || cols > XPN_CMAX || set < 0)
        return NULL;
#if XP_FAST_X86
    if (set == 2)
        return xpn_avx512[e][c];
    if (set == 1)
        return es == 1 && cols == 3 ? xpn_avx2_bytes_3 : xpn_avx2[e][c];
#endif
    return xpn_base[e][c];
}

xp_fast_wide_fn xp_fast_wide_pick(const xp_fast_isa *isa, size_t es, size_t rows)
{
    const int set = pick_set(isa), e = xp_elem_index(es), c = (int)rows - 2;
    if (rows < 2 || rows > XPN_CMAX || set < 0)
        return NULL;
#if XP_FAST_X86
    if (set)
        return set == 2 ? xpw_avx512[e][c] : xpw_avx2[e][c];
#endif
    return xpw_base[e][c];
}
