/* xpose.h: the public C API of xpose (bandwidth-optimal transpose and reduction on CPUs and NVIDIA GPUs). */
#ifndef XPOSE_H
#define XPOSE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XPOSE_VERSION_MAJOR 0
#define XPOSE_VERSION_MINOR 2
#define XPOSE_VERSION_PATCH 0
#define XPOSE_VERSION_STRING "0.2.0"
/* One number that grows with every release: major*10000 + minor*100 + patch. */
#define XPOSE_VERSION_NUMBER (XPOSE_VERSION_MAJOR * 10000 + XPOSE_VERSION_MINOR * 100 + XPOSE_VERSION_PATCH)
/* The binary interface: libxpose.so.<this>. It grows by one whenever a release breaks programs built against an
 * earlier one (docs/design.md, "Versions and the ABI"). */
#define XPOSE_ABI_VERSION 0

/* The functions libxpose.so exports; everything else in the library stays hidden (-fvisibility=hidden). */
#if defined(__GNUC__) || defined(__clang__)
#define XPOSE_API __attribute__((visibility("default")))
#else
#define XPOSE_API
#endif

/* Every status xpose returns, listed once: X(NAME, value, message). Values are fixed forever. */
#define XPOSE_STATUS_LIST(X)                                                                                           \
    X(XPOSE_OK, 0, "success")                                                                                          \
    X(XPOSE_ERR_NULL, -1, "a pointer argument is NULL while the data is not empty; pass valid buffers")                \
    X(XPOSE_ERR_ELEM_SIZE, -2, "unsupported element size; use 1, 2, 4, 8 or 16 bytes")                                 \
    X(XPOSE_ERR_LEADING_DIM, -3, "leading dimension smaller than the row it holds; use ld >= row length")              \
    X(XPOSE_ERR_OVERFLOW, -4, "the matrix size in bytes overflows size_t; use smaller dimensions")                     \
    X(XPOSE_ERR_OVERLAP, -5, "source and destination overlap; transpose into a separate buffer")                       \
    X(XPOSE_ERR_BATCH_STRIDE, -6,                                                                                      \
      "destination batch stride too small: batch members would overlap; use stride >= one matrix")                     \
    X(XPOSE_ERR_UNKNOWN_VARIANT, -7, "no variant of that name; `xpose list` shows them")                               \
    X(XPOSE_ERR_UNSUPPORTED, -8, "this variant does not handle that element size or type; pick another")               \
    X(XPOSE_ERR_NOT_BUILT, -9, "the CUDA backend was not built; reconfigure with nvcc on the PATH")                    \
    X(XPOSE_ERR_NO_DEVICE, -10, "no usable CUDA device; check the driver and CUDA_VISIBLE_DEVICES")                    \
    X(XPOSE_ERR_CUDA, -11, "a CUDA call or kernel launch failed; check memory and the driver")                         \
    X(XPOSE_ERR_NO_MEMORY, -12, "out of memory for a work buffer; free memory or use a smaller problem")               \
    X(XPOSE_ERR_INVALID, -13, "invalid argument (unknown backend, operation or type); check the call")                 \
    X(XPOSE_ERR_EMPTY, -14, "min or max of an empty array has no value; pass n >= 1")                                  \
    X(XPOSE_ERR_LIBRARY, -15, "an external library (cuBLAS, OpenBLAS) reported an error")                              \
    X(XPOSE_ERR_ALIGNMENT, -16, "a pointer is not aligned to the element size; align it to elem_size bytes")           \
    X(XPOSE_ERR_POINTER, -17,                                                                                          \
      "the CUDA backend was given memory the device cannot reach (plain host memory?); pass device, managed "          \
      "or mapped pinned memory, or use XPOSE_BACKEND_CPU")                                                             \
    X(XPOSE_ERR_PERM, -18, "perm is not a permutation of 0..rank-1; name every axis exactly once")                     \
    X(XPOSE_ERR_RANK, -19, "rank out of range; use 1 to XPOSE_MAX_RANK (32) dimensions")                               \
    X(XPOSE_ERR_STRIDE, -20,                                                                                           \
      "destination strides make two elements share a place; give every destination element its own address")           \
    X(XPOSE_ERR_MISMATCH, -21,                                                                                         \
      "the ranks of a collective call passed different arguments; pass the same shape, splits and method everywhere")  \
    X(XPOSE_ERR_COMM, -22, "NCCL reported an error; check the communicator and NCCL_DEBUG=WARN's output")

typedef enum xpose_status {
#define XPOSE_STATUS_ENUM_(name, value, msg) name = value,
    XPOSE_STATUS_LIST(XPOSE_STATUS_ENUM_)
#undef XPOSE_STATUS_ENUM_
} xpose_status;

/* Where the data lives. AUTO picks CUDA for device pointers when the backend is built, else CPU. */
typedef enum xpose_backend { XPOSE_BACKEND_AUTO = 0, XPOSE_BACKEND_CPU = 1, XPOSE_BACKEND_CUDA = 2 } xpose_backend;

/* What a variant computes: a transpose, a plain copy (the bandwidth bound), a reduction, or an in-place transpose. */
typedef enum xpose_family {
    XPOSE_FAMILY_TRANSPOSE = 0,
    XPOSE_FAMILY_COPY = 1,
    XPOSE_FAMILY_REDUCE = 2,
    XPOSE_FAMILY_INPLACE = 3
} xpose_family;

/* dst (cols x rows, leading dimension ld_dst) := transpose of src (rows x cols, leading dimension ld_src),
 * row-major, elements of elem_size bytes; batch matrices lie stride_src / stride_dst elements apart.
 * Zero in ld_* or stride_* means dense; batch 0 or 1 means one matrix. */
typedef struct xpose_layout {
    size_t rows, cols, elem_size;
    size_t ld_src, ld_dst;
    size_t batch;
    size_t stride_src, stride_dst;
} xpose_layout;

/* The fastest correct transpose for the backend. CUDA: src/dst are device pointers, the call is
 * synchronous on the default stream (xpose_cuda.h has the stream-ordered entry point). CPU: a call may take up to
 * about 1.3 MiB of host memory per thread for its tiles, freed before it returns; where that allocation fails it
 * returns XPOSE_ERR_NO_MEMORY, and dst may be partly written.
 * Returns XPOSE_OK or a negative xpose_status. Never aborts, never prints. */
XPOSE_API int xpose_transpose(xpose_backend backend, const xpose_layout *lay, const void *src, void *dst);

/* The same through one named variant, e.g. "cpu-blocked/32" or "shared-pad/16" ("name" alone picks the
 * variant's first parameter set). Copy-family variants copy the rows x cols bytes as they lie. */
XPOSE_API int xpose_transpose_variant(const char *variant, const xpose_layout *lay, const void *src, void *dst);

/* Reductions over a contiguous array. */
typedef enum xpose_reduce_op { XPOSE_SUM = 0, XPOSE_MIN = 1, XPOSE_MAX = 2 } xpose_reduce_op;
typedef enum xpose_dtype { XPOSE_F32 = 0, XPOSE_F64 = 1, XPOSE_I32 = 2, XPOSE_I64 = 3 } xpose_dtype;

/* *result := op over src[0..n). CUDA: src and result are device pointers. Sum of n = 0 is 0;
 * min/max of n = 0 returns XPOSE_ERR_EMPTY. */
XPOSE_API int xpose_reduce(xpose_backend backend, xpose_reduce_op op, xpose_dtype type, const void *src, size_t n,
                           void *result);
XPOSE_API int xpose_reduce_variant(const char *variant, xpose_reduce_op op, xpose_dtype type, const void *src, size_t n,
                                   void *result);

/* N-dimensional permutations. A tensor of `rank` dimensions has extents ext[0..rank) and element strides per
 * dimension; NULL strides mean dense row-major (the last index varies fastest). The destination has extents
 * ext[perm[k]] and dst[j] = src[i] where i[perm[k]] = j[k]: NumPy's np.transpose(a, perm), PyTorch's permute.
 * src_strides[d] belongs to source dimension d, dst_strides[k] to destination dimension k. Source strides may be 0
 * (broadcast) or negative (reversed views; the pointer is then that of element 0); destination strides must give
 * every element its own place (XPOSE_ERR_STRIDE), and the two tensors must not overlap (XPOSE_ERR_OVERLAP). An extent
 * of 0 is valid: nothing is read or written. Element sizes 1, 2, 4, 8, 16. */
#define XPOSE_MAX_RANK 32

/* A plan: checked and planned once (xpose_permute_plan_create), executed many times, destroyed once. Opaque, so that
 * its contents may change without breaking the ABI. A plan may be executed from several threads at once. */
typedef struct xpose_permute_plan_s *xpose_permute_plan;

/* Plans the permutation; *plan is set on XPOSE_OK, else left NULL. Backend AUTO plans for both and picks per
 * execution: CUDA for device pointers where built, else the CPU. */
XPOSE_API int xpose_permute_plan_create(xpose_permute_plan *plan, xpose_backend backend, size_t elem_size, int rank,
                                        const size_t *extents, const int *perm, const int64_t *src_strides,
                                        const int64_t *dst_strides);
/* Runs a plan. CUDA: synchronous on the default stream (xpose_cuda.h has the stream-ordered one). */
XPOSE_API int xpose_permute_execute(const xpose_permute_plan plan, const void *src, void *dst);
/* What the plan does, in one line of text (the canonical dimensions, kernel and tile), NUL-terminated and cut to
 * `size` bytes. Returns the length of the whole text, or a negative status. */
XPOSE_API int xpose_permute_plan_describe(const xpose_permute_plan plan, xpose_backend backend, char *buf, size_t size);
/* Frees a plan; NULL is a no-op. */
XPOSE_API void xpose_permute_plan_destroy(xpose_permute_plan plan);
/* Plans, runs and frees in one call. */
XPOSE_API int xpose_permute(xpose_backend backend, size_t elem_size, int rank, const size_t *extents, const int *perm,
                            const void *src, const int64_t *src_strides, void *dst, const int64_t *dst_strides);

/* In-place transposes. `data` holds `batch` dense row-major rows x cols matrices back to back (batch 0 or 1: one);
 * afterwards the same bytes hold their cols x rows transposes, dense and back to back. Element sizes 1, 2, 4, 8, 16;
 * data aligned to the element size. Square matrices swap tile pairs across the diagonal (each element read and written
 * once, no workspace); rectangular ones take two or three passes over the data: the passes of Catanzaro, Keller and
 * Garland's decomposition (PPoPP 2014), each moving elements within a row or a column, or, where the shape allows,
 * passes that move contiguous blocks and runs of elements; on the CPU, where peeling up to 64 rows or columns lets
 * those passes run, one more copy-like pass for each set peeled (docs/variants.md). A 1 x N or N x 1 matrix is its own
 * transpose: nothing moves.
 *
 * Workspace, in bytes, exactly what xpose_transpose_inplace_workspace returns for the same arguments (0: none):
 * - square matrices, vectors: 0, on either backend;
 * - CPU, rectangular: t * P + (L > P ? L : 0), where P = min(2^20, rows * cols * elem_size) rounded up to a multiple of
 *   64, L = max(rows, cols) * elem_size (one long row, for rows a thread's P cannot hold), and t = xpose_get_threads(),
 *   or 1 where the whole batch is under 128 KiB. A caller's workspace that holds fewer than t slices of P runs on as
 *   many threads as it holds slices;
 * - CUDA, rectangular: 0 where one long row (L bytes) fits the shared memory of a thread-block cluster of the current
 *   device (8 x 227 KiB on sm_90, one block's 163 KiB on sm_80), else L (the long rows then go through it one at a
 *   time, a slower path).
 * workspace NULL: xpose allocates exactly that (host memory, or device memory ordered on the stream) before it touches
 * the data, and frees it before returning; a failed allocation returns XPOSE_ERR_NO_MEMORY with the data unchanged.
 * A caller's workspace (host memory for the CPU, device memory for CUDA; 16-byte aligned, not overlapping data) is
 * used instead; one smaller than the least the call runs with returns XPOSE_ERR_NO_MEMORY, the data unchanged. Every
 * check happens before anything moves: a call that returns a status other than XPOSE_OK on the CPU has not touched the
 * data. CUDA: see xpose_transpose_inplace_cuda (xpose_cuda.h) for what a fault mid-way leaves. */
XPOSE_API size_t xpose_transpose_inplace_workspace(xpose_backend backend, size_t rows, size_t cols, size_t elem_size,
                                                   size_t batch);
/* Returns XPOSE_OK or a negative status. AUTO picks CUDA for device memory where built; CUDA is synchronous on the
 * default stream (xpose_cuda.h has the stream-ordered entry point). The workspace query with AUTO gives the larger of
 * the two backends' needs. */
XPOSE_API int xpose_transpose_inplace(xpose_backend backend, size_t rows, size_t cols, size_t elem_size, size_t batch,
                                      void *data, void *workspace, size_t workspace_bytes);
/* The same through one named variant of the in-place family (`xpose list`: cpu-inplace-naive, cpu-inplace-square,
 * inplace-rect, ...); a workspace of xpose_transpose_inplace_workspace bytes serves every variant of the backend. A
 * square-only variant returns XPOSE_ERR_UNSUPPORTED for a rectangular matrix. */
XPOSE_API int xpose_transpose_inplace_variant(const char *variant, size_t rows, size_t cols, size_t elem_size,
                                              size_t batch, void *data, void *workspace, size_t workspace_bytes);

/* The message for a status; never NULL. */
XPOSE_API const char *xpose_strerror(int status);
/* Version string of the library actually linked, e.g. "0.1.0". */
XPOSE_API const char *xpose_version(void);

/* The variant registry, for tools that list, test or time every variant. */
typedef struct xpose_variant_info {
    const char *name;      /* e.g. "shared-pad" */
    const char *params;    /* e.g. "16" or "32x8"; "" when the variant has none */
    const char *about;     /* one line: what this step changes */
    xpose_backend backend; /* CPU or CUDA */
    xpose_family family;
    unsigned elem_sizes; /* bit k set: element size 2^k bytes supported (transpose, copy) */
    int available;       /* 1 when it can run here now */
    int threaded;        /* CPU: 1 when it runs on xpose_get_threads() threads, 0 on one; GPU: 0 */
    const char *why_not; /* when unavailable: why, in a few words */
} xpose_variant_info;

XPOSE_API int xpose_variant_count(void);
/* Fills *info for variant i (0 <= i < count); returns XPOSE_OK or XPOSE_ERR_INVALID. */
XPOSE_API int xpose_variant_get(int i, xpose_variant_info *info);
/* Index of "name" or "name/params", or a negative status. */
XPOSE_API int xpose_variant_find(const char *variant);

/* XPOSE_OK when CUDA variants can run here, else XPOSE_ERR_NOT_BUILT or XPOSE_ERR_NO_DEVICE. */
XPOSE_API int xpose_cuda_status(void);

/* Threads the CPU variants use (0 or less: one per processor; at most 4 per processor, more are clamped). The count
 * is xpose's own, for the whole process: it never changes the caller's OpenMP setting (omp_get_max_threads), and
 * each xpose call asks OpenMP for that many threads (a num_threads clause). Until set, xpose follows OpenMP's own
 * count (OMP_NUM_THREADS). Returns the count now in effect, or 1 where xpose was built without OpenMP. */
XPOSE_API int xpose_set_threads(int threads);
XPOSE_API int xpose_get_threads(void);

#ifdef __cplusplus
}
#endif
#endif
