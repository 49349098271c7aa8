/* dist_nccl.c: the distributed transpose through NCCL: local transposes pack each peer's block, grouped
 * send/recv move them in chunks, 2-D copies place what arrives; the three overlap along the pipeline. */
#include "xp_dist.h"

/* Rank r holds A's rows [R_r, R_r + m_r); rank s receives A^T's rows [C_s, C_s + n_s), which are A's columns
 * there. Its block from r is (A_r[:, C_s .. C_s + n_s))^T, n_s x m_r. Packed transposed on r, that block is
 * contiguous, so chunk c of it (rows lo..hi of the n_s) is one message; s places it at dst[lo.., R_r ..] with a
 * strided copy. The block r keeps (s = r) is transposed straight into dst. The packs run first, on the caller's
 * stream (at HBM speed they stay ahead of the links); each chunk's messages wait for its packs on the side
 * stream; each chunk's placing waits for its messages on the caller's stream. */
static int exchange(struct xpose_dist_plan_s *p, int c)
{
    const int P = p->nranks, r = p->rank;
    const size_t es = p->es, m = p->src_off[r + 1] - p->src_off[r];
    XP_CUDA_TRY(cudaStreamWaitEvent(p->side, p->packed[c], 0));
    XP_NCCL_TRY(ncclGroupStart());
    for (int k = 1; k < P; k++) {
        int to = (r + k) % P, from = (r - k + P) % P;
        size_t lo, hi, rlo, rhi, mf = p->src_off[from + 1] - p->src_off[from];
        xp_dist_chunk(p, to, c, &lo, &hi);
        xp_dist_chunk(p, r, c, &rlo, &rhi);
        if (hi > lo && m)
            XP_NCCL_TRY(ncclSend(p->sendbuf + p->send_at[to] + lo * m * es, (hi - lo) * m * es, ncclInt8, to, p->comm,
                                 p->side));
        if (rhi > rlo && mf)
            XP_NCCL_TRY(ncclRecv(p->recvbuf + p->recv_at[from] + rlo * mf * es, (rhi - rlo) * mf * es, ncclInt8, from,
                                 p->comm, p->side));
    }
    XP_NCCL_TRY(ncclGroupEnd());
    XP_CUDA_TRY(cudaEventRecord(p->arrived[c], p->side));
    return XPOSE_OK;
}

static int place(struct xpose_dist_plan_s *p, int c, unsigned char *out, size_t dst_ld, cudaStream_t stream)
{
    const int P = p->nranks, r = p->rank;
    const size_t es = p->es;
    size_t lo, hi;
    xp_dist_chunk(p, r, c, &lo, &hi);
    XP_CUDA_TRY(cudaStreamWaitEvent(stream, p->arrived[c], 0));
    for (int k = 1; k < P && hi > lo; k++) {
        int from = (r - k + P) % P;
        size_t mf = p->src_off[from + 1] - p->src_off[from];
        if (mf)
            XP_CUDA_TRY(cudaMemcpy2DAsync(out + (lo * dst_ld + p->src_off[from]) * es, dst_ld * es,
                                          p->recvbuf + p->recv_at[from] + lo * mf * es, mf * es, mf * es, hi - lo,
                                          cudaMemcpyDeviceToDevice, stream));
    }
    return XPOSE_OK;
}

/* The caller's stream runs the packs `ahead` chunks in front of the arrivals (0: all of them first), then places
 * each chunk as it arrives; the side stream (highest priority) moves chunk c once it is packed. */
int xp_dist_execute_nccl(struct xpose_dist_plan_s *p, const void *src, size_t src_ld, void *dst, size_t dst_ld,
                         cudaStream_t stream)
{
    const int r = p->rank, K = p->chunks, ahead = p->ahead > 0 && p->ahead < K ? p->ahead : K;
    unsigned char *out = dst;
    int st = XPOSE_OK;
    XP_CUDA_TRY(cudaEventRecord(p->start, stream));
    XP_CUDA_TRY(cudaStreamWaitEvent(p->side, p->start, 0));
    for (int c = 0; !st && c < ahead; c++)
        st = xp_dist_pack(p, src, src_ld, c, stream);
    if (!st)
        st = xp_dist_local_transpose(p, src, src_ld, p->dst_off[r], p->dst_off[r + 1] - p->dst_off[r],
                                     out + p->src_off[r] * p->es, dst_ld, stream);
    for (int c = 0; !st && c < K; c++) {
        st = exchange(p, c);
        if (!st && c + ahead < K) {
            XP_CUDA_TRY(cudaStreamWaitEvent(stream, p->arrived[c], 0));
            st = xp_dist_pack(p, src, src_ld, c + ahead, stream);
        }
        if (!st)
            st = place(p, c, out, dst_ld, stream);
    }
    return st;
}
