/* verify.c: random data, poisoning and an independent byte-wise reference transpose. */
#include <string.h>
#include "verify.h"

uint64_t xv_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void xv_fill_random(void *buf, size_t bytes, uint64_t seed)
{
    /* In every 32-bit word, clear bit 30 and set bit 29: the float exponent (and, in the high word, the
     * double exponent) is then neither all zeros nor all ones. */
    const uint64_t clear = 0x4000000040000000ull, set = 0x2000000020000000ull;
    unsigned char *p = buf;
    uint64_t s = seed * 0x2545F4914F6CDD1Dull + 1;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w = (xv_splitmix(&s) & ~clear) | set;
        memcpy(p + i, &w, 8);
    }
    if (i < bytes) {
        uint64_t w = (xv_splitmix(&s) & ~clear) | set;
        memcpy(p + i, &w, bytes - i);
    }
}

void xv_poison(void *buf, size_t bytes) { memset(buf, (int)XV_POISON, bytes); }

void xv_spans(const xpose_layout *lay, size_t *src_bytes, size_t *dst_bytes)
{
    *src_bytes = *dst_bytes = 0;
    size_t r = lay->rows, c = lay->cols, es = lay->elem_size;
    if (r == 0 || c == 0)
        return;
    size_t b = lay->batch ? lay->batch : 1;
    size_t lds = lay->ld_src ? lay->ld_src : c, ldd = lay->ld_dst ? lay->ld_dst : r;
    size_t ss = lay->stride_src ? lay->stride_src : r * lds, sd = lay->stride_dst ? lay->stride_dst : c * ldd;
    *src_bytes = ((b - 1) * ss + (r - 1) * lds + c) * es;
    *dst_bytes = ((b - 1) * sd + (c - 1) * ldd + r) * es;
}

/* The definition, dst(j, i) = src(i, j), one element at a time; typed copies only to keep references of
 * large matrices quick, and 64 x 64 tiles only to keep them in cache. */
#define XV_REF_(NAME, T)                                                                                               \
    static void NAME(const T *src, T *ref, size_t r, size_t c, size_t b, size_t lds, size_t ldd, size_t ss, size_t sd) \
    {                                                                                                                  \
        const size_t t = 64;                                                                                           \
        for (size_t k = 0; k < b; k++)                                                                                 \
            for (size_t i0 = 0; i0 < r; i0 += t)                                                                       \
                for (size_t j0 = 0; j0 < c; j0 += t)                                                                   \
                    for (size_t i = i0; i < r && i < i0 + t; i++)                                                      \
                        for (size_t j = j0; j < c && j < j0 + t; j++)                                                  \
                            ref[k * sd + j * ldd + i] = src[k * ss + i * lds + j];                                     \
    }
typedef struct {
    uint64_t lo, hi;
} xv_e16;
XV_REF_(ref1, uint8_t)
XV_REF_(ref2, uint16_t)
XV_REF_(ref4, uint32_t)
XV_REF_(ref8, uint64_t)
XV_REF_(ref16, xv_e16)

void xv_reference(const xpose_layout *lay, const void *src, void *ref)
{
    size_t r = lay->rows, c = lay->cols;
    size_t b = lay->batch ? lay->batch : 1;
    size_t lds = lay->ld_src ? lay->ld_src : c, ldd = lay->ld_dst ? lay->ld_dst : r;
    size_t ss = lay->stride_src ? lay->stride_src : r * lds, sd = lay->stride_dst ? lay->stride_dst : c * ldd;
    switch (lay->elem_size) {
    case 1: ref1(src, ref, r, c, b, lds, ldd, ss, sd); break;
    case 2: ref2(src, ref, r, c, b, lds, ldd, ss, sd); break;
    case 4: ref4(src, ref, r, c, b, lds, ldd, ss, sd); break;
    case 8: ref8(src, ref, r, c, b, lds, ldd, ss, sd); break;
    default: ref16(src, ref, r, c, b, lds, ldd, ss, sd); break;
    }
}

size_t xv_compare(const void *a_, const void *b_, size_t bytes, size_t *first)
{
    const unsigned char *a = a_, *b = b_;
    if (memcmp(a, b, bytes) == 0)
        return 0;
    size_t n = 0;
    *first = bytes;
    for (size_t i = 0; i < bytes; i++)
        if (a[i] != b[i]) {
            if (n++ == 0)
                *first = i;
        }
    return n;
}
