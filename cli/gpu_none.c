/* gpu_none.c: the GPU side of the bench in a build without CUDA: it says why and times nothing. */
#include <string.h>
#include "cli.h"

int gpu_ready(char *why, size_t why_len)
{
    snprintf(why, why_len, "xpose was built without CUDA (nvcc not found at configure time)");
    return 0;
}

void gpu_describe(char *buf, size_t len) { snprintf(buf, len, "none (CUDA backend not built)"); }

int gpu_facts(char *name, size_t name_len, int *major, unsigned *sms, size_t *l2_bytes)
{
    (void)name, (void)name_len, (void)major, (void)sms, (void)l2_bytes;
    return 0;
}

void gpu_identity(gpu_id *id)
{
    snprintf(id->name, sizeof id->name, "none");
    snprintf(id->driver, sizeof id->driver, "none");
    snprintf(id->runtime, sizeof id->runtime, "none");
}

int gpu_begin_shape(const xpose_layout *lay, const void *host_src, size_t src_bytes, size_t dst_bytes)
{
    (void)lay, (void)host_src, (void)src_bytes, (void)dst_bytes;
    return XPOSE_ERR_NOT_BUILT;
}

void gpu_verify_job(const gpu_job *job, const void *want, size_t cmp_bytes)
{
    (void)want, (void)cmp_bytes;
    job->row->status = XPOSE_ERR_NOT_BUILT;
}

void gpu_verify_variant(const char *id, const xpose_layout *lay, const void *want, size_t cmp_bytes, bench_row *row)
{
    (void)id, (void)lay, (void)want, (void)cmp_bytes;
    row->status = XPOSE_ERR_NOT_BUILT;
}

void gpu_inplace_verify(const char *id, const xpose_layout *lay, const void *want, size_t cmp_bytes, bench_row *row)
{
    (void)id, (void)lay, (void)want, (void)cmp_bytes;
    row->status = XPOSE_ERR_NOT_BUILT;
}

void gpu_time_jobs(gpu_job *jobs, int n, int reps)
{
    (void)reps;
    for (int j = 0; j < n; j++)
        jobs[j].row->status = XPOSE_ERR_NOT_BUILT;
}

void gpu_end_shape(void) {}

int gpu_overhead(const xpose_layout *lay, int calls, int rounds, double us[4])
{
    (void)lay, (void)calls, (void)rounds, (void)us;
    return XPOSE_ERR_NOT_BUILT;
}
