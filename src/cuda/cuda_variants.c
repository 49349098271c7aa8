/* cuda_variants.c: the registry rows of the CUDA memcpy row (the bound). */
#include "xp_cuda.h"

static const xp_variant rows[] = {
    {"memcpy", "", "cudaMemcpy device to device: the bound every GPU row is compared to", XPOSE_BACKEND_CUDA,
     XPOSE_FAMILY_COPY, 0, 0, XP_ELEM_ALL, XP_CUDA_FN(xp_cuda_memcpy), NULL, 0, NULL},
};

const xp_variant_table xp_cuda_table = {rows, XP_COUNT_OF(rows)};
