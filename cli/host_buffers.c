/* host_buffers.c: the bench's large host buffers, in 2 MiB pages where the kernel allows it. */
#define _GNU_SOURCE
#include "cli.h"

#include <stdlib.h>
#include <sys/mman.h>

/* Matrices of tens of megabytes or more live in transparent huge pages in most numerical software (numpy
 * asks for them with madvise on every large array). With 4 KiB pages a transpose's destination side
 * walks a new page every few rows, and TLB misses cost it a fifth of its time at 8192^2 bytes, while a
 * copy is barely touched: the bench would measure the pages, not the kernel. Every row of a run (copies
 * included) uses these buffers, so the ratios stay like for like. Release with free(). */
void *host_big_alloc(size_t bytes)
{
    enum { HUGE_PAGE = 2u << 20 };
    void *p = NULL;
    if (bytes < HUGE_PAGE)
        return malloc(bytes ? bytes : 1);
    if (posix_memalign(&p, HUGE_PAGE, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, bytes, MADV_HUGEPAGE); /* advice only: without it the buffer still works */
#endif
    return p;
}
