/* xp_dist.h: the distributed transpose's plan, shared by its creation (dist_plan.c) and its two ways of running
 * (dist_nccl.c, dist_peer.c). */
#ifndef XP_DIST_H
#define XP_DIST_H

#include <cuda_runtime_api.h>
#include <nccl.h>
#include "xpose_dist.h"

#define XP_DIST_MAX_CHUNKS 16
#define XP_DIST_MAX_PEERS 64 /* ranks a peer plan maps (dist_peer.c) */

struct xpose_dist_plan_s {
    ncclComm_t comm;
    int rank, nranks, device;
    size_t rows, cols, es;
    size_t *src_off, *dst_off;        /* nranks + 1 prefix sums of the row splits of A and of A^T */
    xpose_dist_method method;         /* NCCL or PEER, never AUTO */
    int chunks;                       /* pipeline steps */
    int ahead;                        /* NCCL: chunks the packs may run ahead of the arrivals (0: all) */
    unsigned char *sendbuf, *recvbuf; /* the packed blocks for the other ranks; NCCL: what arrives from them */
    size_t *send_at, *recv_at;        /* each peer's region in sendbuf / recvbuf, bytes */
    cudaStream_t side;                /* the agreement; NCCL: the sends and receives; PEER: the per-chunk barriers */
    cudaEvent_t start, done, packed[XP_DIST_MAX_CHUNKS], arrived[XP_DIST_MAX_CHUNKS];
    cudaStream_t *copy; /* PEER: one stream per peer for the copies from it (nranks entries) */
    cudaEvent_t *copied;
    unsigned char **peer_send;    /* PEER: where this process sees each rank's sendbuf (nranks entries) */
    int ran;                      /* executed at least once: `done` was recorded */
    unsigned long long *flag;     /* device: the all-reduce that agrees, and PEER's barriers */
    void *ipc[XP_DIST_MAX_PEERS]; /* PEER: the peers' allocations mapped into this process (CUDA IPC) */
    int nipc;
};

/* Rows of A^T that rank s receives, cut into the pipeline's chunk c: [*lo, *hi). */
static inline void xp_dist_chunk(const struct xpose_dist_plan_s *p, int s, int c, size_t *lo, size_t *hi)
{
    size_t n = p->dst_off[s + 1] - p->dst_off[s];
    *lo = n * (size_t)c / (size_t)p->chunks;
    *hi = n * (size_t)(c + 1) / (size_t)p->chunks;
}

/* FNV-1a: the ranks' agreement hashes their arguments, and the peer method the host names. Equal inputs give equal
 * hashes; a collision between different ones would need 2^64 luck. */
#define XP_DIST_HASH0 1469598103934665603ull
unsigned long long xp_dist_hash(unsigned long long h, const void *bytes, size_t n);

/* Bytes into rank s's sendbuf where its packed block for rank t starts (the blocks in rank order, s's own left
 * out). */
size_t xp_dist_send_at(const struct xpose_dist_plan_s *p, int s, int t);
/* Packs chunk c of this rank's blocks for every other rank into sendbuf (transposed, contiguous) on stream, and
 * records packed[c]. */
int xp_dist_pack(struct xpose_dist_plan_s *p, const void *src, size_t src_ld, int c, cudaStream_t stream);

/* src's rows x cols block starting at column col0, transposed into dst (leading dimension dst_ld), on stream. */
int xp_dist_local_transpose(const struct xpose_dist_plan_s *p, const void *src, size_t src_ld, size_t col0,
                            size_t ncols, void *dst, size_t dst_ld, cudaStream_t stream);

int xp_dist_execute_nccl(struct xpose_dist_plan_s *p, const void *src, size_t src_ld, void *dst, size_t dst_ld,
                         cudaStream_t stream);
int xp_dist_execute_peer(struct xpose_dist_plan_s *p, const void *src, size_t src_ld, void *dst, size_t dst_ld,
                         cudaStream_t stream);
/* PEER: can every rank map the others' memory? Collective (one all-reduce); 1 yes, 0 no, < 0 a status. */
int xp_dist_peer_possible(struct xpose_dist_plan_s *p);
/* PEER: maps every peer's sendbuf into this process (peer_send); collective, at plan creation. 0 or a status. */
int xp_dist_peer_connect(struct xpose_dist_plan_s *p);
void xp_dist_peer_release(struct xpose_dist_plan_s *p);

/* A small all-reduce (max) of n 64-bit words on the plan's side stream, waited for: 0 or a status. */
int xp_dist_allreduce_max(struct xpose_dist_plan_s *p, unsigned long long *words, int n);

#define XP_CUDA_TRY(call)                                                                                              \
    do {                                                                                                               \
        if ((call) != cudaSuccess) {                                                                                   \
            (void)cudaGetLastError();                                                                                  \
            return XPOSE_ERR_CUDA;                                                                                     \
        }                                                                                                              \
    } while (0)
#define XP_NCCL_TRY(call)                                                                                              \
    do {                                                                                                               \
        if ((call) != ncclSuccess)                                                                                     \
            return XPOSE_ERR_COMM;                                                                                     \
    } while (0)

#endif
