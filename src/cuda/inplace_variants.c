/* inplace_variants.c: the registry rows of the GPU in-place transposes (src/cuda/inplace.cu). */
#include "../core/xp_inplace_math.h"
#include "xp_cuda.h"

#define GPU_IP(name, params, p0, p1, fn, about)                                                                        \
    {                                                                                                                  \
        name, params, about, XPOSE_BACKEND_CUDA, XPOSE_FAMILY_INPLACE, p0, p1, XP_ELEM_ALL, NULL, NULL, 0,             \
            XP_CUDA_FN(fn)                                                                                             \
    }

static const xp_variant rows[] = {
    GPU_IP("inplace-square", "", 0, 0, xp_cuda_inplace_square,
           "square matrices: tile pairs swapped across the diagonal, one block a pair (bytes: a 128 x 256 tile and "
           "its mirror), fast's 16-byte vector tiles and gathers; each element read and written once"),
    GPU_IP("inplace-square", "alt", 1, 0, xp_cuda_inplace_square,
           "lab: inplace-square with the tiles measured against its own (bytes: loaded through registers, 2 blocks an "
           "SM; 2 bytes: 64 x 128 and its mirror; 4 bytes 32; 8 bytes 64; 16 bytes 16)"),
    GPU_IP("inplace-square", "w1", 0x10, 0, xp_cuda_inplace_square,
           "lab: inplace-square with its units in order whatever the row pitch"),
    GPU_IP("inplace-square", "w4", 0x40, 0, xp_cuda_inplace_square,
           "lab: inplace-square with its units taken from 4 parts of the order in turn whatever the row pitch"),
    GPU_IP("inplace-square", "k1", 0x100, 0, xp_cuda_inplace_square,
           "lab: inplace-square without clusters (each block loads and stores on its own)"),
    GPU_IP("inplace-square", "pair", 0x200, 0, xp_cuda_inplace_square,
           "lab: inplace-square with a cluster of bytes on 8 tile rows of one column pair, not 4 of each of two"),
    GPU_IP("inplace-square", "regs", 0, 1, xp_cuda_inplace_square,
           "lab: inplace-square's tiles as 8- or 16-byte accesses transposed in registers, blocks of KV x KV "
           "elements a thread"),
    GPU_IP("inplace-rect", "", 0, 0, xp_cuda_inplace_rect,
           "any shape: column rotation, row shuffle, column permutation (Catanzaro-Keller-Garland), each row or strip "
           "of columns held whole in the shared memory of a block or a cluster"),
    GPU_IP("inplace-rect", "fwd", XP_CKG_FORWARD, 0, xp_cuda_inplace_rect,
           "lab: inplace-rect in the forward form whatever the shape (columns: the matrix's rows)"),
    GPU_IP("inplace-rect", "inv", XP_CKG_INVERSE, 0, xp_cuda_inplace_rect,
           "lab: inplace-rect in the inverse form whatever the shape (columns: the matrix's columns)"),
    GPU_IP("inplace-rect", "split", 0, 2, xp_cuda_inplace_rect,
           "lab: inplace-rect with its row pass split across a cluster at 100 KiB a block (two blocks a "
           "multiprocessor), not one block a row where one holds it"),
    GPU_IP(
        "inplace-rect", "big", 0, 1, xp_cuda_inplace_rect,
        "lab: inplace-rect with blocks of all the shared memory a block may take (one a multiprocessor), not 100 KiB"),
};

const xp_variant_table xp_cuda_inplace_table = {rows, XP_COUNT_OF(rows)};
