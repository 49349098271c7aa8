/* inplace.c: the in-place transposes' entry points: check the call, size the workspace and allocate it before the
 * data is touched, run the variant, free the workspace. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "xp_dispatch.h"

int xp_inplace_fail_alloc;

/* The production rows, by backend (0 CPU, 1 CUDA) and shape (0 rectangular, 1 square): looked up once. */
static const char *const production_names[2][2] = {{"cpu-inplace-rect", "cpu-inplace-square"},
                                                   {"inplace-rect", "inplace-square"}};
static _Atomic(const xp_variant *) production_rows[2][2];

static const xp_variant *production(int cuda, int square)
{
    const xp_variant *v = atomic_load_explicit(&production_rows[cuda][square], memory_order_acquire);
    if (!v) {
        int st;
        v = xp_variant_lookup(production_names[cuda][square], &st);
        if (v)
            atomic_store_explicit(&production_rows[cuda][square], v, memory_order_release);
    }
    return v;
}

/* The call's checks that need no pointer, in the order the out-of-place checks run: XPOSE_OK with *empty set where
 * there is nothing to move. */
static int check_shape(size_t rows, size_t cols, size_t es, size_t batch, int *empty)
{
    size_t bytes;
    *empty = 0;
    if (es != 1 && es != 2 && es != 4 && es != 8 && es != 16)
        return XPOSE_ERR_ELEM_SIZE;
    if (rows == 0 || cols == 0) {
        *empty = 1;
        return XPOSE_OK;
    }
    if (!xp_mul_size(rows, cols, &bytes) || !xp_mul_size(bytes, es, &bytes) ||
        !xp_mul_size(bytes, batch ? batch : 1, &bytes) || bytes > (size_t)PTRDIFF_MAX)
        return XPOSE_ERR_OVERFLOW;
    return XPOSE_OK;
}

/* Allocates the workspace the call asks for: host memory for a CPU variant, stream-ordered device memory for a CUDA
 * one. */
static int alloc_ws(const xp_variant *v, xp_inplace_call *c)
{
    void *p = NULL;
    int st = XPOSE_ERR_NO_MEMORY;
    if (!xp_inplace_fail_alloc) {
        if (v->backend == XPOSE_BACKEND_CUDA)
            st = xp_cuda_alloc(c->need, c->stream, &p);
        else if ((p = aligned_alloc(64, (c->need + 63) & ~(size_t)63)) != NULL)
            st = XPOSE_OK;
    }
    c->ws = p;
    c->ws_bytes = p ? c->need : 0;
    return p ? XPOSE_OK : st;
}

static void free_ws(const xp_variant *v, xp_inplace_call *c)
{
    if (v->backend == XPOSE_BACKEND_CUDA)
        xp_cuda_free(c->ws, c->stream);
    else
        free(c->ws);
}

/* A caller's workspace: aligned, apart from the data, and at least what the call runs with. */
static int check_ws(const xp_inplace_call *c, size_t data_bytes)
{
    uintptr_t w = (uintptr_t)c->ws, d = (uintptr_t)c->data;
    if (w % 16)
        return XPOSE_ERR_ALIGNMENT;
    if (c->ws_bytes < c->need_min)
        return XPOSE_ERR_NO_MEMORY;
    if (c->ws_bytes > 0 && (w <= d ? d - w < c->ws_bytes : w - d < data_bytes))
        return XPOSE_ERR_OVERLAP;
    return XPOSE_OK;
}

int xp_run_inplace(const xp_variant *v, size_t rows, size_t cols, size_t es, size_t batch, void *data, void *ws,
                   size_t ws_bytes, void *stream, int sync)
{
    if (v->family != XPOSE_FAMILY_INPLACE)
        return XPOSE_ERR_UNSUPPORTED;
    int empty, st = check_shape(rows, cols, es, batch, &empty);
    if (st != XPOSE_OK || empty)
        return st;
    xp_inplace_call c;
    memset(&c, 0, sizeof c);
    c.rows = rows, c.cols = cols, c.es = es, c.batch = batch ? batch : 1;
    if (!data)
        return XPOSE_ERR_NULL;
    if ((uintptr_t)data % es)
        return XPOSE_ERR_ALIGNMENT;
    if (!(v->elem_sizes & (unsigned)es))
        return XPOSE_ERR_UNSUPPORTED;
    int cuda = v->backend == XPOSE_BACKEND_CUDA;
    if (cuda && (st = xp_cuda_probe()) != XPOSE_OK)
        return st;
    if (!v->inplace)
        return cuda ? XPOSE_ERR_NOT_BUILT : XPOSE_ERR_UNSUPPORTED;
    if (cuda && (st = xp_cuda_check_ptrs(data, ws)) != XPOSE_OK)
        return st;
    c.data = data, c.ws = ws, c.ws_bytes = ws ? ws_bytes : 0;
    c.p0 = v->p0, c.p1 = v->p1, c.stream = stream, c.query = 1;
    if ((st = v->inplace(&c)) != XPOSE_OK)
        return st;
    c.query = 0;
    int own = !ws && c.need > 0;
    if (ws && (st = check_ws(&c, rows * cols * es * c.batch)) != XPOSE_OK)
        return st;
    if (own && (st = alloc_ws(v, &c)) != XPOSE_OK)
        return st;
    st = v->inplace(&c);
    if (own)
        free_ws(v, &c);
    if (st == XPOSE_OK && sync && cuda)
        st = xp_cuda_sync(stream);
    return st;
}

/* The backend a call runs on: AUTO sends device pointers to CUDA where it can run. */
static xpose_backend resolve(xpose_backend be, const void *data)
{
    if (be != XPOSE_BACKEND_AUTO)
        return be;
    return xp_cuda_probe() == XPOSE_OK && xp_cuda_is_device_ptr(data) ? XPOSE_BACKEND_CUDA : XPOSE_BACKEND_CPU;
}

int xp_inplace_on(xpose_backend backend, size_t rows, size_t cols, size_t es, size_t batch, void *data, void *ws,
                  size_t ws_bytes, void *stream, int sync)
{
    if (backend != XPOSE_BACKEND_AUTO && backend != XPOSE_BACKEND_CPU && backend != XPOSE_BACKEND_CUDA)
        return XPOSE_ERR_INVALID;
    int cuda = resolve(backend, data) == XPOSE_BACKEND_CUDA, st;
    if (cuda && (st = xp_cuda_probe()) != XPOSE_OK)
        return st;
    const xp_variant *v = production(cuda, rows == cols);
    if (!v)
        return cuda ? XPOSE_ERR_NOT_BUILT : XPOSE_ERR_UNSUPPORTED;
    return xp_run_inplace(v, rows, cols, es, batch, data, ws, ws_bytes, stream, sync);
}

/* The workspace one backend's production variant takes: 0 where the call is invalid or cannot run here. */
static size_t need_on(int cuda, size_t rows, size_t cols, size_t es, size_t batch)
{
    int empty;
    const xp_variant *v = production(cuda, rows == cols);
    if (check_shape(rows, cols, es, batch, &empty) != XPOSE_OK || empty || !v || !v->inplace ||
        (cuda && xp_cuda_probe() != XPOSE_OK))
        return 0;
    xp_inplace_call c;
    memset(&c, 0, sizeof c);
    c.rows = rows, c.cols = cols, c.es = es, c.batch = batch ? batch : 1;
    c.p0 = v->p0, c.p1 = v->p1, c.query = 1;
    return v->inplace(&c) == XPOSE_OK ? c.need : 0;
}

size_t xpose_transpose_inplace_workspace(xpose_backend backend, size_t rows, size_t cols, size_t elem_size,
                                         size_t batch)
{
    size_t cpu = backend == XPOSE_BACKEND_CUDA ? 0 : need_on(0, rows, cols, elem_size, batch);
    size_t gpu = backend == XPOSE_BACKEND_CPU ? 0 : need_on(1, rows, cols, elem_size, batch);
    if (backend != XPOSE_BACKEND_AUTO && backend != XPOSE_BACKEND_CPU && backend != XPOSE_BACKEND_CUDA)
        return 0;
    return cpu > gpu ? cpu : gpu;
}

int xpose_transpose_inplace(xpose_backend backend, size_t rows, size_t cols, size_t elem_size, size_t batch, void *data,
                            void *workspace, size_t workspace_bytes)
{
    return xp_inplace_on(backend, rows, cols, elem_size, batch, data, workspace, workspace_bytes, NULL, 1);
}

int xpose_transpose_inplace_variant(const char *variant, size_t rows, size_t cols, size_t elem_size, size_t batch,
                                    void *data, void *workspace, size_t workspace_bytes)
{
    int st;
    const xp_variant *v = xp_variant_lookup(variant, &st);
    return v ? xp_run_inplace(v, rows, cols, elem_size, batch, data, workspace, workspace_bytes, NULL, 1) : st;
}
