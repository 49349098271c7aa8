/* test_threads.c: xpose's thread count is its own (the caller's OpenMP setting never changes), and batches of
 * many small matrices come out right through every threaded CPU variant, on one thread and on several. */
#include <string.h>
#include "testing.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static void check_batches(const char *id)
{
    /* 1000 members of 8 x 8 (the case that made a team per member), a batch with gaps, and one large enough to
     * run threaded, at every element size. */
    const xpose_layout lays[] = {
        {8, 8, 4, 0, 0, 1000, 0, 0},     {8, 8, 1, 0, 0, 1000, 0, 0}, {3, 5, 16, 0, 0, 777, 0, 0},
        {9, 7, 2, 11, 10, 300, 120, 80}, {65, 33, 8, 0, 0, 64, 0, 0}, {200, 100, 4, 0, 0, 20, 0, 0},
    };
    for (size_t k = 0; k < sizeof lays / sizeof lays[0]; k++)
        t_check_variant(&t_host_mem, id, &lays[k], 77u + (unsigned)k, 0, 0);
}

int main(void)
{
#ifdef _OPENMP
    int procs = omp_get_num_procs();
    /* Until set, xpose follows OpenMP's own count, including the caller's later changes of it. */
    omp_set_num_threads(3);
    CHECK(xpose_get_threads() == 3, "unset: xpose_get_threads %d, OpenMP's count 3", xpose_get_threads());
    int before = omp_get_max_threads();
    CHECK(xpose_set_threads(1) == 1, "xpose_set_threads(1) returned %d", xpose_get_threads());
    CHECK(omp_get_max_threads() == before, "xpose_set_threads(1) changed omp_get_max_threads: %d -> %d", before,
          omp_get_max_threads());
    CHECK(xpose_get_threads() == 1, "xpose_get_threads %d after xpose_set_threads(1)", xpose_get_threads());
    omp_set_num_threads(2);
    CHECK(xpose_get_threads() == 1, "the caller's omp_set_num_threads(2) changed xpose's count to %d",
          xpose_get_threads());
    CHECK(xpose_set_threads(0) == procs, "xpose_set_threads(0): %d, one per processor is %d", xpose_get_threads(),
          procs);
    CHECK(omp_get_max_threads() == 2, "xpose_set_threads(0) changed omp_get_max_threads to %d", omp_get_max_threads());
    CHECK(xpose_set_threads(1 << 30) <= 4 * procs, "a huge count is clamped: %d", xpose_get_threads());
    CHECK(xpose_set_threads(-5) == procs, "a negative count means one per processor: %d", xpose_get_threads());
#else
    CHECK(xpose_set_threads(4) == 1 && xpose_get_threads() == 1, "without OpenMP the count is 1");
#endif
    static const char *const ids[] = {"cpu-blocked/32", "cpu-fast", "cpu-naive", NULL};
    for (int t = 1; t <= 2; t++) {
        xpose_set_threads(t);
        for (int i = 0; ids[i]; i++)
            check_batches(ids[i]);
        check_batches(NULL); /* the production path */
    }
    return t_finish("test_threads");
}
