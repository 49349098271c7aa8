/* xpose_dist.h: transposes of matrices distributed by rows over several GPUs, one process per GPU, through NCCL
 * (libxpose_dist, built where NCCL is found). */
#ifndef XPOSE_DIST_H
#define XPOSE_DIST_H

#include "xpose_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NCCL's communicator (ncclComm_t is `struct ncclComm *`), named here so that this header needs no nccl.h. */
struct ncclComm;

/* How the blocks travel between the GPUs. Both first pack each rank's blocks for the others by local transposes,
 * in pipelined chunks, into a work buffer of the plan (the size of the blocks this rank sends). NCCL: NCCL's
 * send/recv moves them and copies place what arrives (a second work buffer); works between hosts. PEER: the
 * receivers' copy engines pull them over NVLink straight into their place in dst (CUDA IPC of the plan's buffer:
 * every GPU on one host). AUTO: see docs/tuning.md, "dist: method". */
typedef enum xpose_dist_method { XPOSE_DIST_AUTO = 0, XPOSE_DIST_NCCL = 1, XPOSE_DIST_PEER = 2 } xpose_dist_method;

/* The global matrix A is rows x cols, row-major, split by rows over the communicator's ranks: rank r holds
 * src_rows[r] consecutive rows (rank 0 the first ones) in its src, a src_rows[r] x cols matrix with leading
 * dimension src_ld elements. The result A^T is cols x rows, split the same way: rank r receives dst_rows[r] rows of
 * it (rank 0 the first ones) in its dst, leading dimension dst_ld. Both count arrays have one entry per rank, the
 * same on every rank, summing to rows and cols; NULL splits evenly as NumPy's array_split does (the first
 * rows % P ranks get one more). Element sizes 1, 2, 4, 8, 16. One process (or thread) per GPU; src and dst are
 * device memory of the communicator's GPU. */
typedef struct xpose_dist_plan_s *xpose_dist_plan;

/* Collective: every rank of comm calls it with the same arguments. It first agrees on them (one small all-reduce
 * of a hash, host-blocking): where any rank passed different ones, every rank returns XPOSE_ERR_MISMATCH; where
 * any rank's arguments are bad, every rank returns that status. Then it allocates the plan's work buffers. */
XPOSE_API int xpose_dist_plan_create(xpose_dist_plan *plan, struct ncclComm *comm, size_t rows, size_t cols,
                                     size_t elem_size, const size_t *src_rows, const size_t *dst_rows,
                                     xpose_dist_method method);
/* Collective and asynchronous on `stream`: every rank calls it with its own buffers (ld 0: dense). Only local
 * checks happen here (the plan's arguments were agreed at creation): a rank that returns an error has queued
 * nothing, so pass valid buffers on every rank. dst must not overlap src. */
XPOSE_API int xpose_dist_execute(xpose_dist_plan plan, const void *src, size_t src_ld, void *dst, size_t dst_ld,
                                 cudaStream_t stream);
/* The plan in one line: ranks, split, method, chunks. Returns the text's length or a negative status. */
XPOSE_API int xpose_dist_plan_describe(const xpose_dist_plan plan, char *buf, size_t size);
/* Frees the plan; NULL is a no-op. Not collective. The work buffers are freed on the GPU once the plan's last
 * execution has finished; only a PEER plan waits on the host, for that execution, before it unmaps the peers'
 * buffers. */
XPOSE_API void xpose_dist_plan_destroy(xpose_dist_plan plan);
/* Plans (agreeing on every argument, the buffers' checks included: nothing is written to dst unless all agree),
 * runs on `stream` and frees the plan; only the agreement blocks the host. */
XPOSE_API int xpose_dist_transpose(struct ncclComm *comm, size_t rows, size_t cols, size_t elem_size,
                                   const size_t *src_rows, const void *src, size_t src_ld, const size_t *dst_rows,
                                   void *dst, size_t dst_ld, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
