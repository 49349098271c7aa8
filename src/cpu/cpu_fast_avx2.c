/* cpu_fast_avx2.c: cpu-fast's AVX2 kernels (32-byte rows), compiled for AVX2 whatever the build flags. */
#include <stdint.h>
#include <string.h>
#include "cpu_fast.h"

#if XP_FAST_X86
#include <immintrin.h>

#define XPF_TARGET __attribute__((target("avx2")))
#define XPF_W 32
typedef __m256i xpf_vec;

/* v with its 128-bit lane l loaded from p (lane 0 starts a fresh register). */
static inline XPF_TARGET xpf_vec xpf_load_lane(xpf_vec v, size_t l, const unsigned char *p)
{
    __m128i x = _mm_loadu_si128((const __m128i *)p);
    return l == 0 ? _mm256_castsi128_si256(x) : _mm256_inserti128_si256(v, x, 1);
}

static inline XPF_TARGET xpf_vec xpf_load(const unsigned char *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline XPF_TARGET void xpf_store(unsigned char *p, xpf_vec v) { _mm256_storeu_si256((__m256i *)p, v); }

/* p is 32-byte aligned. */
static inline XPF_TARGET void xpf_stream(unsigned char *p, xpf_vec v) { _mm256_stream_si256((__m256i *)p, v); }

static inline XPF_TARGET void xpf_copy_short(unsigned char *d, const unsigned char *s, size_t n) { memcpy(d, s, n); }

/* d is 64-byte aligned. */
static inline XPF_TARGET void xpf_copy_line(unsigned char *d, const unsigned char *s, int nt)
{
    __m256i lo = _mm256_loadu_si256((const __m256i *)s), hi = _mm256_loadu_si256((const __m256i *)(s + 32));
    if (nt) {
        xpf_stream(d, lo);
        xpf_stream(d + 32, hi);
    } else {
        _mm256_store_si256((__m256i *)d, lo);
        _mm256_store_si256((__m256i *)(d + 32), hi);
    }
}

#define XPF_P(name) _mm256_##name /* the set's intrinsic of that name */
#define XPF_NARROWER(nt, e) ((void)(nt), (void)(e), (xp_fast_region_fn)NULL)
#define XPF_ISA xp_fast_avx2
#define XPF_NAME "avx2"
#include "cpu_fast_simd.h"
#endif
