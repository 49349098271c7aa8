/* dist_peer.c: the distributed transpose over CUDA IPC: every GPU transposes its blocks straight into the other
 * GPUs' dst, one pass over NVLink with no work buffers; for ranks that share one host. */
#define _DEFAULT_SOURCE /* gethostname */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xp_dist.h"

/* What each rank tells the others before a run: where its dst lies (the allocation's IPC handle and the offset in
 * it) and its leading dimension; ok = 0 where it has no handle to give. */
typedef struct peer_info {
    cudaIpcMemHandle_t handle;
    unsigned long long host, offset, ld, ok;
} peer_info;

static unsigned long long host_hash(void)
{
    char name[256] = {0};
    unsigned long long h = 1469598103934665603ull;
    if (gethostname(name, sizeof name - 1) != 0)
        return 0;
    for (const char *c = name; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

/* cuMemGetAddressRange through the runtime, so that libxpose_dist needs no libcuda at link time. */
typedef int (*range_fn)(unsigned long long *base, size_t *size, unsigned long long ptr);

static int alloc_base(const void *ptr, unsigned long long *base)
{
    static range_fn fn;
    size_t size = 0;
    if (!fn) {
        void *f = NULL;
        enum cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess || !f)
            return XPOSE_ERR_CUDA;
        fn = (range_fn)f;
    }
    return fn(base, &size, (unsigned long long)(uintptr_t)ptr) == 0 ? XPOSE_OK : XPOSE_ERR_POINTER;
}

/* All ranks' infos into all (nranks entries), through the side stream, waited for. */
static int exchange(struct xpose_dist_plan_s *p, const peer_info *mine, peer_info *all)
{
    size_t b = sizeof *mine, total = b * (size_t)p->nranks;
    void *dev = NULL;
    XP_CUDA_TRY(cudaMallocAsync(&dev, total, p->side));
    int st = XPOSE_OK;
    if (cudaMemcpyAsync((unsigned char *)dev + b * (size_t)p->rank, mine, b, cudaMemcpyHostToDevice, p->side) !=
        cudaSuccess)
        st = XPOSE_ERR_CUDA;
    if (!st &&
        ncclAllGather((unsigned char *)dev + b * (size_t)p->rank, dev, b, ncclInt8, p->comm, p->side) != ncclSuccess)
        st = XPOSE_ERR_COMM;
    if (!st && cudaMemcpyAsync(all, dev, total, cudaMemcpyDeviceToHost, p->side) != cudaSuccess)
        st = XPOSE_ERR_CUDA;
    (void)cudaFreeAsync(dev, p->side);
    if (cudaStreamSynchronize(p->side) != cudaSuccess)
        st = XPOSE_ERR_CUDA;
    (void)cudaGetLastError();
    return st;
}

/* Where this process sees rank s's allocation of handle h: a kept mapping, or a new one. */
static int mapping(struct xpose_dist_plan_s *p, int s, const cudaIpcMemHandle_t *h, unsigned char **base)
{
    for (int i = 0; i < p->nipc; i++)
        if (p->ipc[i].rank == s && !memcmp(&p->ipc[i].handle, h, sizeof *h)) {
            *base = p->ipc[i].base;
            return XPOSE_OK;
        }
    if (p->nipc == XP_DIST_MAX_PEERS) /* the table is full: nothing may still write through the old mappings */
        xp_dist_peer_release(p);
    void *m = NULL;
    if (cudaIpcOpenMemHandle(&m, *h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
        (void)cudaGetLastError();
        return XPOSE_ERR_POINTER;
    }
    p->ipc[p->nipc].handle = *h;
    p->ipc[p->nipc].rank = s;
    p->ipc[p->nipc].base = m;
    p->nipc++;
    *base = m;
    return XPOSE_OK;
}

/* This rank's info for dst (NULL: a small buffer of its own, for the creation's trial). */
static void describe_dst(const void *dst, size_t ld, peer_info *mine)
{
    unsigned long long base = 0;
    memset(mine, 0, sizeof *mine);
    mine->host = host_hash();
    mine->ld = ld;
    if (dst && !alloc_base(dst, &base) && cudaIpcGetMemHandle(&mine->handle, (void *)(uintptr_t)base) == cudaSuccess) {
        mine->offset = (unsigned long long)(uintptr_t)dst - base;
        mine->ok = 1;
    }
    (void)cudaGetLastError();
}

int xp_dist_peer_possible(struct xpose_dist_plan_s *p)
{
    if (p->nranks > XP_DIST_MAX_PEERS)
        return 0;
    void *probe = NULL;
    peer_info mine, *all = calloc((size_t)p->nranks, sizeof *all);
    if (!all)
        return XPOSE_ERR_NO_MEMORY;
    if (cudaMalloc(&probe, 256) != cudaSuccess)
        probe = NULL;
    describe_dst(probe, 0, &mine);
    int st = exchange(p, &mine, all), ok = !st;
    for (int s = 0; ok && s < p->nranks; s++) {
        unsigned char *b;
        ok = all[s].ok && all[s].host == mine.host && (s == p->rank || !mapping(p, s, &all[s].handle, &b));
    }
    xp_dist_peer_release(p);
    (void)cudaFree(probe);
    (void)cudaGetLastError();
    free(all);
    if (st)
        return st;
    unsigned long long fail = !ok;
    st = xp_dist_allreduce_max(p, &fail, 1);
    return st ? st : !fail;
}

void xp_dist_peer_release(struct xpose_dist_plan_s *p)
{
    if (!p->nipc)
        return;
    (void)cudaDeviceSynchronize();
    for (int i = 0; i < p->nipc; i++)
        (void)cudaIpcCloseMemHandle(p->ipc[i].base);
    (void)cudaGetLastError();
    p->nipc = 0;
}

/* A barrier ordered on stream: every rank's earlier work on its stream is done when it completes here. */
static int stream_barrier(struct xpose_dist_plan_s *p, cudaStream_t stream)
{
    XP_NCCL_TRY(ncclAllReduce(p->flag, p->flag, 1, ncclUint64, ncclMax, p->comm, stream));
    return XPOSE_OK;
}

/* The peers learn where this rank's dst is (and every rank learns whether all can run: a rank without a handle
 * makes every rank return XPOSE_ERR_POINTER). Then, after a barrier on the stream (the peers' dst are free), rank r
 * packs its block for each rank s, (A_r[:, C_s .. C_s + n_s))^T, in chunks at HBM speed, and a copy engine moves
 * each chunk into s's dst at columns R_r .. R_r + m_r over NVLink (a 2-D copy, one stream per peer), while the
 * block r keeps is transposed straight into its own dst. A closing barrier: every write into this rank's dst is
 * done when the stream passes it. Copy engines rather than kernels storing to peer memory: on 2 H200s the kernels
 * reached 0.66 of NCCL's all-to-all (docs/tuning.md, "dist: peer copies"). */
int xp_dist_execute_peer(struct xpose_dist_plan_s *p, const void *src, size_t src_ld, void *dst, size_t dst_ld,
                         cudaStream_t stream)
{
    const int P = p->nranks, r = p->rank;
    const size_t es = p->es, m = p->src_off[r + 1] - p->src_off[r];
    peer_info mine, *all = calloc((size_t)P, sizeof *all);
    if (!all)
        return XPOSE_ERR_NO_MEMORY;
    describe_dst(dst, dst_ld, &mine);
    int st = exchange(p, &mine, all);
    for (int s = 0; !st && s < P; s++)
        if (!all[s].ok)
            st = XPOSE_ERR_POINTER;
    unsigned char **base = calloc((size_t)P, sizeof *base);
    if (!st && !base)
        st = XPOSE_ERR_NO_MEMORY;
    for (int s = 0; !st && s < P; s++)
        if (s != r)
            st = mapping(p, s, &all[s].handle, &base[s]);
    /* A mapping that failed here while the trial at creation worked: every rank has passed the exchange, so the
     * others go on into the barriers; this rank must too, or they wait for ever. */
    int joined = stream_barrier(p, stream);
    if (!st && !joined && cudaEventRecord(p->start, stream) != cudaSuccess)
        st = XPOSE_ERR_CUDA;
    for (int c = 0; !st && !joined && c < p->chunks; c++) {
        for (int k = 1; !st && k < P; k++) {
            int s = (r + k) % P;
            size_t lo, hi;
            xp_dist_chunk(p, s, c, &lo, &hi);
            st = xp_dist_local_transpose(p, src, src_ld, p->dst_off[s] + lo, hi - lo,
                                         p->sendbuf + p->send_at[s] + lo * m * es, m, stream);
        }
        if (!st && cudaEventRecord(p->packed[c], stream) != cudaSuccess)
            st = XPOSE_ERR_CUDA;
    }
    for (int k = 1; !st && !joined && k < P; k++) {
        int s = (r + k) % P;
        cudaStream_t cs = p->copy[s];
        if (cudaStreamWaitEvent(cs, p->start, 0) != cudaSuccess)
            st = XPOSE_ERR_CUDA;
        for (int c = 0; !st && c < p->chunks; c++) {
            size_t lo, hi, ld = all[s].ld;
            xp_dist_chunk(p, s, c, &lo, &hi);
            if (cudaStreamWaitEvent(cs, p->packed[c], 0) != cudaSuccess ||
                (hi > lo && m &&
                 cudaMemcpy2DAsync(base[s] + all[s].offset + (lo * ld + p->src_off[r]) * es, ld * es,
                                   p->sendbuf + p->send_at[s] + lo * m * es, m * es, m * es, hi - lo,
                                   cudaMemcpyDeviceToDevice, cs) != cudaSuccess))
                st = XPOSE_ERR_CUDA;
        }
    }
    if (!st && !joined)
        st = xp_dist_local_transpose(p, src, src_ld, p->dst_off[r], p->dst_off[r + 1] - p->dst_off[r],
                                     (unsigned char *)dst + p->src_off[r] * es, dst_ld, stream);
    /* The stream waits for every copy stream, whatever failed, so that the barrier covers all that was queued. */
    for (int k = 1; !joined && k < P; k++) {
        int s = (r + k) % P;
        if (cudaEventRecord(p->copied[s], p->copy[s]) != cudaSuccess ||
            cudaStreamWaitEvent(stream, p->copied[s], 0) != cudaSuccess)
            st = st ? st : XPOSE_ERR_CUDA;
    }
    (void)cudaGetLastError();
    int closing = joined ? joined : stream_barrier(p, stream);
    free(base);
    free(all);
    return st ? st : closing;
}
