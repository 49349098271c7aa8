/* verify.h: random data, poisoning and an independent byte-wise reference, for the CLI and the tests. */
#ifndef XPOSE_VERIFY_H
#define XPOSE_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include "xpose.h"

#define XV_POISON 0xA7u /* written over every output first; a slot still holding it was never written */

/* The next number of the splitmix64 sequence at *s: the one generator behind every reference's random data. */
uint64_t xv_splitmix(uint64_t *s);

/* Fills with pseudo-random words that are finite, normal floats and doubles when read as such (so the
 * BLAS peers, which compute alpha*A, return the very bits they read). Never zeros. */
void xv_fill_random(void *buf, size_t bytes, uint64_t seed);
void xv_poison(void *buf, size_t bytes);

/* Bytes spanned by source and destination of a layout (0 for an invalid or empty one). */
void xv_spans(const xpose_layout *lay, size_t *src_bytes, size_t *dst_bytes);

/* ref (dst_bytes, poisoned by the caller) := transpose of src, one element at a time, by definition. */
void xv_reference(const xpose_layout *lay, const void *src, void *ref);

/* Number of differing bytes between two buffers (0: equal); *first gets the first differing offset. */
size_t xv_compare(const void *a, const void *b, size_t bytes, size_t *first);

#endif
