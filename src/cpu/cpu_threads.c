/* cpu_threads.c: how many threads the CPU variants use (OpenMP when built with it, else one). */
#include "xpose.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* More threads than this many per processor are clamped to it: OpenMP runtimes end the process (libgomp: "Thread
 * creation failed") where the system cannot start the threads asked for, and oversubscribing further measures
 * nothing new. */
#define XP_THREADS_PER_PROC 4

int xpose_set_threads(int threads)
{
#ifdef _OPENMP
    int procs = omp_get_num_procs(), cap = procs * XP_THREADS_PER_PROC;
    if (omp_get_thread_limit() < cap)
        cap = omp_get_thread_limit();
    omp_set_num_threads(threads <= 0 ? procs : threads < cap ? threads : cap);
    return omp_get_max_threads();
#else
    (void)threads;
    return 1;
#endif
}

int xpose_get_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
