/* cpu_kernels.h: element types and the batch driver shared by the CPU transpose variants. */
#ifndef XP_CPU_KERNELS_H
#define XP_CPU_KERNELS_H

#include <stdint.h>
#include "../core/xp_internal.h"

/* A 16-byte element moves as one struct so the compiler may use one vector register for it. */
typedef struct xp_e16 {
    uint64_t lo, hi;
} xp_e16;

/* X(size, type) for every element size the API accepts, in the order of xp_elem_index. */
#define XP_FOR_EACH_ELEM(X) X(1, uint8_t) X(2, uint16_t) X(4, uint32_t) X(8, uint64_t) X(16, xp_e16)

/* 0..4 for element sizes 1, 2, 4, 8, 16. */
static inline int xp_elem_index(size_t es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : es == 8 ? 3 : 4; }

/* Transposes one rows x cols matrix; `param` is the variant's p0 (a tile size, say). */
typedef void (*xp_mat_fn)(size_t rows, size_t cols, const void *src, size_t lds, void *dst, size_t ldd, int param);

/* Work below this many bytes runs on the calling thread: starting a team costs more than it moves. */
#define XP_CPU_SERIAL_BYTES ((size_t)128 << 10)

/* Runs fns[elem index] over every batch member of the call, on the calling thread. */
int xp_cpu_each_matrix(const xp_call *c, const xp_mat_fn fns[5]);

/* The seeds' nested loop, generalised: the baseline and the reference of the CPU side. */
int xp_cpu_naive(const xp_call *c);
int xp_cpu_blocked(const xp_call *c);
int xp_cpu_memcpy(const xp_call *c);
int xp_cpu_stream(const xp_call *c);

#endif
