/* cpu_inplace.h: the CPU in-place transposes (cpu_inplace.c, cpu_inplace_rect.c) and what they share. */
#ifndef XP_CPU_INPLACE_H
#define XP_CPU_INPLACE_H

#include "cpu_kernels.h"

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

/* m (rows x cols, dense) := its transpose, through buf (rows * cols * es bytes): the rectangular transpose's path for
 * matrices a thread's buffer holds whole. */
void xp_cpu_inplace_small(size_t rows, size_t cols, size_t es, unsigned char *m, unsigned char *buf);

#endif
