/* dist_plan.c: the distributed transpose's plan: local checks, the ranks' agreement on the arguments, the work
 * buffers, and the one-shot call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xp_dist.h"

/* Device facts are per process; the plan switches to its communicator's GPU for each call and back. */
typedef struct dev_guard {
    int prev, ok;
} dev_guard;

static int dev_enter(dev_guard *g, int dev)
{
    g->ok = cudaGetDevice(&g->prev) == cudaSuccess;
    if (!g->ok || cudaSetDevice(dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return XPOSE_ERR_NO_DEVICE;
    }
    return XPOSE_OK;
}

static void dev_leave(const dev_guard *g)
{
    if (g->ok)
        (void)cudaSetDevice(g->prev);
}

unsigned long long xp_dist_hash(unsigned long long h, const void *bytes, size_t n)
{
    const unsigned char *c = bytes;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

/* Opens a call on comm's GPU: 0 or a status (with g untouched). */
static int comm_enter(struct ncclComm *comm, dev_guard *g)
{
    int dev = 0;
    if (!comm)
        return XPOSE_ERR_NULL;
    if (ncclCommCuDevice(comm, &dev) != ncclSuccess)
        return XPOSE_ERR_COMM;
    return dev_enter(g, dev);
}

/* counts (or NULL: NumPy's array_split of total) into the nranks + 1 prefix sums off; a bad split is a status. */
static int split(const size_t *counts, size_t total, int nranks, size_t *off)
{
    off[0] = 0;
    for (int k = 0; k < nranks; k++) {
        size_t n = counts ? counts[k] : total / (size_t)nranks + ((size_t)k < total % (size_t)nranks);
        if (n > total - off[k])
            return XPOSE_ERR_INVALID;
        off[k + 1] = off[k] + n;
    }
    return off[nranks] == total ? XPOSE_OK : XPOSE_ERR_INVALID;
}

int xp_dist_allreduce_max(struct xpose_dist_plan_s *p, unsigned long long *words, int n)
{
    XP_CUDA_TRY(cudaMemcpyAsync(p->flag, words, (size_t)n * sizeof *words, cudaMemcpyHostToDevice, p->side));
    XP_NCCL_TRY(ncclAllReduce(p->flag, p->flag, (size_t)n, ncclUint64, ncclMax, p->comm, p->side));
    XP_CUDA_TRY(cudaMemcpyAsync(words, p->flag, (size_t)n * sizeof *words, cudaMemcpyDeviceToHost, p->side));
    XP_CUDA_TRY(cudaStreamSynchronize(p->side));
    return XPOSE_OK;
}

/* Every rank learns whether any rank failed, and how: the most negative status wins. */
static int agree_status(struct xpose_dist_plan_s *p, int st)
{
    unsigned long long w = (unsigned long long)-st;
    int e = xp_dist_allreduce_max(p, &w, 1);
    return e ? e : -(int)w;
}

/* Bytes one rank sends one other rank, on average. */
static double pair_bytes(size_t rows, size_t cols, size_t es, int nranks)
{
    return (double)rows * (double)cols * (double)es / ((double)nranks * nranks);
}

/* The integer in environment variable `name`, clamped to [lo, hi]; def where unset. */
static int env_int(const char *name, int def, int lo, int hi)
{
    const char *v = getenv(name);
    long k = v ? strtol(v, NULL, 10) : def;
    return (int)(k < lo ? lo : k > hi ? hi : k);
}

/* Pipeline steps: chunks of at least 64 MiB a pair of ranks, at most 8 (docs/tuning.md, "dist: chunks"); each
 * step costs a group of NCCL calls or copies. XPOSE_DIST_CHUNKS (1 to XP_DIST_MAX_CHUNKS) overrides it for
 * measurements; the ranks agree on it with the rest. */
_Static_assert(XP_DIST_MAX_CHUNKS >= 8, "pick_chunks' own choice is at most 8");

static int pick_chunks(size_t rows, size_t cols, size_t es, int nranks)
{
    long k = env_int("XPOSE_DIST_CHUNKS", 0, 0, XP_DIST_MAX_CHUNKS); /* 0: not set */
    if (k == 0) {
        k = (long)(pair_bytes(rows, cols, es, nranks) / (64.0 * 1024 * 1024));
        k = k < 1 ? 1 : k > 8 ? 8 : k;
    }
    return (int)k;
}

size_t xp_dist_send_at(const struct xpose_dist_plan_s *p, int s, int t)
{
    size_t at = 0, m = p->src_off[s + 1] - p->src_off[s];
    for (int u = 0; u < t; u++)
        if (u != s)
            at += (p->dst_off[u + 1] - p->dst_off[u]) * m * p->es;
    return at;
}

/* The work buffers and the pipeline's events: the packed blocks for both methods, the landing zone for NCCL,
 * a copy stream per peer for PEER. */
static int alloc_buffers(struct xpose_dist_plan_s *p)
{
    int P = p->nranks, r = p->rank;
    size_t n = p->dst_off[r + 1] - p->dst_off[r], st = xp_dist_send_at(p, r, P), rt = 0;
    p->send_at = calloc((size_t)P, sizeof *p->send_at);
    p->recv_at = calloc((size_t)P, sizeof *p->recv_at);
    if (!p->send_at || !p->recv_at)
        return XPOSE_ERR_NO_MEMORY;
    for (int s = 0; s < P; s++) {
        if (s == r)
            continue;
        p->send_at[s] = xp_dist_send_at(p, r, s);
        p->recv_at[s] = rt;
        rt += (p->src_off[s + 1] - p->src_off[s]) * n * p->es;
    }
    if (p->method == XPOSE_DIST_PEER) {
        rt = 0;
        p->copy = calloc((size_t)P, sizeof *p->copy);
        p->copied = calloc((size_t)P, sizeof *p->copied);
        p->peer_send = calloc((size_t)P, sizeof *p->peer_send);
        if (!p->copy || !p->copied || !p->peer_send)
            return XPOSE_ERR_NO_MEMORY;
        for (int s = 0; s < P; s++)
            if (s != r && (cudaStreamCreateWithFlags(&p->copy[s], cudaStreamNonBlocking) != cudaSuccess ||
                           cudaEventCreateWithFlags(&p->copied[s], cudaEventDisableTiming) != cudaSuccess))
                return XPOSE_ERR_CUDA;
    }
    if ((st && cudaMalloc((void **)&p->sendbuf, st) != cudaSuccess) ||
        (rt && cudaMalloc((void **)&p->recvbuf, rt) != cudaSuccess)) {
        (void)cudaGetLastError();
        return XPOSE_ERR_NO_MEMORY;
    }
    for (int c = 0; c < p->chunks; c++)
        if (cudaEventCreateWithFlags(&p->packed[c], cudaEventDisableTiming) != cudaSuccess ||
            cudaEventCreateWithFlags(&p->arrived[c], cudaEventDisableTiming) != cudaSuccess)
            return XPOSE_ERR_CUDA;
    return XPOSE_OK;
}

static void plan_free(struct xpose_dist_plan_s *p)
{
    if (!p)
        return;
    xp_dist_peer_release(p);
    /* Stream-ordered frees after the last execution (a PEER plan has waited for it above, to unmap). */
    if (p->side && p->ran)
        (void)cudaStreamWaitEvent(p->side, p->done, 0);
    if (p->side) {
        (void)cudaFreeAsync(p->sendbuf, p->side);
        (void)cudaFreeAsync(p->recvbuf, p->side);
        (void)cudaFreeAsync(p->flag, p->side);
        (void)cudaStreamDestroy(p->side);
    }
    for (int c = 0; c < XP_DIST_MAX_CHUNKS; c++) {
        if (p->packed[c])
            (void)cudaEventDestroy(p->packed[c]);
        if (p->arrived[c])
            (void)cudaEventDestroy(p->arrived[c]);
    }
    for (int k = 0; k < p->nranks; k++) {
        if (p->copy && p->copy[k])
            (void)cudaStreamDestroy(p->copy[k]);
        if (p->copied && p->copied[k])
            (void)cudaEventDestroy(p->copied[k]);
    }
    free(p->copy);
    free(p->copied);
    free(p->peer_send);
    if (p->start)
        (void)cudaEventDestroy(p->start);
    if (p->done)
        (void)cudaEventDestroy(p->done);
    (void)cudaGetLastError();
    free(p->src_off);
    free(p->dst_off);
    free(p->send_at);
    free(p->recv_at);
    free(p);
}

/* The part of plan creation that every rank runs whatever its arguments: local checks (st_local, which the
 * one-shot call extends with its buffers' checks), then the agreement. */
static int plan_make(xpose_dist_plan *plan, struct ncclComm *comm, size_t rows, size_t cols, size_t es,
                     const size_t *src_rows, const size_t *dst_rows, xpose_dist_method method, int st_local)
{
    int P = 0, r = 0, dev = 0;
    if (ncclCommCount(comm, &P) != ncclSuccess || ncclCommUserRank(comm, &r) != ncclSuccess ||
        ncclCommCuDevice(comm, &dev) != ncclSuccess || P < 1)
        return XPOSE_ERR_COMM;
    struct xpose_dist_plan_s *p = calloc(1, sizeof *p);
    if (!p)
        return XPOSE_ERR_NO_MEMORY;
    p->comm = comm;
    p->nranks = P;
    p->rank = r;
    p->device = dev;
    p->rows = rows;
    p->cols = cols;
    p->es = es;
    p->src_off = calloc((size_t)P + 1, sizeof *p->src_off);
    p->dst_off = calloc((size_t)P + 1, sizeof *p->dst_off);
    if (!p->src_off || !p->dst_off) {
        plan_free(p);
        return XPOSE_ERR_NO_MEMORY;
    }
    int st = st_local;
    if (!st && es != 1 && es != 2 && es != 4 && es != 8 && es != 16)
        st = XPOSE_ERR_ELEM_SIZE;
    if (!st && (unsigned)method > XPOSE_DIST_PEER)
        st = XPOSE_ERR_INVALID;
    if (!st && cols && rows > SIZE_MAX / cols / es)
        st = XPOSE_ERR_OVERFLOW;
    /* The splits enter the hash even where a local check failed, so that only arguments that differ do. */
    int ss = split(src_rows, rows, P, p->src_off), sd = split(dst_rows, cols, P, p->dst_off);
    if (!st)
        st = ss ? ss : sd;
    p->chunks = pick_chunks(rows, cols, es, P);
    p->ahead = env_int("XPOSE_DIST_AHEAD", 0, 0, XP_DIST_MAX_CHUNKS); /* a measurement knob, like the chunks */
    /* The arguments every rank must share, hashed; a rank whose own checks failed still joins the all-reduce. */
    size_t shared[7] = {rows, cols, es, (size_t)method, (size_t)P, (size_t)p->chunks, (size_t)p->ahead};
    unsigned long long h = xp_dist_hash(XP_DIST_HASH0, shared, sizeof shared);
    h = xp_dist_hash(h, p->src_off, ((size_t)P + 1) * sizeof *p->src_off);
    h = xp_dist_hash(h, p->dst_off, ((size_t)P + 1) * sizeof *p->dst_off);
    /* The side stream at the highest priority: NCCL's kernels (and the peer copies' waits) take SMs as soon as
     * any frees, rather than after every queued pack. */
    int lo_prio = 0, hi_prio = 0;
    (void)cudaDeviceGetStreamPriorityRange(&lo_prio, &hi_prio);
    if (cudaStreamCreateWithPriority(&p->side, cudaStreamNonBlocking, hi_prio) != cudaSuccess ||
        cudaMalloc((void **)&p->flag, 4 * sizeof *p->flag) != cudaSuccess ||
        cudaEventCreateWithFlags(&p->start, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventCreateWithFlags(&p->done, cudaEventDisableTiming) != cudaSuccess) {
        /* Without the side stream there is no agreement; the other ranks would wait: a broken GPU. */
        (void)cudaGetLastError();
        plan_free(p);
        return XPOSE_ERR_CUDA;
    }
    unsigned long long w[3] = {h, ~h, (unsigned long long)-st};
    int e = xp_dist_allreduce_max(p, w, 3);
    if (!e)
        e = w[0] != ~w[1] ? XPOSE_ERR_MISMATCH : -(int)w[2];
    /* AUTO: PEER on 2 GPUs from 4 MiB a pair, else NCCL: below that its barriers cost more than its copy engines
     * save, and on more GPUs only the NCCL method has been measured against it (docs/tuning.md, "dist: method"). */
    if (method == XPOSE_DIST_AUTO && (P != 2 || pair_bytes(rows, cols, es, P) < 4.0 * 1024 * 1024))
        method = XPOSE_DIST_NCCL;
    if (!e && method != XPOSE_DIST_NCCL) {
        int ok = xp_dist_peer_possible(p); /* collective; the same answer everywhere */
        e = ok < 0 ? ok : !ok && method == XPOSE_DIST_PEER ? XPOSE_ERR_UNSUPPORTED : 0;
        method = ok == 1 ? XPOSE_DIST_PEER : XPOSE_DIST_NCCL;
    }
    p->method = method;
    if (!e)
        e = agree_status(p, alloc_buffers(p));
    if (!e && method == XPOSE_DIST_PEER)
        e = agree_status(p, xp_dist_peer_connect(p));
    if (e) {
        plan_free(p);
        return e;
    }
    *plan = p;
    return XPOSE_OK;
}

int xpose_dist_plan_create(xpose_dist_plan *plan, struct ncclComm *comm, size_t rows, size_t cols, size_t elem_size,
                           const size_t *src_rows, const size_t *dst_rows, xpose_dist_method method)
{
    if (!plan)
        return XPOSE_ERR_NULL;
    *plan = NULL;
    dev_guard g;
    int st = comm_enter(comm, &g);
    if (st)
        return st;
    st = plan_make(plan, comm, rows, cols, elem_size, src_rows, dst_rows, method, XPOSE_OK);
    dev_leave(&g);
    return st;
}

int xp_dist_local_transpose(const struct xpose_dist_plan_s *p, const void *src, size_t src_ld, size_t col0,
                            size_t ncols, void *dst, size_t dst_ld, cudaStream_t stream)
{
    size_t m = p->src_off[p->rank + 1] - p->src_off[p->rank];
    if (!m || !ncols)
        return XPOSE_OK;
    xpose_layout lay = {m, ncols, p->es, src_ld, dst_ld, 0, 0, 0};
    return xpose_transpose_cuda(&lay, (const unsigned char *)src + col0 * p->es, dst, stream);
}

int xp_dist_pack(struct xpose_dist_plan_s *p, const void *src, size_t src_ld, int c, cudaStream_t stream)
{
    const int P = p->nranks, r = p->rank;
    const size_t m = p->src_off[r + 1] - p->src_off[r];
    for (int k = 1; k < P; k++) {
        int s = (r + k) % P;
        size_t lo, hi;
        xp_dist_chunk(p, s, c, &lo, &hi);
        int st = xp_dist_local_transpose(p, src, src_ld, p->dst_off[s] + lo, hi - lo,
                                         p->sendbuf + p->send_at[s] + lo * m * p->es, m, stream);
        if (st)
            return st;
    }
    XP_CUDA_TRY(cudaEventRecord(p->packed[c], stream));
    return XPOSE_OK;
}

/* Checks that depend on this rank's buffers alone. */
static int local_checks(const struct xpose_dist_plan_s *p, const void *src, size_t *src_ld, const void *dst,
                        size_t *dst_ld)
{
    size_t m = p->src_off[p->rank + 1] - p->src_off[p->rank], n = p->dst_off[p->rank + 1] - p->dst_off[p->rank];
    *src_ld = *src_ld ? *src_ld : p->cols;
    *dst_ld = *dst_ld ? *dst_ld : p->rows;
    if ((m && p->cols && !src) || (n && p->rows && !dst))
        return XPOSE_ERR_NULL;
    if (*src_ld < p->cols || *dst_ld < p->rows)
        return XPOSE_ERR_LEADING_DIM;
    if ((src && (uintptr_t)src % p->es) || (dst && (uintptr_t)dst % p->es))
        return XPOSE_ERR_ALIGNMENT;
    size_t sb = m ? ((m - 1) * *src_ld + p->cols) * p->es : 0, db = n ? ((n - 1) * *dst_ld + p->rows) * p->es : 0;
    const unsigned char *s = src, *d = dst;
    if (sb && db && s < d + db && d < s + sb)
        return XPOSE_ERR_OVERLAP;
    const void *ptrs[2] = {sb ? src : NULL, db ? dst : NULL};
    for (int i = 0; i < 2; i++) {
        struct cudaPointerAttributes a;
        if (!ptrs[i])
            continue;
        if (cudaPointerGetAttributes(&a, ptrs[i]) != cudaSuccess) {
            (void)cudaGetLastError();
            return XPOSE_ERR_POINTER;
        }
        if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
            return XPOSE_ERR_POINTER;
    }
    return XPOSE_OK;
}

int xpose_dist_execute(xpose_dist_plan plan, const void *src, size_t src_ld, void *dst, size_t dst_ld,
                       cudaStream_t stream)
{
    if (!plan)
        return XPOSE_ERR_NULL;
    dev_guard g;
    int st = dev_enter(&g, plan->device);
    if (!st)
        st = local_checks(plan, src, &src_ld, dst, &dst_ld);
    if (!st && plan->ran)
        st = cudaStreamWaitEvent(stream, plan->done, 0) == cudaSuccess ? XPOSE_OK : XPOSE_ERR_CUDA;
    if (!st)
        st = plan->method == XPOSE_DIST_PEER ? xp_dist_execute_peer(plan, src, src_ld, dst, dst_ld, stream)
                                             : xp_dist_execute_nccl(plan, src, src_ld, dst, dst_ld, stream);
    if (!st) {
        st = cudaEventRecord(plan->done, stream) == cudaSuccess ? XPOSE_OK : XPOSE_ERR_CUDA;
        plan->ran = 1;
    }
    (void)cudaGetLastError();
    dev_leave(&g);
    return st;
}

int xpose_dist_plan_describe(const xpose_dist_plan p, char *buf, size_t size)
{
    if (!p)
        return XPOSE_ERR_NULL;
    int r = p->rank;
    int n = snprintf(buf, buf ? size : 0,
                     "dist %zux%zu e%zu over %d ranks; rank %d: rows %zu..%zu of A, %zu..%zu of A^T; %s", p->rows,
                     p->cols, p->es, p->nranks, r, p->src_off[r], p->src_off[r + 1], p->dst_off[r], p->dst_off[r + 1],
                     p->method == XPOSE_DIST_PEER ? "peer: pack, pull from the peers (CUDA IPC copies)"
                                                  : "nccl: pack, send/recv, place");
    if (n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " in %d chunks", p->chunks);
    return n;
}

void xpose_dist_plan_destroy(xpose_dist_plan plan)
{
    if (!plan)
        return;
    dev_guard g;
    if (dev_enter(&g, plan->device) == XPOSE_OK)
        plan_free(plan);
    dev_leave(&g);
}

int xpose_dist_transpose(struct ncclComm *comm, size_t rows, size_t cols, size_t elem_size, const size_t *src_rows,
                         const void *src, size_t src_ld, const size_t *dst_rows, void *dst, size_t dst_ld,
                         cudaStream_t stream)
{
    dev_guard g;
    int st = comm_enter(comm, &g);
    if (st)
        return st;
    xpose_dist_plan p = NULL;
    /* The buffers' checks need the splits; a bad split is caught again, and agreed on, inside plan_make. */
    struct xpose_dist_plan_s probe = {.rows = rows, .cols = cols, .es = elem_size ? elem_size : 1};
    int P = 0, r = 0, local = XPOSE_OK;
    if (ncclCommCount(comm, &P) != ncclSuccess || ncclCommUserRank(comm, &r) != ncclSuccess)
        local = XPOSE_ERR_COMM;
    size_t *all_s = calloc((size_t)P + 1, sizeof *all_s), *all_d = calloc((size_t)P + 1, sizeof *all_d);
    if (!local && (!all_s || !all_d))
        local = XPOSE_ERR_NO_MEMORY;
    if (!local && !split(src_rows, rows, P, all_s) && !split(dst_rows, cols, P, all_d)) {
        probe.src_off = all_s, probe.dst_off = all_d, probe.rank = r;
        local = local_checks(&probe, src, &src_ld, dst, &dst_ld);
    }
    free(all_s);
    free(all_d);
    st = plan_make(&p, comm, rows, cols, elem_size, src_rows, dst_rows, XPOSE_DIST_AUTO, local);
    dev_leave(&g);
    if (!st)
        st = xpose_dist_execute(p, src, src_ld, dst, dst_ld, stream);
    xpose_dist_plan_destroy(p);
    return st;
}
