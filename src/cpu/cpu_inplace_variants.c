/* cpu_inplace_variants.c: the registry rows of the CPU in-place transposes. */
#include "cpu_inplace.h"

#define CPU_IP(name, one_thread, fn, about)                                                                            \
    {                                                                                                                  \
        name, "", about, XPOSE_BACKEND_CPU, XPOSE_FAMILY_INPLACE, 0, 0, XP_ELEM_ALL, NULL, NULL, one_thread, fn        \
    }

static const xp_variant rows[] = {
    CPU_IP("cpu-inplace-naive", 1, xp_cpu_inplace_naive,
           "lab baseline: each cycle of the permutation followed element by element from its smallest position, one "
           "thread, no workspace"),
    CPU_IP("cpu-inplace-square", 0, xp_cpu_inplace_square,
           "square matrices: tile pairs swapped across the diagonal through an L1 buffer, SIMD tile transposes; each "
           "element read and written once"),
    CPU_IP("cpu-inplace-rect", 0, xp_cpu_inplace_rect,
           "any shape: column rotation, row shuffle, column permutation (Catanzaro-Keller-Garland), each row or strip "
           "of columns through a thread's 1 MiB buffer"),
};

const xp_variant_table xp_cpu_inplace_table = {rows, XP_COUNT_OF(rows)};
