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
/* The longest small side, in bytes, its staged form takes everywhere (rows off 16 bytes, or more than
 * XP_PERM_SKINNY_MAX elements: "permute: staged skinny kernel"); `fast` hands such calls to it too. */
#define XP_PERM_STAGE_MAX_BYTES 64
/* Sides past 127 bytes (bytes: past 64) take the staged form only in calls of at least this many bytes: in smaller
 * ones, which the H200's 50 MB L2 partly holds, tiles ran as fast or faster ("permute: staged wide sides"). */
#define XP_PERM_STAGE_WIDE_MIN_BYTES ((size_t)32 << 20)
/* Whether the staged form takes a small side of k elements of es bytes beside a long side of n, in a call of `bytes`
 * bytes; to_dst: the small side is the destination's fastest dimension (k source rows, a (k, N) transpose), else the
 * source's ((N, k)). Past XP_PERM_STAGE_MAX_BYTES only where n makes 1024 long indices or more (a few dozen leave the
 * stage's segments short), and never for whole 128-byte lines, which tiles fill. Tiles' rows are otherwise partial
 * vectors or partly empty ("permute: staged skinny kernel", "permute: staged wide sides"): 2- to 16-byte elements
 * under 128 bytes; past that, in large calls, destination rows under 544 bytes (bytes: 320), and source rows that
 * would leave tiles' 256-byte segments under 3/5 full (bytes: under 128; 8 and 16 bytes past one segment, where the
 * staged form ran at 82-94 %: under 7/10). */
static inline int xp_perm_stage_side(size_t k, size_t n, size_t es, int to_dst, size_t bytes)
{
    const size_t kb = k * es;
    if (kb <= XP_PERM_STAGE_MAX_BYTES)
        return 1;
    if (n < 1024 || kb % 128 == 0)
        return 0;
    if (es > 1 && kb < 128)
        return 1;
    if (bytes < XP_PERM_STAGE_WIDE_MIN_BYTES)
        return 0;
    if (to_dst)
        return kb < (es == 1 ? 320 : 544);
    if (es == 1)
        return kb < 128;
    const size_t segs = 256 * ((kb + 255) / 256); /* the source bytes of a tile's segments along the side */
    return es >= 8 && kb > 256 ? 10 * kb < 7 * segs : 5 * kb < 3 * segs;
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
