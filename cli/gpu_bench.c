/* gpu_bench.c: the GPU side of `xpose bench`: device buffers, poison, verification and CUDA-event timing. */
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "cli.h"
#include "verify.h"
#include "xpose_cuda.h"

/* One shape at a time lives on the device; the CLI is single-threaded. */
static struct {
    void *src, *dst, *flush, *flush_sum, *host_out;
    size_t src_bytes, dst_bytes, flush_bytes;
    cudaStream_t stream;
    void *ws; /* in-place rows: the device workspace, allocated at the shape's first in-place row */
    size_t ws_bytes;
    int ws_ready;
} g;

int gpu_ready(char *why, size_t why_len)
{
    int st = xpose_cuda_status();
    if (st != XPOSE_OK) {
        snprintf(why, why_len, "%s",
                 st == XPOSE_ERR_NO_DEVICE ? "no CUDA device visible (cudaGetDeviceCount found none)"
                                           : xpose_strerror(st));
        return 0;
    }
    return 1;
}

/* CUDA versions are encoded 1000 * major + 10 * minor. */
static void cuda_version(int v, char *buf, size_t n)
{
    if (v > 0)
        snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
    else
        snprintf(buf, n, "none");
}

/* The properties of the current device; 0 where there is none. */
static int device_props(struct cudaDeviceProp *p)
{
    int dev = 0;
    return xpose_cuda_status() == XPOSE_OK && cudaGetDevice(&dev) == cudaSuccess &&
           cudaGetDeviceProperties(p, dev) == cudaSuccess;
}

int gpu_facts(char *name, size_t name_len, int *major, unsigned *sms, size_t *l2_bytes)
{
    struct cudaDeviceProp p;
    if (!device_props(&p))
        return 0;
    snprintf(name, name_len, "%s", p.name);
    *major = p.major;
    *sms = (unsigned)p.multiProcessorCount;
    *l2_bytes = (size_t)p.l2CacheSize;
    return 1;
}

void gpu_identity(gpu_id *id)
{
    struct cudaDeviceProp p;
    int drv = 0, rt = 0;
    snprintf(id->name, sizeof id->name, "%s", device_props(&p) ? p.name : "none");
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    cuda_version(drv, id->driver, sizeof id->driver);
    cuda_version(rt, id->runtime, sizeof id->runtime);
    cudaGetLastError();
}

void gpu_describe(char *buf, size_t len)
{
    struct cudaDeviceProp p;
    gpu_id id;
    if (!device_props(&p)) {
        snprintf(buf, len, "none (no CUDA device visible)");
        return;
    }
    gpu_identity(&id);
    snprintf(buf, len, "%s, sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB, driver CUDA %s, runtime %s", p.name, p.major, p.minor,
             p.multiProcessorCount, (double)p.totalGlobalMem / 1073741824.0, p.l2CacheSize >> 20, id.driver,
             id.runtime);
}

void gpu_end_shape(void)
{
    cudaFree(g.src);
    cudaFree(g.dst);
    cudaFree(g.flush);
    cudaFree(g.flush_sum);
    cudaFree(g.ws);
    free(g.host_out);
    if (g.stream)
        cudaStreamDestroy(g.stream);
    memset(&g, 0, sizeof g);
}

int gpu_begin_shape(const xpose_layout *lay, const void *host_src, size_t src_bytes, size_t dst_bytes)
{
    (void)lay;
    int dev = 0, l2 = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    g.src_bytes = src_bytes;
    g.dst_bytes = dst_bytes;
    g.flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
    g.host_out = malloc(dst_bytes);
    if (!g.host_out || cudaStreamCreate(&g.stream) != cudaSuccess || cudaMalloc(&g.src, src_bytes) != cudaSuccess ||
        cudaMalloc(&g.dst, dst_bytes) != cudaSuccess || cudaMalloc(&g.flush, g.flush_bytes) != cudaSuccess ||
        cudaMalloc(&g.flush_sum, 8) != cudaSuccess || cudaMemset(g.flush, 1, g.flush_bytes) != cudaSuccess ||
        cudaMemcpy(g.src, host_src, src_bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        cudaGetLastError();
        gpu_end_shape();
        return XPOSE_ERR_NO_MEMORY;
    }
    return XPOSE_OK;
}

/* An in-place row's launch: the working copy (dst) re-filled from the source first, then the variant on it. The
 * re-fill is part of the untimed preparation: its caller flushes the L2 after it. */
static int inplace_refill(void)
{
    return cudaMemcpyAsync(g.dst, g.src, g.src_bytes, cudaMemcpyDeviceToDevice, g.stream) == cudaSuccess
               ? XPOSE_OK
               : XPOSE_ERR_CUDA;
}

static int inplace_run(const char *id, const xpose_layout *lay)
{
    return xpose_transpose_inplace_variant_cuda(id, lay->rows, lay->cols, lay->elem_size, lay->batch, g.dst, g.ws,
                                                g.ws_bytes, g.stream);
}

/* One launch of a job on the bench's stream: a permutation plan, an in-place row on its re-filled working copy, any
 * other row from src into dst. */
static int run_job(const gpu_job *b)
{
    return b->plan ? xpose_permute_execute_cuda(b->plan, g.src, g.dst, g.stream)
           : b->row->family == XPOSE_FAMILY_INPLACE
               ? inplace_run(b->id, b->lay)
               : xpose_transpose_variant_cuda(b->id, b->lay, g.src, g.dst, g.stream);
}

/* One untimed run into a poisoned output, compared in full with the reference. */
void gpu_verify_job(const gpu_job *job, const void *want, size_t cmp_bytes)
{
    size_t first;
    bench_row *row = job->row;
    if (cudaMemsetAsync(g.dst, (int)XV_POISON, g.dst_bytes, g.stream) != cudaSuccess) {
        row->status = XPOSE_ERR_CUDA;
        return;
    }
    row->status = run_job(job);
    if (row->status == XPOSE_OK && cudaStreamSynchronize(g.stream) != cudaSuccess)
        row->status = XPOSE_ERR_CUDA;
    if (row->status == XPOSE_OK && cudaMemcpy(g.host_out, g.dst, g.dst_bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
        row->status = XPOSE_ERR_CUDA;
    if (row->status != XPOSE_OK) {
        cudaGetLastError();
        return;
    }
    row->verified = xv_compare(g.host_out, want, cmp_bytes, &first) == 0;
}

void gpu_inplace_verify(const char *id, const xpose_layout *lay, const void *want, size_t cmp_bytes, bench_row *row)
{
    size_t first;
    if (!g.ws_ready) {
        g.ws_bytes =
            xpose_transpose_inplace_workspace(XPOSE_BACKEND_CUDA, lay->rows, lay->cols, lay->elem_size, lay->batch);
        if (g.ws_bytes && cudaMalloc(&g.ws, g.ws_bytes) != cudaSuccess) {
            cudaGetLastError();
            g.ws = NULL, g.ws_bytes = 0;
            row->status = XPOSE_ERR_NO_MEMORY;
            return;
        }
        g.ws_ready = 1;
    }
    row->status = inplace_refill();
    if (row->status == XPOSE_OK)
        row->status = inplace_run(id, lay);
    if (row->status == XPOSE_OK && cudaStreamSynchronize(g.stream) != cudaSuccess)
        row->status = XPOSE_ERR_CUDA;
    if (row->status == XPOSE_OK && cudaMemcpy(g.host_out, g.dst, cmp_bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
        row->status = XPOSE_ERR_CUDA;
    if (row->status != XPOSE_OK) {
        cudaGetLastError();
        return;
    }
    row->verified = xv_compare(g.host_out, want, cmp_bytes, &first) == 0;
}

void gpu_verify_variant(const char *id, const xpose_layout *lay, const void *want, size_t cmp_bytes, bench_row *row)
{
    gpu_job job = {"", lay, row, NULL};
    snprintf(job.id, sizeof job.id, "%s", id);
    gpu_verify_job(&job, want, cmp_bytes);
}

/* Rounds enqueued between two host waits: bounds the events alive at once (2 per job and round). */
#define ROUNDS_PER_WAIT 128

/* The next number of a fixed xorshift sequence: the rounds' orders are the same in every run. */
static unsigned next_rand(unsigned *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

/* Enqueues rounds k0 .. k0 + nr - 1 (each: every job once, in a shuffled order, after an L2 flush, between two
 * events), waits, and reads the times into t (reps per job). A job whose launch fails drops out of the later
 * rounds. */
static int time_rounds(gpu_job *jobs, int n, int k0, int nr, cudaEvent_t *ev, double *t, int reps, int *order,
                       unsigned *rng)
{
    int st = XPOSE_OK;
    for (int k = 0; k < nr && st == XPOSE_OK; k++) {
        /* A new order each round (Fisher-Yates): no job always follows the same one, as with the fixed rotation
         * before. Timed that way and summed up by the median, two rows running the same kernel differed by up to
         * 1.7 % of memcpy, with the same sign in two processes; shuffled and summed up by gpu_time_stats, by at most
         * 0.4 (docs/performance.md, fourteenth pass). */
        for (int i = 0; i < n; i++)
            order[i] = i;
        for (int i = n - 1; i > 0; i--) {
            const int r = (int)(next_rand(rng) % (unsigned)(i + 1)), x = order[i];
            order[i] = order[r];
            order[r] = x;
        }
        for (int i = 0; i < n && st == XPOSE_OK; i++) {
            const int j = order[i];
            gpu_job *b = &jobs[j];
            if (b->row->status != XPOSE_OK)
                continue;
            if (b->row->family == XPOSE_FAMILY_INPLACE)
                st = inplace_refill();
            if (st == XPOSE_OK)
                st = xpose_reduce_cuda(XPOSE_SUM, XPOSE_I32, g.flush, g.flush_bytes / 4, g.flush_sum, g.stream);
            if (st != XPOSE_OK || cudaEventRecord(ev[2 * (k * n + j)], g.stream) != cudaSuccess) {
                st = st ? st : XPOSE_ERR_CUDA;
                break;
            }
            b->row->status = run_job(b);
            if (cudaEventRecord(ev[2 * (k * n + j) + 1], g.stream) != cudaSuccess)
                st = XPOSE_ERR_CUDA;
        }
    }
    if (st == XPOSE_OK && cudaStreamSynchronize(g.stream) != cudaSuccess)
        st = XPOSE_ERR_CUDA;
    for (int k = 0; k < nr && st == XPOSE_OK; k++)
        for (int j = 0; j < n; j++) {
            float ms = 0;
            if (jobs[j].row->status == XPOSE_OK &&
                cudaEventElapsedTime(&ms, ev[2 * (k * n + j)], ev[2 * (k * n + j) + 1]) != cudaSuccess)
                st = XPOSE_ERR_CUDA;
            t[(size_t)j * reps + k0 + k] = ms;
        }
    return st;
}

/* Times the verified jobs of one shape, `reps` launches each after two warm-ups, in turn: round k runs every job
 * once (time_rounds: in a shuffled order), so the jobs share the clocks, the buffers and whatever drifts during the run, and a comparison between two
 * rows is between launches made microseconds apart. Before each launch, outside the timed span, a buffer twice the
 * L2 is summed: no run reads what an earlier one left in cache, and (since the flush only reads) none pays for
 * writing back lines the flush dirtied. */
void gpu_time_jobs(gpu_job *jobs, int n, int reps)
{
    const int per_wait = reps < ROUNDS_PER_WAIT ? reps : ROUNDS_PER_WAIT;
    const size_t nev = 2 * (size_t)per_wait * (size_t)n;
    cudaEvent_t *ev = malloc(sizeof(cudaEvent_t) * nev);
    double *t = malloc(sizeof(double) * (size_t)reps * (size_t)n);
    int *order = malloc(sizeof(int) * (size_t)n);
    unsigned rng = 2463534242u;
    size_t made = 0;
    int st = ev && t && order ? XPOSE_OK : XPOSE_ERR_NO_MEMORY;
    for (; st == XPOSE_OK && made < nev; made++)
        if (cudaEventCreate(&ev[made]) != cudaSuccess)
            st = XPOSE_ERR_CUDA;
    for (int j = 0; j < n && st == XPOSE_OK; j++)
        for (int w = 0; w < 2 && jobs[j].row->status == XPOSE_OK; w++)
            if ((jobs[j].row->status = jobs[j].row->family == XPOSE_FAMILY_INPLACE ? inplace_refill() : XPOSE_OK) ==
                XPOSE_OK)
                jobs[j].row->status = run_job(&jobs[j]);
    for (int k0 = 0; k0 < reps && st == XPOSE_OK; k0 += per_wait)
        st = time_rounds(jobs, n, k0, reps - k0 < per_wait ? reps - k0 : per_wait, ev, t, reps, order, &rng);
    for (int j = 0; j < n; j++) {
        bench_row *row = jobs[j].row;
        if (row->status == XPOSE_OK && st != XPOSE_OK)
            row->status = st;
        if (row->status != XPOSE_OK)
            continue;
        row_times(row, t + (size_t)j * reps, reps, 1);
    }
    for (size_t k = 0; k < made; k++)
        cudaEventDestroy(ev[k]);
    free(ev);
    free(t);
    free(order);
    cudaGetLastError();
}
