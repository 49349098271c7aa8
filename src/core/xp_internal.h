/* xp_internal.h: types shared by the core and the backends: a checked layout, a call, a registry row. */
#ifndef XP_INTERNAL_H
#define XP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "xpose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A layout after xp_layout_check: every default filled in, every product known not to overflow. */
typedef struct xp_shape {
    size_t rows, cols, es; /* es: element size in bytes */
    size_t lds, ldd;       /* leading dimensions, elements */
    size_t batch;          /* >= 1 */
    size_t ss, sd;         /* batch strides, elements */
    size_t src_bytes;      /* bytes spanned by the source, first to last element of the batch */
    size_t dst_bytes;
} xp_shape;

/* True where the transpose moves the same bytes in the same order, so a copy does it: a one-row matrix
 * written to a column with ldd 1, or a one-column matrix read with lds 1. */
static inline int xp_shape_is_copy(const xp_shape *s)
{
    return (s->rows == 1 && s->ldd == 1) || (s->cols == 1 && s->lds == 1);
}

/* One transpose (or copy) request as a variant sees it. */
typedef struct xp_call {
    xp_shape s;
    const void *src;
    void *dst;
    int p0, p1;   /* the variant's parameters (tile, side, block ...) */
    void *stream; /* cudaStream_t for CUDA variants; NULL is the default stream */
} xp_call;

/* One reduction request. */
typedef struct xp_reduce_call {
    xpose_reduce_op op;
    xpose_dtype type;
    size_t n;
    const void *src;
    void *result;
    int p0, p1;
    void *stream;
} xp_reduce_call;

/* One in-place transpose request as a variant sees it, checked: `batch` dense rows x cols matrices back to back at
 * data, which afterwards hold their cols x rows transposes. With `query` set the variant only says what workspace the
 * call takes (need: for its full speed; need_min: the least it runs with; 0 for none), or declines the shape
 * (XPOSE_ERR_UNSUPPORTED), and touches nothing: src/core/inplace.c allocates before any data moves. */
typedef struct xp_inplace_call {
    size_t rows, cols, es, batch;
    void *data;
    void *ws; /* at least need_min bytes, 16-byte aligned; NULL where need_min is 0 */
    size_t ws_bytes;
    int p0, p1;
    void *stream; /* cudaStream_t for CUDA variants */
    int query;
    size_t need, need_min;
} xp_inplace_call;

typedef int (*xp_transpose_fn)(const xp_call *call);
typedef int (*xp_reduce_fn)(const xp_reduce_call *call);
typedef int (*xp_inplace_fn)(xp_inplace_call *call);

/* A registry row. Backends each publish a table of these; src/core/registry.c joins them. */
typedef struct xp_variant {
    const char *name;
    const char *params;
    const char *about;
    xpose_backend backend;
    xpose_family family;
    int p0, p1;
    unsigned elem_sizes;       /* bit k: element size 2^k; ignored for reductions */
    xp_transpose_fn transpose; /* transpose and copy families; NULL where the backend is not built */
    xp_reduce_fn reduce;       /* reduce family */
    int one_thread;            /* CPU: runs on one thread whatever xpose_set_threads says */
    xp_inplace_fn inplace;     /* in-place family; NULL where the backend is not built */
} xp_variant;

typedef struct xp_variant_table {
    const xp_variant *rows;
    size_t count;
} xp_variant_table;

#define XP_ELEM_ALL 0x1Fu /* 1, 2, 4, 8, 16 bytes */
#define XP_ELEM_4_8_16 0x1Cu
#define XP_COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Checks a public layout and fills *out. Returns XPOSE_OK or the status naming the first problem.
 * Pointers are checked by xp_check_buffers, once the sizes are known to be sane. */
int xp_layout_check(const xpose_layout *lay, xp_shape *out);
int xp_check_buffers(const xp_shape *s, const void *src, const void *dst);

/* a * b into *out; returns 0 on overflow. */
int xp_mul_size(size_t a, size_t b, size_t *out);
int xp_add_size(size_t a, size_t b, size_t *out);

/* Bytes per element of a reduction type, or 0 for an unknown type. */
size_t xp_dtype_size(xpose_dtype t);

/* Appends a program's own table (the CLI's peers) to the registry; call before any other xpose call and before
 * threads start. XPOSE_ERR_INVALID when the table was added before or no slot is left. */
int xp_registry_add(const xp_variant_table *t);

/* Registry lookups used by the dispatchers. */
const xp_variant *xp_variant_lookup(const char *id, int *status);
const xp_variant *xp_variant_row(int i);
int xp_variant_total(void);

/* CUDA side, defined in src/cuda when built (else in src/core/cuda_absent.c). */
int xp_cuda_probe(void); /* XPOSE_OK, XPOSE_ERR_NOT_BUILT or XPOSE_ERR_NO_DEVICE */
int xp_cuda_is_device_ptr(const void *p);
/* XPOSE_OK where a kernel on the current device may dereference a and b (NULL: not checked): device memory of this
 * device or of a peer it can reach, managed memory, mapped pinned memory, or any memory where the device reads
 * pageable memory; else XPOSE_ERR_POINTER: a kernel given plain host memory faults and leaves the caller's CUDA
 * context unusable. One device look-up for both. */
int xp_cuda_check_ptrs(const void *a, const void *b);
int xp_cuda_sync(void *stream); /* waits for the stream; maps errors to XPOSE_ERR_CUDA */
/* Device memory ordered on `stream` (cudaMallocAsync / cudaFreeAsync): XPOSE_OK, or XPOSE_ERR_NO_MEMORY with *p NULL. */
int xp_cuda_alloc(size_t bytes, void *stream, void **p);
void xp_cuda_free(void *p, void *stream);

/* Tests only: while nonzero, the workspace allocations of the in-place calls fail (src/core/inplace.c). */
extern int xp_inplace_fail_alloc;

#ifdef __cplusplus
}
#endif
#endif
