/* cpu_blocked.c: cache-tiled transpose (cpu-blocked): square tiles so both matrices stay in cache lines. */
#include "cpu_kernels.h"

/* Tiles are independent, so one OpenMP loop hands whole tile rows of every batch member to threads: one team
 * for the call, however many members (a team per member made a batch of 1000 8x8 matrices take seconds on a
 * loaded 2-core machine). The i/j loop order inside a tile keeps reads sequential; the tile bounds keep the
 * strided writes inside a few hot cache lines. */
#define XP_BLOCKED_(N, T)                                                                                              \
    static void blocked_##N(const xp_shape *s, const void *src_, void *dst_, size_t t)                                 \
    {                                                                                                                  \
        long long tiles_i = (long long)((s->rows + t - 1) / t), jobs = (long long)s->batch * tiles_i;                  \
        int threaded = s->batch * s->rows * s->cols * s->es >= XP_CPU_SERIAL_BYTES && jobs > 1;                        \
        _Pragma(                                                                                                       \
            "omp parallel for schedule(static) num_threads(xpose_get_threads()) if (threaded)") for (long long k = 0;  \
                                                                                                     k < jobs; k++)    \
        {                                                                                                              \
            size_t b = (size_t)(k / tiles_i), i0 = (size_t)(k % tiles_i) * t;                                          \
            size_t i1 = i0 + t < s->rows ? i0 + t : s->rows;                                                           \
            const T *src = (const T *)src_ + b * s->ss;                                                                \
            T *dst = (T *)dst_ + b * s->sd;                                                                            \
            for (size_t j0 = 0; j0 < s->cols; j0 += t) {                                                               \
                size_t j1 = j0 + t < s->cols ? j0 + t : s->cols;                                                       \
                for (size_t i = i0; i < i1; i++)                                                                       \
                    for (size_t j = j0; j < j1; j++)                                                                   \
                        dst[j * s->ldd + i] = src[i * s->lds + j];                                                     \
            }                                                                                                          \
        }                                                                                                              \
    }
XP_FOR_EACH_ELEM(XP_BLOCKED_)

int xp_cpu_blocked(const xp_call *c)
{
    typedef void (*fn)(const xp_shape *, const void *, void *, size_t);
    static const fn fns[5] = {blocked_1, blocked_2, blocked_4, blocked_8, blocked_16};
    fns[xp_elem_index(c->s.es)](&c->s, c->src, c->dst, (size_t)c->p0);
    return XPOSE_OK;
}
