/* cpu_threads.c: how many threads the CPU variants use: a count of xpose's own (OpenMP's when unset), never the
 * caller's OpenMP setting. */
#include <stdatomic.h>
#include "cpu_kernels.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* More threads than this many per processor are clamped to it: OpenMP runtimes end the process (libgomp: "Thread
 * creation failed") where the system cannot start the threads asked for, and oversubscribing further measures
 * nothing new. */
#define XP_THREADS_PER_PROC 4

/* 0: never set, follow OpenMP's own count (OMP_NUM_THREADS, or the caller's omp_set_num_threads). */
static atomic_int threads_set;

int xpose_set_threads(int threads)
{
#ifdef _OPENMP
    int procs = omp_get_num_procs(), cap = procs * XP_THREADS_PER_PROC;
    if (omp_get_thread_limit() < cap)
        cap = omp_get_thread_limit();
    atomic_store_explicit(&threads_set, threads <= 0 ? procs : threads < cap ? threads : cap, memory_order_relaxed);
    return xpose_get_threads();
#else
    (void)threads;
    return 1;
#endif
}

int xpose_get_threads(void)
{
#ifdef _OPENMP
    int n = atomic_load_explicit(&threads_set, memory_order_relaxed);
    return n > 0 ? n : omp_get_max_threads();
#else
    return 1;
#endif
}
