/* cpu_inplace.h: the CPU in-place transposes (cpu_inplace.c, cpu_inplace_rect.c) and what they share. */
#ifndef XP_CPU_INPLACE_H
#define XP_CPU_INPLACE_H

#include "cpu_kernels.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* The calling thread's number in its parallel region (0 outside one), and thread t of nt's share [lo, hi) of n. */
static inline int xp_ip_thread(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static inline void xp_ip_share(size_t n, int t, int nt, size_t *lo, size_t *hi)
{
    *lo = n * (size_t)t / (size_t)nt;
    *hi = n * (size_t)(t + 1) / (size_t)nt;
}

/* A thread's buffer in the rectangular transpose: at most this many bytes (src/core/xp_inplace.h's P). */
#define XP_INPLACE_SLICE ((size_t)1 << 20)

/* The cycle-following baseline, the square tile swap and the rectangular decomposition (xp_inplace_call's contract:
 * a query only sizes the workspace). */
int xp_cpu_inplace_naive(xp_inplace_call *c);
int xp_cpu_inplace_square(xp_inplace_call *c);
int xp_cpu_inplace_rect(xp_inplace_call *c);

/* Threads a CPU in-place call of `bytes` bytes runs on: one under XP_CPU_SERIAL_BYTES. */
int xp_cpu_inplace_threads(size_t bytes);

/* The square tile swap on an n x n block whose rows lie ld bytes apart: its tile rows, and tile row I's pairs (the
 * rectangular transpose's tile form transposes each gcd x gcd block so). */
size_t xp_cpu_square_tiles(size_t n, size_t es);
void xp_cpu_square_tile_row(unsigned char *m, size_t n, size_t ld, size_t es, size_t I);

/* Peels (cpu_inplace_peel.c), at most XP_PEEL_MAX rows or columns at a time. xp_cpu_peel_cols: the R x C matrix m
 * becomes its first C - kc columns, R x (C - kc) dense at the start of m, and its last kc columns, transposed, the
 * last kc R elements (their place in the C x R result). xp_cpu_peel_rows_back: m holds the C x (R - kr) transpose of
 * an R x C matrix's first R - kr rows, followed by its last kr rows; it becomes the C x R transpose. ws: nt slices of
 * `slice` bytes, each holding kc R (or kr C) elements. */
#define XP_PEEL_MAX 64
/* The production row's plan for one rows x cols matrix: the peels or the widening (xp_cpu_widen_rows), and the form
 * the rest takes (the tests'). */
enum { XP_IP_VECTOR, XP_IP_SMALL, XP_IP_SQUARE, XP_IP_TILE, XP_IP_BLOCK, XP_IP_PASSES };
int xp_cpu_inplace_peels(size_t rows, size_t cols, size_t es, size_t *kr, size_t *kc, int *widen);
void xp_cpu_peel_cols(unsigned char *m, size_t R, size_t C, size_t kc, size_t es, unsigned char *ws, size_t slice,
                      int nt);
void xp_cpu_peel_rows_back(unsigned char *m, size_t R, size_t C, size_t kr, size_t es, unsigned char *ws, size_t slice,
                           int nt);

/* Widening (cpu_inplace_peel.c): the R x C matrix m becomes R x (C + 1), each row's new last element unset, the last
 * row's elements past R C (R - 1 of them) in tail. ws: nt slices of `slice` bytes, each holding R elements. */
void xp_cpu_widen_rows(unsigned char *m, size_t R, size_t C, size_t es, unsigned char *tail, unsigned char *ws,
                       size_t slice, int nt);
/* Its inverse: m, R x (C + 1) of which the last row's elements past R C (R - 1 of them) are in tail, becomes R x C. */
void xp_cpu_narrow_rows(unsigned char *m, size_t R, size_t C, size_t es, const unsigned char *tail, unsigned char *ws,
                        size_t slice, int nt);

/* m (rows x cols, dense) := its transpose, through buf (rows * cols * es bytes): the rectangular transpose's path for
 * matrices a thread's buffer holds whole. */
void xp_cpu_inplace_small(size_t rows, size_t cols, size_t es, unsigned char *m, unsigned char *buf);

#endif
