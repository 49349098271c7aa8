/* cpu_memcpy.c: threaded memcpy (family copy), the CPU bandwidth bound every transpose row is compared to. */
#include <string.h>
#include "cpu_kernels.h"

/* Splits the copy into one contiguous chunk per thread, so it uses as many threads as the transposes. */
int xp_cpu_memcpy(const xp_call *c)
{
    const unsigned char *src = c->src;
    unsigned char *dst = c->dst;
    size_t bytes = c->s.batch * c->s.rows * c->s.cols * c->s.es;
    const size_t chunk = (size_t)1 << 20;
    long long chunks = (long long)((bytes + chunk - 1) / chunk);
#pragma omp parallel for schedule(static) num_threads(xpose_get_threads()) if (chunks > 1)
    for (long long k = 0; k < chunks; k++) {
        size_t off = (size_t)k * chunk, n = bytes - off < chunk ? bytes - off : chunk;
        memcpy(dst + off, src + off, n);
    }
    return XPOSE_OK;
}
