/* cpu_blocked.c: cache-tiled transpose (cpu-blocked): square tiles so both matrices stay in cache lines. */
#include "cpu_kernels.h"

/* Tiles are independent, so OpenMP hands whole tile rows to threads. The i/j loop order inside a tile
 * keeps reads sequential; the tile bounds keep the strided writes inside a few hot cache lines. */
#define XP_BLOCKED_(N, T)                                                                                  \
    static void blocked_##N(size_t rows, size_t cols, const void *src_, size_t lds, void *dst_, size_t ldd, \
                            int tile)                                                                       \
    {                                                                                                       \
        const T *src = src_;                                                                                \
        T *dst = dst_;                                                                                      \
        size_t t = (size_t)tile;                                                                            \
        long long tiles_i = (long long)((rows + t - 1) / t);                                                \
        _Pragma("omp parallel for schedule(static)")                                                        \
        for (long long ti = 0; ti < tiles_i; ti++) {                                                        \
            size_t i0 = (size_t)ti * t, i1 = i0 + t < rows ? i0 + t : rows;                                 \
            for (size_t j0 = 0; j0 < cols; j0 += t) {                                                       \
                size_t j1 = j0 + t < cols ? j0 + t : cols;                                                  \
                for (size_t i = i0; i < i1; i++)                                                            \
                    for (size_t j = j0; j < j1; j++)                                                        \
                        dst[j * ldd + i] = src[i * lds + j];                                                \
            }                                                                                               \
        }                                                                                                   \
    }
XP_FOR_EACH_ELEM(XP_BLOCKED_)

int xp_cpu_blocked(const xp_call *c)
{
    static const xp_mat_fn fns[5] = {blocked_1, blocked_2, blocked_4, blocked_8, blocked_16};
    return xp_cpu_each_matrix(c, fns);
}
