/* cpu_fast_scalar.c: cpu-fast's portable kernels: the whole region where no SIMD set is usable, the rims elsewhere. */
#include <string.h>
#include "cpu_fast.h"

/* memcpy of a constant size compiles to one move, and stays defined for pointers only element-aligned. */
#define XP_SCALAR_REGION_(N, T)                                                                                        \
    static void scalar_region_##N(const unsigned char *src, size_t lds, size_t ni, size_t nj, unsigned char *dst,      \
                                  size_t ldd)                                                                          \
    {                                                                                                                  \
        for (size_t i = 0; i < ni; i++)                                                                                \
            for (size_t j = 0; j < nj; j++)                                                                            \
                memcpy(dst + j * ldd + i * N, src + i * lds + j * N, sizeof(T));                                       \
    }
XP_FOR_EACH_ELEM(XP_SCALAR_REGION_)

static void scalar_row(unsigned char *dst, const unsigned char *src, size_t n) { memcpy(dst, src, n); }

const xp_fast_isa xp_fast_scalar = {
    "scalar",
    0,
    {{scalar_region_1, scalar_region_2, scalar_region_4, scalar_region_8, scalar_region_16}},
    {NULL},
    {scalar_row},
    {{NULL}},
    {{NULL}},
    {NULL},
    {NULL},
    NULL};

void xp_fast_rim(size_t es, const unsigned char *src, size_t lds, size_t ni, size_t nj, size_t ni_v, size_t nj_v,
                 unsigned char *dst, size_t ldd, xp_fast_region_fn rows_fn)
{
    xp_fast_region_fn fn = xp_fast_scalar.region[0][xp_elem_index(es)];
    if (ni_v < ni)
        (rows_fn ? rows_fn : fn)(src + ni_v * lds, lds, ni - ni_v, nj, dst + ni_v * es, ldd);
    if (nj_v < nj && ni_v > 0)
        fn(src + nj_v * es, lds, ni_v, nj - nj_v, dst + nj_v * ldd, ldd);
}
