/* explain_ncu.h: `xpose explain --ncu`: the model's counters measured by Nsight Compute. */
#ifndef XPOSE_EXPLAIN_NCU_H
#define XPOSE_EXPLAIN_NCU_H

#include <stddef.h>
#include "explain.h"
#include "ncu_csv.h"

/* ncu's path (XPOSE_NCU, else the first ncu on PATH) into path: 1, or 0 where there is none. */
int ncu_find(char *path, size_t n);
/* Runs ncu on `xpose bench` timing variant once on shape s and reads the first launch of the family's kernel:
 * 0; 1 where this variant's measurement failed, 2 where every one would (no counter permission, ncu does not
 * start); why holds ncu's own error line. */
int ncu_measure(const char *ncu, const char *variant, ex_family fam, const ex_shape *s, ncu_result *out, char *why,
                size_t wl);

#endif
