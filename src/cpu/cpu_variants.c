/* cpu_variants.c: the registry rows of the CPU backend. */
#include "cpu_kernels.h"

#define CPU_T(name, params, p0, fn, about)                                                                             \
    {                                                                                                                  \
        name, params, about, XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, p0, 0, XP_ELEM_ALL, fn, NULL, 0, NULL          \
    }

static const xp_variant rows[] = {
    {"cpu-naive", "", "nested loop of the seeds: sequential reads, strided writes", XPOSE_BACKEND_CPU,
     XPOSE_FAMILY_TRANSPOSE, 0, 0, XP_ELEM_ALL, xp_cpu_naive, NULL, 1, NULL},
    CPU_T("cpu-blocked", "32", 32, xp_cpu_blocked, "square cache tiles over OpenMP threads"),
    CPU_T("cpu-blocked", "16", 16, xp_cpu_blocked, "square cache tiles over OpenMP threads"),
    CPU_T("cpu-blocked", "64", 64, xp_cpu_blocked, "square cache tiles over OpenMP threads"),
    {"cpu-memcpy", "", "memcpy over the same threads: the CPU bound", XPOSE_BACKEND_CPU, XPOSE_FAMILY_COPY, 0, 0,
     XP_ELEM_ALL, xp_cpu_memcpy, NULL, 0, NULL},
    {"cpu-stream", "", "copy with streaming stores over the same threads: the CPU bound without reads of dst",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_COPY, 0, 0, XP_ELEM_ALL, xp_cpu_stream, NULL, 0, NULL},
};

const xp_variant_table xp_cpu_table = {rows, XP_COUNT_OF(rows)};
