/* cpu_naive.c: the seeds' nested-loop transpose (cpu-naive), the baseline every speedup is measured against. */
#include "cpu_kernels.h"

int xp_cpu_each_matrix(const xp_call *c, const xp_mat_fn fns[5])
{
    const xp_shape *s = &c->s;
    const unsigned char *src = c->src;
    unsigned char *dst = c->dst;
    xp_mat_fn fn = fns[xp_elem_index(s->es)];
    for (size_t b = 0; b < s->batch; b++)
        fn(s->rows, s->cols, src + b * s->ss * s->es, s->lds, dst + b * s->sd * s->es, s->ldd, c->p0);
    return XPOSE_OK;
}

/* Reads along rows, writes down columns, exactly as seed 000's transposeCPU. */
#define XP_NAIVE_(N, T)                                                                                                \
    static void naive_##N(size_t rows, size_t cols, const void *src_, size_t lds, void *dst_, size_t ldd, int param)   \
    {                                                                                                                  \
        const T *src = src_;                                                                                           \
        T *dst = dst_;                                                                                                 \
        (void)param;                                                                                                   \
        for (size_t i = 0; i < rows; i++)                                                                              \
            for (size_t j = 0; j < cols; j++)                                                                          \
                dst[j * ldd + i] = src[i * lds + j];                                                                   \
    }
XP_FOR_EACH_ELEM(XP_NAIVE_)

int xp_cpu_naive(const xp_call *c)
{
    static const xp_mat_fn fns[5] = {naive_1, naive_2, naive_4, naive_8, naive_16};
    return xp_cpu_each_matrix(c, fns);
}
