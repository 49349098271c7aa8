/* xp_permute.h: an N-d permutation as the backends see it (canonical dimensions), and the backends' entry points. */
#ifndef XP_PERMUTE_H
#define XP_PERMUTE_H

#include "xp_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest small extent the CUDA permutation kernels' skinny path takes (permute.cu, docs/tuning.md, "permute:
 * skinny kernel"); `fast` hands calls with a side this short to it (fast_plan.c, "fast: narrow matrices"). */
#define XP_PERM_SKINNY_MAX 8
/* The longest small side, in bytes, its staged form takes (rows off 16 bytes, or more than XP_PERM_SKINNY_MAX
 * elements: "permute: staged skinny kernel"); `fast` hands such calls to it too. */
#define XP_PERM_STAGE_MAX_BYTES 64
/* Whether the staged form takes a small side of k elements of es bytes beside a long side of n: bytes up to
 * XP_PERM_STAGE_MAX_BYTES; wider elements up to 64 bytes, and under 128 where n makes at least 1024 long indices (tiles
 * of 32 floats fill part of their columns; a few dozen long indices leave the stage's segments short: "permute: staged
 * skinny kernel"). */
static inline int xp_perm_stage_side(size_t k, size_t n, size_t es)
{
    return k * es <= XP_PERM_STAGE_MAX_BYTES || (es > 1 && k * es < 128 && n >= 1024);
}
/* The longest small side of bytes whose staged form moves 4 rows a thread (k % 4 == 0, strided rows on 16 bytes): at 64
 * that lost to a row's bytes one at a time ("permute: staged skinny kernel"). */
#define XP_PERM_QUAD_MAX 48

/* A permutation after checking and canonicalisation (xp_perm_canon): dimensions of extent 1 dropped, dimensions
 * adjacent in both tensors merged, the rest in destination order, sorted so that the destination stride shrinks
 * towards the last dimension (for a dense destination: row-major, dimension rank-1 fastest). Element j (an index
 * per dimension) moves from src + sum j[k]*ss[k] to dst + sum j[k]*ds[k] (elements of es bytes; source strides may
 * be 0 or negative, destination strides are positive). */
typedef struct xp_perm {
    size_t es;                  /* bytes per element: 1, 2, 4, 8 or 16 */
    int rank;                   /* 1..XPOSE_MAX_RANK; 0 where some extent is 0 (nothing to move) */
    size_t ext[XPOSE_MAX_RANK]; /* extents, each >= 2 (rank 1 may have any extent >= 1) */
    int64_t ss[XPOSE_MAX_RANK]; /* source strides, elements */
    int64_t ds[XPOSE_MAX_RANK]; /* destination strides, elements, > 0 */
    size_t count;               /* elements moved: the product of the extents */
    int64_t src_lo, src_hi;     /* byte offsets from src of the first and one past the last byte read */
    size_t dst_hi;              /* bytes from dst to one past the last byte written */
} xp_perm;

/* Checks a public request and canonicalises it into *out. Returns XPOSE_OK or the status of the first problem:
 * XPOSE_ERR_ELEM_SIZE, XPOSE_ERR_RANK, XPOSE_ERR_NULL (extents or perm NULL), XPOSE_ERR_PERM, XPOSE_ERR_OVERFLOW
 * (a size or offset past 2^63 bytes), XPOSE_ERR_STRIDE (destination elements sharing a place). */
int xp_perm_canon(size_t es, int rank, const size_t *ext, const int *perm, const int64_t *src_strides,
                  const int64_t *dst_strides, xp_perm *out);

/* Where the canonical permutation is a copy or a (batched) 2-D transpose that an xp_shape describes (strides
 * non-negative, batch members evenly spaced), fills *out and returns 1; else 0. The production transposes (`fast`,
 * `cpu-fast`) then run it, so that xpose_transpose and the equivalent permutation are one call at one speed. */
int xp_perm_as_shape(const xp_perm *p, xp_shape *out);

/* The general kernels, for what xp_perm_as_shape does not take. CPU: src/cpu/cpu_permute.c. CUDA:
 * src/cuda/permute.cu (src/core/cuda_absent.c returns XPOSE_ERR_NOT_BUILT); pointers already checked, asynchronous
 * on `stream`. Each *_describe writes the kernel and tile it would take, as snprintf does, and returns its length. */
int xp_cpu_permute(const xp_perm *p, const void *src, void *dst);
int xp_cpu_permute_describe(const xp_perm *p, char *buf, size_t size);
/* What cpu-fast runs for a copy or transpose shape (instruction set, tile kind and size, stores), as snprintf. */
int xp_cpu_shape_describe(const xp_shape *s, char *buf, size_t size);
int xp_cuda_permute(const xp_perm *p, const void *src, void *dst, void *stream);
int xp_cuda_permute_describe(const xp_perm *p, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
