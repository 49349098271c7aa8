/* fast_plan.h: the production transpose's plan: which path, tiles, grid and clusters one call takes, decided by a pure
 * host function of the call and the device's facts (fast_plan.c; plain C, so CPU tests and `xpose explain` run it
 * without a GPU). fast.cu executes plans. */
#ifndef XP_FAST_PLAN_H
#define XP_FAST_PLAN_H

#include "../core/xp_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the planner knows of the device: compute capability major (clusters need 9), SMs, L2 bytes. */
typedef struct xp_fast_facts {
    int major;
    unsigned sms;
    size_t l2_bytes;
} xp_fast_facts;

/* The paths, each a kernel family of fast_kernels.cuh (or a copy); docs/variants.md describes them. */
#define XP_FAST_PATH_LIST(X)                                                                                           \
    X(COPY, "copy")             /* cudaMemcpyAsync: the transpose is a copy */                                         \
    X(COPY_2D, "copy-2d")       /* cudaMemcpy2DAsync: a batch of copies with gaps */                                   \
    X(NARROW, "narrow")         /* a side under 16 bytes: the permutation kernels (xp_cuda_permute) */                 \
    X(SHIFT, "shifted")         /* 1-byte rows off a vector: fast_shift_*, windows of `halo` rows */                   \
    X(SKEW, "skewed")           /* rows off a vector, or destination rows 16 bytes off a sector: fast_skew_kernel */   \
    X(SMALL, "small")           /* SmallTile for calls of few tiles */                                                 \
    X(SMALL_LAB, "small-lab")   /* SmallTile everywhere (the `fast/small` lab row) */                                  \
    X(SECTOR, "sector")         /* 1-byte destination rows 16 bytes off a sector: fast_sector_* */                     \
    X(SPLIT, "split")           /* FastTile stored in two halves: fast_kernel_split */                                 \
    X(ONE_WAVE, "one-wave")     /* 4-byte FastTile at 8 blocks per SM, one wave */                                     \
    X(WIDE, "wide")             /* WideTile: 512-byte source segments */                                               \
    X(DENSE, "dense")           /* DenseTile: 8 KB tiles of 8- and 16-byte elements, 8 blocks per SM */                \
    X(SYNCED, "synced")         /* whole tiles past one wave, clusters meeting before their stores */                  \
    X(BYTE_PAIRS, "byte-pairs") /* 1-byte FastTile on the 2-D grid in clusters */                                      \
    X(PLAIN, "plain")           /* FastTile, grid-stride */

typedef enum xp_fast_path {
#define XP_FAST_PATH_ENUM_(name, text) XP_FAST_PATH_##name,
    XP_FAST_PATH_LIST(XP_FAST_PATH_ENUM_)
#undef XP_FAST_PATH_ENUM_
        XP_FAST_PATH_COUNT
} xp_fast_path;

typedef struct xp_fast_plan {
    xp_fast_path path;
    const char *rule;               /* why: the docs/tuning.md entry whose rule chose the path */
    unsigned es;                    /* element size */
    unsigned tile_r;                /* tile rows and columns (source orientation) of tile_at's geometry */
    unsigned tile_c;                /*   (the skewed and shifted tiles' own rows, without their windows) */
    unsigned extra;                 /* rows the windows reach past a tile (count_tiles' extra) */
    unsigned halo, tall;            /* SHIFT: window rows (0, 16, 32), tall tiles */
    unsigned skew_stride;           /* SKEW: the shared-memory row stride, bytes */
    unsigned blocks_per_sm;         /* the kernel's launch bounds */
    unsigned direct;                /* 1: one tile a block on the 2-D grid; 0: grid-stride over numbered tiles */
    unsigned whole;                 /* BYTE_PAIRS and SYNCED on the 2-D grid: the kernel without edge tests */
    unsigned cluster;               /* blocks per cluster along the grid's x (1: none) */
    unsigned band;                  /* tile order: bands of `band` tile columns (0: row by row) */
    unsigned walks_log2;            /* 2^walks_log2 column walks */
    int vec;                        /* every row of both matrices starts on a 16-byte vector */
    size_t tiles_r, tiles_c, tiles; /* tiles per matrix: tiles_r x tiles_c; all batch members: tiles */
    unsigned grid_x, grid_y;        /* the launch's grid (grid_y 1 on the grid-stride kernels) */
    size_t smem;                    /* dynamic shared memory per block, bytes */
    size_t copy_bytes;              /* COPY: bytes; COPY_2D: bytes a member */
} xp_fast_plan;

/* Cards whose facts a plan can be made for without one at hand: `xpose explain fast --card NAME` and the planner's
 * tests (tests/test_fast_plan.c, whose table has a column per card in this order). */
typedef struct xp_fast_card {
    const char *name;  /* what --card takes */
    const char *about; /* for people */
    xp_fast_facts facts;
} xp_fast_card;
extern const xp_fast_card xp_fast_cards[];
extern const size_t xp_fast_card_count;

/* Plans call c (a checked shape, its pointers' alignment, the row's p0/p1) on a device with facts d. Returns
 * XPOSE_OK, or XPOSE_ERR_UNSUPPORTED where the tile numbers would not fit 32 bits (16 TiB and more). */
int xp_fast_plan_make(const xp_call *c, const xp_fast_facts *d, xp_fast_plan *p);

/* A narrow call (XP_FAST_PATH_NARROW) as the permutation (0, 2, 1) of (batch, rows, cols) that the permutation
 * kernels run; XPOSE_OK or xp_perm_canon's status. */
struct xp_perm;
int xp_fast_narrow_perm(const xp_call *c, struct xp_perm *p);

/* The path's name ("skewed", "sector" ...). */
const char *xp_fast_path_name(xp_fast_path path);

#ifdef __cplusplus
}
#endif
#endif
