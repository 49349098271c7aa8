/* cpu_flush.c: evicts the CPU caches between timed CPU runs, as gpu_bench.c evicts the GPU's L2. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static unsigned char *flush_buf;
static size_t flush_bytes;
static long flush_count; /* reads since init: the note states it, so a test can see that the runs were flushed */

/* Twice the last-level cache (cpu_cache.c's L3, else L2, else 64 MiB), so that reading it leaves nothing of the
 * previous run in any level. Without it a matrix the L3 holds is timed from L3: on the 2-core CI VM (260 MiB of L3) a
 * warm memcpy of 16-64 MB ran at ~60 GB/s, twice its memory speed (25-28 GB/s, the figure issue 6 states), and a
 * ratio to it compared a cache with memory. The kernel's sizes come first: sysconf's L3 on some VMs is 256 MiB where
 * the kernel's (and lscpu's) is 32, and the flush then read 512 MiB before every run. */
static size_t last_level_cache(void)
{
    cpu_caches c;
    cpu_caches_read(&c);
    return c.l3 ? c.l3 : c.l2 ? c.l2 : (size_t)64 << 20;
}

size_t cpu_flush_size(void)
{
    size_t want = 2 * last_level_cache(), cap = (size_t)2 << 30;
    return want < cap ? want : cap;
}

size_t cpu_flush_init(void)
{
    if (flush_buf)
        return flush_bytes;
    flush_count = 0;
    flush_bytes = cpu_flush_size();
    flush_buf = host_big_alloc(flush_bytes);
    if (!flush_buf) {
        flush_bytes = 0;
        return 0;
    }
    memset(flush_buf, 1, flush_bytes); /* backed by real pages, and never dirty again */
    return flush_bytes;
}

/* A read of the whole buffer by the library's CPU reduction (all its threads), so each core's own caches are
 * swept too. Only reads: no run then pays to write back lines the flush dirtied. */
void cpu_flush(void)
{
    long long sum;
    if (flush_buf &&
        xpose_reduce(XPOSE_BACKEND_CPU, XPOSE_SUM, XPOSE_I64, flush_buf, flush_bytes / 8, &sum) == XPOSE_OK)
        flush_count++;
}

/* Adds to the run's note how the CPU rows were timed; `cold`: a flush was wanted (no --warm). */
void cpu_flush_note(bench_result *r, int cold)
{
    if (!cold)
        note_add(r, "CPU rows timed warm (--warm): no cache flush between runs");
    else if (flush_buf)
        note_add(r,
                 "CPU rows timed cold: a %zu MiB read (twice the last-level cache) before each of the %ld timed "
                 "runs; --warm skips it",
                 flush_bytes >> 20, flush_count);
    else
        note_add(r, "CPU caches not flushed between runs: no memory for the flush buffer");
}

void cpu_flush_free(void)
{
    free(flush_buf);
    flush_buf = NULL;
    flush_bytes = 0;
}
