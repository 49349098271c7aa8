/* peers.h: the peers' launchers (cuBLAS, OpenBLAS): benchmark-only rows kept out of libxpose. */
#ifndef XP_PEERS_H
#define XP_PEERS_H

#include "../core/xp_internal.h"
#include "xpose_peers.h"

#ifdef __cplusplus
extern "C" {
#endif

int xp_cuda_cublas_geam(const xp_call *c);
int xp_cpu_openblas(const xp_call *c);
int xp_cpu_openblas_imatcopy(xp_inplace_call *c);

#ifdef __cplusplus
}
#endif
#endif
