/* peers.c: the registry rows of the peers (OpenBLAS's ?omatcopy and ?imatcopy, cuBLAS's ?geam), and their registration into the registry of a program's libxpose.a. */
#include "peers.h"

#ifdef XPOSE_HAVE_CUBLAS
#define XP_GEAM_FN xp_cuda_cublas_geam
#else
#define XP_GEAM_FN NULL
#endif
#ifdef XPOSE_HAVE_OPENBLAS
#define XP_OPENBLAS_FN xp_cpu_openblas
#define XP_IMATCOPY_FN xp_cpu_openblas_imatcopy
#else
#define XP_OPENBLAS_FN NULL
#define XP_IMATCOPY_FN NULL
#endif

/* Rows whose library was not found stay listed, as unavailable, so `xpose list` says what is missing. */
static const xp_variant rows[] = {
    {"cpu-openblas", "",
     "OpenBLAS cblas_?omatcopy (row-major, transposed, alpha 1): the CPU library peer; floating-point values, not bits",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, 0, 0, XP_ELEM_4_8_16, XP_OPENBLAS_FN, NULL, 1, NULL}, /* not threaded */
    {"cublas-geam", "", "cuBLAS ?geam with op(A)=A^T, alpha 1: the library reference; floating-point values, not bits",
     XPOSE_BACKEND_CUDA, XPOSE_FAMILY_TRANSPOSE, 0, 0, XP_ELEM_4_8_16, XP_GEAM_FN, NULL, 0, NULL},
    {"cpu-openblas-imatcopy", "",
     "OpenBLAS cblas_?imatcopy (row-major, transposed, alpha 1): the in-place peer; a full-size temporary inside "
     "OpenBLAS for rectangles",
     XPOSE_BACKEND_CPU, XPOSE_FAMILY_INPLACE, 0, 0, XP_ELEM_4_8_16, NULL, NULL, 1, XP_IMATCOPY_FN}, /* not threaded */
};

static const xp_variant_table table = {rows, XP_COUNT_OF(rows)};

int xp_peers_register(void) { return xp_registry_add(&table); }
