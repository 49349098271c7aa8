/* reduce_cases.h: the cases every reduction variant must pass, on host or device memory (t_mem), shared
 * by test_reduce (CPU) and test_gpu_reduce. */
#ifndef XPOSE_REDUCE_CASES_H
#define XPOSE_REDUCE_CASES_H

#include "reduce_ref.h"
#include "testing.h"

/* The variants under test: every reduce row of a backend whose id starts with `only` (NULL: all), and
 * the production path (xpose_reduce with AUTO). */
typedef struct rc_set {
    const t_mem *mem;
    char ids[32][96];
    int count; /* ids[0..count) are rows; the production path comes last */
} rc_set;

void rc_collect(rc_set *s, const t_mem *m, xpose_backend be, const char *only);

/* Every type and op at n = 0, 1, primes and 2^k - 1, 2^k, 2^k + 1 up to max_n, with uniform, wide and
 * whole-number data, the source 0 to 2 elements into its allocation. */
void rc_sweep(const rc_set *s, size_t max_n);

/* NaN of any payload, infinities, signed zeros, float overflow and integer wrap-around. */
void rc_specials(const rc_set *s);

/* One reduction of host[0..n) placed in fresh memory `off` elements in; id NULL: the production path.
 * Returns the status; on XPOSE_OK the result's bytes are in got. */
int rc_run(const t_mem *m, const char *id, xpose_reduce_op op, xpose_dtype t, const void *host, size_t n, size_t off,
           void *got);

extern const char *const rc_op_names[3];
extern const char *const rc_type_names[4];

#endif
