/* dist_env.h: the processes of a multi-GPU run and their NCCL communicator (dist_env.c), for `xpose bench --op
 * dist` and the multigpu tests. */
#ifndef DIST_ENV_H
#define DIST_ENV_H

#include <nccl.h>
#include <stddef.h>

typedef struct dist_env {
    int rank, size, local_rank, device;
    ncclComm_t comm;
} dist_env;

/* Rank, size and local rank from the launcher's variables (OpenMPI, MPICH, Slurm, torchrun); one process alone is
 * rank 0 of 1. */
void dist_env_read(dist_env *e);
/* dist_env_read, the GPU (local rank modulo the GPUs seen), and the communicator; 0, or -1 with why. */
int dist_env_init(dist_env *e, char *why, size_t n);
void dist_env_free(dist_env *e);

#endif
