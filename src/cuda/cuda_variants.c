/* cuda_variants.c: the registry rows of the CUDA peers (memcpy bound, cuBLAS reference). */
#include "xp_cuda.h"

static const xp_variant rows[] = {
    {"cublas-geam", "", "cuBLAS ?geam with op(A)=A^T, alpha 1: the library reference; floating-point values, not bits",
     XPOSE_BACKEND_CUDA, XPOSE_FAMILY_TRANSPOSE, 0, 0, XP_ELEM_4_8_16, XP_CUDA_FN(xp_cuda_cublas_geam), NULL, 0},
    {"memcpy", "", "cudaMemcpy device to device: the bound every GPU row is compared to", XPOSE_BACKEND_CUDA,
     XPOSE_FAMILY_COPY, 0, 0, XP_ELEM_ALL, XP_CUDA_FN(xp_cuda_memcpy), NULL, 0},
};

const xp_variant_table xp_cuda_table = {rows, XP_COUNT_OF(rows)};
