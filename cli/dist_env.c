/* dist_env.c: one NCCL communicator over the processes a launcher started (mpirun, srun, torchrun): rank and size
 * from their environment variables, NCCL's unique id handed from rank 0 to the others through a file. */
#define _DEFAULT_SOURCE /* usleep */
#include "dist_env.h"
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The first of the variables set, as a number; -1 where none is. */
static long env_first(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (v && *v)
            return strtol(v, NULL, 10);
    }
    return -1;
}

void dist_env_read(dist_env *e)
{
    static const char *const rank[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "RANK", NULL},
                             *const size[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "WORLD_SIZE", NULL},
                             *const local[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID",
                                               "LOCAL_RANK", NULL};
    long r = env_first(rank), n = env_first(size), l = env_first(local);
    e->rank = r < 0 ? 0 : (int)r;
    e->size = n < 1 ? 1 : (int)n;
    e->local_rank = l < 0 ? e->rank : (int)l;
}

/* Where rank 0 leaves the id: XPOSE_DIST_ID_FILE (a shared file system across hosts), else a name in /tmp that
 * only this launch's processes share: the job's PMIx namespace, or the launcher's daemon, their common parent. */
static void id_path(char *buf, size_t n)
{
    const char *f = getenv("XPOSE_DIST_ID_FILE"), *ns = getenv("PMIX_NAMESPACE");
    if (f && *f)
        snprintf(buf, n, "%s", f);
    else if (ns && *ns)
        snprintf(buf, n, "/tmp/xpose-nccl-%s.id", ns);
    else
        snprintf(buf, n, "/tmp/xpose-nccl-%ld.id", (long)getppid());
}

static int write_id(const char *path, const ncclUniqueId *id)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(id, sizeof *id, 1, f) == 1;
    if (f)
        ok &= fclose(f) == 0;
    return ok && rename(tmp, path) == 0 ? 0 : -1; /* whole or absent: the others never read half an id */
}

static int read_id(const char *path, ncclUniqueId *id, int seconds)
{
    for (long waited = 0; waited < seconds * 1000L; waited += 10) {
        FILE *f = fopen(path, "rb");
        if (f) {
            int ok = fread(id, sizeof *id, 1, f) == 1;
            fclose(f);
            if (ok)
                return 0;
        }
        usleep(10000);
    }
    return -1;
}

int dist_env_init(dist_env *e, char *why, size_t n)
{
    int ndev = 0;
    dist_env_read(e);
    e->comm = NULL;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        snprintf(why, n, "no CUDA device");
        return -1;
    }
    e->device = e->local_rank % ndev;
    if (cudaSetDevice(e->device) != cudaSuccess) {
        snprintf(why, n, "cudaSetDevice(%d) failed", e->device);
        return -1;
    }
    ncclUniqueId id;
    char path[512];
    id_path(path, sizeof path);
    if (e->rank == 0) {
        if (ncclGetUniqueId(&id) != ncclSuccess || (e->size > 1 && write_id(path, &id))) {
            snprintf(why, n, "rank 0 could not make or write NCCL's id (%s)", path);
            return -1;
        }
    } else if (read_id(path, &id, 60)) {
        snprintf(why, n, "rank %d found no NCCL id in %s after 60 s", e->rank, path);
        return -1;
    }
    ncclResult_t r = ncclCommInitRank(&e->comm, e->size, id, e->rank);
    if (e->rank == 0 && e->size > 1)
        unlink(path); /* every rank has joined once init returns */
    if (r != ncclSuccess) {
        snprintf(why, n, "ncclCommInitRank: %s", ncclGetErrorString(r));
        e->comm = NULL;
        return -1;
    }
    return 0;
}

void dist_env_free(dist_env *e)
{
    if (e->comm)
        ncclCommDestroy(e->comm);
    e->comm = NULL;
}
