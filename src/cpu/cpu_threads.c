/* cpu_threads.c: how many threads the CPU variants use (OpenMP when built with it, else one). */
#include "xpose.h"
#ifdef _OPENMP
#include <omp.h>
#endif

int xpose_set_threads(int threads)
{
#ifdef _OPENMP
    if (threads > 0)
        omp_set_num_threads(threads);
    else
        omp_set_num_threads(omp_get_num_procs());
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
