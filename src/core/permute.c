/* permute.c: the N-d permutation entry points: the plan object (create, execute, describe, destroy) and the one-shot
 * call. A plan holds the canonical permutation and, where it is a copy or a 2-D transpose, the shape the production
 * transposes take; the backend is picked per execution where the plan was made for AUTO. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xp_dispatch.h"
#include "xp_permute.h"

struct xpose_permute_plan_s {
    xp_perm p;
    xpose_backend backend; /* as asked: AUTO, CPU or CUDA */
    int as_shape;          /* p is the copy or transpose `shape`: the production transposes run it */
    xp_shape shape;
};

static int backend_ok(xpose_backend b)
{
    return b == XPOSE_BACKEND_AUTO || b == XPOSE_BACKEND_CPU || b == XPOSE_BACKEND_CUDA;
}

/* Everything plan_create does but the allocation, so that the one-shot call plans on its stack. */
static int plan_init(struct xpose_permute_plan_s *q, xpose_backend backend, size_t es, int rank, const size_t *ext,
                     const int *perm, const int64_t *src_strides, const int64_t *dst_strides)
{
    if (!backend_ok(backend))
        return XPOSE_ERR_INVALID;
    int st = xp_perm_canon(es, rank, ext, perm, src_strides, dst_strides, &q->p);
    if (st != XPOSE_OK)
        return st;
    /* A plan for the GPU where none can run fails now, not at its first execution. */
    if (backend == XPOSE_BACKEND_CUDA && (st = xp_cuda_probe()) != XPOSE_OK)
        return st;
    q->backend = backend;
    q->as_shape = q->p.rank > 0 && xp_perm_as_shape(&q->p, &q->shape);
    return XPOSE_OK;
}

int xpose_permute_plan_create(xpose_permute_plan *plan, xpose_backend backend, size_t elem_size, int rank,
                              const size_t *extents, const int *perm, const int64_t *src_strides,
                              const int64_t *dst_strides)
{
    if (!plan)
        return XPOSE_ERR_NULL;
    *plan = NULL;
    struct xpose_permute_plan_s q;
    int st = plan_init(&q, backend, elem_size, rank, extents, perm, src_strides, dst_strides);
    if (st != XPOSE_OK)
        return st;
    if (!(*plan = malloc(sizeof q)))
        return XPOSE_ERR_NO_MEMORY;
    **plan = q;
    return XPOSE_OK;
}

void xpose_permute_plan_destroy(xpose_permute_plan plan) { free(plan); }

/* Pointers: present, element-aligned, and the bytes read [src + src_lo, src + src_hi) apart from those written
 * [dst, dst + dst_hi). Distances modulo 2^64 rather than sums, so that ranges near either end of the address space
 * cannot wrap. */
static int check_pointers(const xp_perm *p, const void *src, const void *dst)
{
    if (!src || !dst)
        return XPOSE_ERR_NULL;
    uintptr_t a = (uintptr_t)src + (uintptr_t)p->src_lo, b = (uintptr_t)dst;
    if ((uintptr_t)src % p->es || b % p->es)
        return XPOSE_ERR_ALIGNMENT;
    if (b - a < (uintptr_t)(p->src_hi - p->src_lo) || a - b < (uintptr_t)p->dst_hi)
        return XPOSE_ERR_OVERLAP;
    return XPOSE_OK;
}

int xp_permute_on(const struct xpose_permute_plan_s *q, xpose_backend want, const void *src, void *dst, void *stream,
                  int sync)
{
    if (!q)
        return XPOSE_ERR_NULL;
    if (want == XPOSE_BACKEND_CUDA && q->backend == XPOSE_BACKEND_CPU)
        return XPOSE_ERR_INVALID;
    if (q->p.count == 0)
        return XPOSE_OK; /* an extent of 0: nothing is read or written, whatever the pointers */
    int st = check_pointers(&q->p, src, dst);
    if (st != XPOSE_OK)
        return st;
    xpose_backend be = want == XPOSE_BACKEND_CUDA ? want : xp_resolve_backend(q->backend, src);
    if (q->as_shape) { /* xpose_transpose's own path from here on, device checks included */
        const xp_variant *v;
        st = xp_production_transpose(be, &v);
        return st != XPOSE_OK ? st : xp_run_shape(v, &q->shape, src, dst, stream, sync);
    }
    if (be == XPOSE_BACKEND_CUDA && ((st = xp_cuda_probe()) != XPOSE_OK || (st = xp_cuda_check_ptrs(src, dst))))
        return st;
    if (be == XPOSE_BACKEND_CPU)
        return xp_cpu_permute(&q->p, src, dst);
    st = xp_cuda_permute(&q->p, src, dst, stream);
    return st == XPOSE_OK && sync ? xp_cuda_sync(stream) : st;
}

int xpose_permute_execute(const xpose_permute_plan plan, const void *src, void *dst)
{
    return xp_permute_on(plan, XPOSE_BACKEND_AUTO, src, dst, NULL, 1);
}

int xpose_permute(xpose_backend backend, size_t elem_size, int rank, const size_t *extents, const int *perm,
                  const void *src, const int64_t *src_strides, void *dst, const int64_t *dst_strides)
{
    struct xpose_permute_plan_s q;
    int st = plan_init(&q, backend, elem_size, rank, extents, perm, src_strides, dst_strides);
    return st != XPOSE_OK ? st : xp_permute_on(&q, XPOSE_BACKEND_AUTO, src, dst, NULL, 1);
}

/* Text appended as snprintf writes it: cut to the buffer, the whole length counted. */
typedef struct text {
    char *buf;
    size_t size, len;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = t->len < t->size ? t->size - t->len : 0;
    int n = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

static void put_list(text *t, const char *what, int n, const size_t *u, const int64_t *s)
{
    put(t, "%s(", what);
    for (int k = 0; k < n; k++) {
        if (u)
            put(t, "%s%zu", k ? "," : "", u[k]);
        else
            put(t, "%s%lld", k ? "," : "", (long long)s[k]);
    }
    put(t, ")");
}

/* Whether the destination strides are the dense ones of the canonical extents (then the description leaves them
 * out). */
static int dst_dense(const xp_perm *p)
{
    int64_t s = 1;
    for (int k = p->rank - 1; k >= 0; k--) {
        if (p->ds[k] != s)
            return 0;
        s *= (int64_t)p->ext[k];
    }
    return 1;
}

int xpose_permute_plan_describe(const xpose_permute_plan plan, xpose_backend backend, char *buf, size_t size)
{
    if (!plan || (!buf && size))
        return XPOSE_ERR_NULL;
    if (!backend_ok(backend) ||
        (backend != XPOSE_BACKEND_AUTO && plan->backend != XPOSE_BACKEND_AUTO && backend != plan->backend))
        return XPOSE_ERR_INVALID;
    if (backend == XPOSE_BACKEND_AUTO) /* the plan's own; for an AUTO plan, where device memory would send it */
        backend = plan->backend != XPOSE_BACKEND_AUTO ? plan->backend
                  : xp_cuda_probe() == XPOSE_OK       ? XPOSE_BACKEND_CUDA
                                                      : XPOSE_BACKEND_CPU;
    int st = backend == XPOSE_BACKEND_CUDA ? xp_cuda_probe() : XPOSE_OK;
    if (st != XPOSE_OK)
        return st;
    const xp_perm *p = &plan->p;
    text t = {buf, size, 0};
    if (size)
        buf[0] = '\0';
    if (p->count == 0) {
        put(&t, "rank 0: an extent is 0, nothing to move");
        return (int)t.len;
    }
    put(&t, "rank %d canonical ", p->rank);
    put_list(&t, "", p->rank, p->ext, NULL);
    put_list(&t, " src strides ", p->rank, NULL, p->ss);
    if (!dst_dense(p))
        put_list(&t, " dst strides ", p->rank, NULL, p->ds);
    put(&t, " -> ");
    if (plan->as_shape) {
        const xp_variant *v;
        if ((st = xp_production_transpose(backend, &v)) != XPOSE_OK)
            return st;
        const xp_shape *s = &plan->shape;
        if (xp_shape_is_copy(s))
            put(&t, "copy/%s/%zu elements", v->name, s->rows * s->cols);
        else
            put(&t, "transpose/%s/%zux%zu", v->name, s->rows, s->cols);
        if (s->batch > 1)
            put(&t, " x%zu", s->batch);
        if (backend == XPOSE_BACKEND_CPU) { /* cpu-fast's own plan: kernel and tile, as the general routes say it */
            char fast[96];
            xp_cpu_shape_describe(s, fast, sizeof fast);
            put(&t, " (%s)", fast);
        }
    } else {
        size_t room = t.len < size ? size - t.len : 0;
        int n = backend == XPOSE_BACKEND_CUDA ? xp_cuda_permute_describe(p, room ? buf + t.len : NULL, room)
                                              : xp_cpu_permute_describe(p, room ? buf + t.len : NULL, room);
        if (n < 0)
            return n;
        t.len += (size_t)n;
    }
    return (int)t.len;
}
