/* dist_peer.c: the distributed transpose over CUDA IPC, for ranks that share one host: each GPU packs its blocks
 * at HBM speed, and copy engines move them over NVLink straight into their place in the receivers' dst. */
#define _DEFAULT_SOURCE /* gethostname */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xp_dist.h"

/* What each rank tells the others at plan creation: where its work buffer lies (the allocation's IPC handle and the
 * offset in it) and on which host; ok = 0 where it has no handle to give. */
typedef struct peer_info {
    cudaIpcMemHandle_t handle;
    unsigned long long host, offset, ok;
} peer_info;

static unsigned long long host_hash(void)
{
    char name[256] = {0};
    if (gethostname(name, sizeof name - 1) != 0)
        return 0;
    return xp_dist_hash(XP_DIST_HASH0, name, strlen(name));
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

/* Maps the allocation of handle h into this process (kept in the plan until its release): *base. */
static int mapping(struct xpose_dist_plan_s *p, const cudaIpcMemHandle_t *h, unsigned char **base)
{
    if (p->nipc == XP_DIST_MAX_PEERS)
        return XPOSE_ERR_UNSUPPORTED;
    void *m = NULL;
    if (cudaIpcOpenMemHandle(&m, *h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
        (void)cudaGetLastError();
        return XPOSE_ERR_POINTER;
    }
    p->ipc[p->nipc++] = m;
    *base = m;
    return XPOSE_OK;
}

/* This rank's info for buf, a device buffer (NULL: none to give). */
static void describe_buf(const void *buf, peer_info *mine)
{
    unsigned long long base = 0;
    memset(mine, 0, sizeof *mine);
    mine->host = host_hash();
    if (buf && !alloc_base(buf, &base) && cudaIpcGetMemHandle(&mine->handle, (void *)(uintptr_t)base) == cudaSuccess) {
        mine->offset = (unsigned long long)(uintptr_t)buf - base;
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
    describe_buf(probe, &mine);
    int st = exchange(p, &mine, all), ok = !st;
    for (int s = 0; ok && s < p->nranks; s++) {
        unsigned char *b;
        ok = all[s].ok && all[s].host == mine.host && (s == p->rank || !mapping(p, &all[s].handle, &b));
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
    /* The last execution's copies read through the mappings; nothing else of the device need finish. */
    if (p->ran)
        (void)cudaEventSynchronize(p->done);
    for (int i = 0; i < p->nipc; i++)
        (void)cudaIpcCloseMemHandle(p->ipc[i]);
    (void)cudaGetLastError();
    p->nipc = 0;
}

/* A barrier ordered on stream: every rank's earlier work on its stream is done when it completes here. */
static int stream_barrier(struct xpose_dist_plan_s *p, cudaStream_t stream)
{
    if (p->nranks > 1)
        XP_NCCL_TRY(ncclAllReduce(p->flag, p->flag, 1, ncclUint64, ncclMax, p->comm, stream));
    return XPOSE_OK;
}

int xp_dist_peer_connect(struct xpose_dist_plan_s *p)
{
    const int P = p->nranks, r = p->rank;
    peer_info mine, *all = calloc((size_t)P, sizeof *all);
    if (!all)
        return XPOSE_ERR_NO_MEMORY;
    describe_buf(p->sendbuf, &mine);
    mine.ok |= !p->sendbuf; /* nothing to send: no handle needed */
    int st = exchange(p, &mine, all);
    size_t n = p->dst_off[r + 1] - p->dst_off[r];
    for (int s = 0; !st && s < P; s++) {
        size_t ms = p->src_off[s + 1] - p->src_off[s];
        if (s == r || !ms || !n)
            continue; /* nothing to pull from s */
        if (!all[s].ok || all[s].host != mine.host)
            st = XPOSE_ERR_UNSUPPORTED;
        else if (!(st = mapping(p, &all[s].handle, &p->peer_send[s])))
            p->peer_send[s] += all[s].offset;
    }
    free(all);
    return st;
}

/* Rank r packs chunk c of its blocks for every rank into its own sendbuf, then a barrier on the side stream (every
 * rank has packed chunk c), then each rank's copy engines pull their blocks from the peers' sendbufs (mapped once, at
 * creation) into their place in the rank's own dst with 2-D copies, over NVLink, one stream per peer; the block r
 * keeps is transposed straight into dst meanwhile. A closing barrier: no rank repacks its sendbuf while another still
 * reads it. The caller's dst needs no IPC handle, and no call blocks the host. */
int xp_dist_execute_peer(struct xpose_dist_plan_s *p, const void *src, size_t src_ld, void *dst, size_t dst_ld,
                         cudaStream_t stream)
{
    const int P = p->nranks, r = p->rank;
    const size_t es = p->es;
    unsigned char *out = dst;
    int st = XPOSE_OK;
    /* Every barrier is queued whatever failed before it, so that no peer waits for ever. */
    for (int c = 0; c < p->chunks; c++) {
        if (!st)
            st = xp_dist_pack(p, src, src_ld, c, stream);
        if (!st && cudaStreamWaitEvent(p->side, p->packed[c], 0) != cudaSuccess)
            st = XPOSE_ERR_CUDA;
        int b = stream_barrier(p, p->side);
        st = st ? st : b;
        if (!st && cudaEventRecord(p->arrived[c], p->side) != cudaSuccess)
            st = XPOSE_ERR_CUDA;
    }
    if (!st)
        st = xp_dist_local_transpose(p, src, src_ld, p->dst_off[r], p->dst_off[r + 1] - p->dst_off[r],
                                     out + p->src_off[r] * es, dst_ld, stream);
    for (int k = 1; !st && k < P; k++) {
        int s = (r - k + P) % P; /* at step k every rank reads a different peer */
        size_t ms = p->src_off[s + 1] - p->src_off[s], at = xp_dist_send_at(p, s, r);
        for (int c = 0; !st && ms && c < p->chunks; c++) {
            size_t lo, hi;
            xp_dist_chunk(p, r, c, &lo, &hi);
            if (hi > lo && (cudaStreamWaitEvent(p->copy[s], p->arrived[c], 0) != cudaSuccess ||
                            cudaMemcpy2DAsync(out + (lo * dst_ld + p->src_off[s]) * es, dst_ld * es,
                                              p->peer_send[s] + at + lo * ms * es, ms * es, ms * es, hi - lo,
                                              cudaMemcpyDeviceToDevice, p->copy[s]) != cudaSuccess))
                st = XPOSE_ERR_CUDA;
        }
    }
    for (int s = 0; s < P; s++)
        if (s != r && (cudaEventRecord(p->copied[s], p->copy[s]) != cudaSuccess ||
                       cudaStreamWaitEvent(stream, p->copied[s], 0) != cudaSuccess))
            st = st ? st : XPOSE_ERR_CUDA;
    (void)cudaGetLastError();
    int closing = stream_barrier(p, stream);
    return st ? st : closing;
}
