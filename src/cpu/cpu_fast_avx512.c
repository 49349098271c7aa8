/* cpu_fast_avx512.c: cpu-fast's AVX-512 kernels (64-byte rows), compiled for AVX-512 whatever the build flags. */
#include <stdint.h>
#include "cpu_fast.h"

#if XP_FAST_X86
#include <immintrin.h>

#define XPF_TARGET __attribute__((target("avx512f,avx512bw")))
#define XPF_W 64
typedef __m512i xpf_vec;

/* v with its 128-bit lane l loaded from p (lane 0 starts a fresh register). */
static inline XPF_TARGET xpf_vec xpf_load_lane(xpf_vec v, size_t l, const unsigned char *p)
{
    __m128i x = _mm_loadu_si128((const __m128i *)p);
    switch (l) {
    case 0: return _mm512_castsi128_si512(x);
    case 1: return _mm512_inserti32x4(v, x, 1);
    case 2: return _mm512_inserti32x4(v, x, 2);
    default: return _mm512_inserti32x4(v, x, 3);
    }
}

static inline XPF_TARGET xpf_vec xpf_load(const unsigned char *p) { return _mm512_loadu_si512((const void *)p); }
static inline XPF_TARGET void xpf_store(unsigned char *p, xpf_vec v) { _mm512_storeu_si512((void *)p, v); }

/* p is 64-byte aligned. */
static inline XPF_TARGET void xpf_stream(unsigned char *p, xpf_vec v) { _mm512_stream_si512((__m512i *)p, v); }

/* n < 64: masked, so that nothing outside [p, p + n) is touched. */
static inline XPF_TARGET void xpf_copy_short(unsigned char *d, const unsigned char *s, size_t n)
{
    __mmask64 m = ((__mmask64)1 << n) - 1;
    _mm512_mask_storeu_epi8(d, m, _mm512_maskz_loadu_epi8(m, s));
}

/* d is 64-byte aligned. */
static inline XPF_TARGET void xpf_copy_line(unsigned char *d, const unsigned char *s, int nt)
{
    __m512i v = _mm512_loadu_si512((const void *)s);
    if (nt)
        xpf_stream(d, v);
    else
        _mm512_store_si512((void *)d, v);
}

/* Bytes [lo, hi) of v to p + lo .. p + hi, masked: the line's other bytes belong to another tile or row. */
static inline XPF_TARGET void xpf_store_bytes(unsigned char *p, xpf_vec v, unsigned lo, unsigned hi)
{
    __mmask64 m = (hi == 64 ? ~(__mmask64)0 : ((__mmask64)1 << hi) - 1) & ~(((__mmask64)1 << lo) - 1);
    _mm512_mask_storeu_epi8(p, m, v);
}

/* The index of xpf_merge_at for rows ph bytes into their line. */
static inline XPF_TARGET xpf_vec xpf_merge_index(unsigned ph)
{
    return _mm512_add_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                            _mm512_set1_epi32(16 - (int)(ph / 4)));
}

/* The 64 bytes that start 64 - ph bytes into prev:cur, idx being xpf_merge_index(ph) (ph a multiple of 4, below 64). */
static inline XPF_TARGET xpf_vec xpf_merge_at(xpf_vec prev, xpf_vec cur, xpf_vec idx)
{
    return _mm512_permutex2var_epi32(prev, idx, cur);
}

static inline XPF_TARGET xpf_vec xpf_merge(xpf_vec prev, xpf_vec cur, unsigned ph)
{
    return xpf_merge_at(prev, cur, xpf_merge_index(ph));
}

#define XPF_MERGE xpf_merge
#define XPF_P(name) _mm512_##name /* the set's intrinsic of that name */
#define XPF_NARROWER(nt, e) xp_fast_avx2.region[nt][e]
#define XPF_ISA xp_fast_avx512
#define XPF_NAME "avx512"
#include "cpu_fast_simd.h"
#endif
