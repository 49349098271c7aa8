/* testing.h: a tiny assertion kit and the check every variant test runs (random data, poison, reference). */
#ifndef XPOSE_TESTING_H
#define XPOSE_TESTING_H

#include <stdio.h>
#include <stdlib.h>
#include "verify.h"
#include "xpose.h"

extern int t_failures, t_checks;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        t_checks++;                                                                                                    \
        if (!(cond)) {                                                                                                 \
            t_failures++;                                                                                              \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                                   \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fprintf(stderr, "\n");                                                                                     \
        }                                                                                                              \
    } while (0)

#define CHECK_STATUS(got, want, ...)                                                                                   \
    do {                                                                                                               \
        int got_ = (got), want_ = (want);                                                                              \
        CHECK(got_ == want_, "status %d (%s), wanted %d (%s)", got_, xpose_strerror(got_), want_,                      \
              xpose_strerror(want_));                                                                                  \
        if (got_ != want_) {                                                                                           \
            fprintf(stderr, "    while: ");                                                                            \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fprintf(stderr, "\n");                                                                                     \
        }                                                                                                              \
    } while (0)

/* Prints the totals, and returns the exit code: 0 when every check passed (and at least one ran). */
int t_finish(const char *suite);

/* Moves data between the caller's memory and the variant's (host memcpy, or cudaMemcpy for a GPU test). */
typedef struct t_mem {
    void *(*alloc)(size_t bytes);
    void (*release)(void *p);
    void (*upload)(void *dst, const void *host, size_t bytes);
    void (*download)(void *host, const void *src, size_t bytes);
    void (*poison)(void *p, size_t bytes);
} t_mem;

extern const t_mem t_host_mem;

/* Runs variant `id` (NULL: the production path, xpose_transpose with AUTO) on `lay` with fresh random data (seed) into a poisoned output placed `dst_off` bytes
 * into its allocation (src likewise `src_off`), and compares the whole output span with the reference.
 * Returns 1 when the variant matched, 0 otherwise (recording the failure), -1 when it declined the
 * element size or layout (XPOSE_ERR_UNSUPPORTED, not a failure). */
int t_check_variant(const t_mem *m, const char *id, const xpose_layout *lay, unsigned seed, size_t src_off,
                    size_t dst_off);

/* `count` random layouts up to max_dim x max_dim: padded leading dimensions, batches with gaps between
 * members, pointers offset by whole elements, every element size in `mask`. */
void t_random_layouts(const t_mem *m, const char *id, unsigned mask, unsigned seed, int count, size_t max_dim);

/* The shapes every variant must get right: the seeds' edge cases and sizes no tile divides. */
typedef struct t_shape {
    size_t rows, cols;
} t_shape;
extern const t_shape t_edge_shapes[];
extern const size_t t_edge_shape_count;

/* Bytes of got (cols x rows) that are not the transpose of src (rows x cols), 1-byte elements: the check of the
 * > 2^31-element cases, a direct loop in 64-row bands (the byte-wise reference would take minutes there). */
size_t t_transpose_mismatches(const unsigned char *src, const unsigned char *got, size_t rows, size_t cols);

/* Every variant id of a backend and family, one at a time: returns 0 when i is past the end. */
int t_variant_id(int i, xpose_backend be, xpose_family fam, char *id, size_t n, unsigned *elem_sizes);

#endif
