/* fast_geometry.h: the production transpose's tile shapes and kernel occupancies, written once for the kernels'
 * templates (fast_*.cuh, compile-time) and the planner (fast_plan.c, plain C, built without CUDA too). Arguments are
 * element sizes in bytes (1, 2, 4, 8, 16). Why each shape: docs/tuning.md, the entry named beside it. */
#ifndef XP_FAST_GEOMETRY_H
#define XP_FAST_GEOMETRY_H

#define FAST_THREADS 256

/* FastTile: a source row segment of 256 bytes and a destination row segment of >= 128 bytes; 16 KB, or 32 KB where
 * 16 KB would cut the source segment ("fast: tile shapes"). */
#define XP_FAST_TR(es) ((es) <= 2 ? 128 : 64)
#define XP_FAST_TC(es) (256 / (es))

/* SmallTile: the smallest tiles the vector path allows (8 row groups, 8 chunks per row, one load per thread), for
 * calls too small to fill the GPU with FastTile tiles ("fast: small tiles"). */
#define XP_SMALL_TR(es) ((es) == 1 ? 128 : (es) == 2 ? 64 : (es) == 16 ? 16 : 32)
#define XP_SMALL_TC(es) ((es) == 1 ? 128 : (es) == 2 ? 64 : (es) == 4 ? 32 : 16)

/* DenseTile: 8- and 16-byte tiles of 8 KB (256-byte source segments), 8 blocks per SM ("fast: dense tiles"). */
#define XP_DENSE_TR 32
#define XP_DENSE_TC(es) (256 / (es))
#define XP_DENSE_BLOCKS 8

/* WideTile: 512-byte source segments for large 4- to 16-byte calls whose source rows are off a line ("fast: wide
 * tiles"). */
#define XP_WIDE_TR(es) ((es) >= 8 ? 32 : 64)
#define XP_WIDE_TC(es) (512 / (es))

/* Skewed tiles: FastTile's for 4 to 16 bytes; 1 byte 128 x 128, 2 bytes 64 x 128, whose loads then fit 6 and 5
 * registers of 16 bytes a thread ("fast: skewed tiles"). Windows start on sectors, W = 32 / es elements apart, so a
 * tile holds W - 1 rows more than its height. 8- and 16-byte tiles take one shared-memory row stride each. */
#define XP_SKEW_TR(es) ((es) == 1 ? 128 : (es) == 2 ? 64 : XP_FAST_TR(es))
#define XP_SKEW_TC(es) ((es) <= 2 ? 128 : XP_FAST_TC(es))
#define XP_SKEW_W(es) (32 / (es))
#define XP_SKEW_STRIDE_WIDE(es) ((es) == 16 ? 272 : 264)

/* Shifted 1-byte tiles with windows of `halo` rows (0, 16, 32): 256 columns, 128 - halo own rows (tall: 128); they
 * load own + halo rows of 17 vectors, 16 bytes of padding after every 16 rows ("fast: shifted tiles"). */
#define XP_SHIFT_TR(halo, tall) ((tall) ? 128 : 128 - (halo))
#define XP_SHIFT_TC 256
#define XP_SHIFT_SMEM(halo, tall)                                                                                      \
    ((XP_SHIFT_TR(halo, tall) + (halo)) * 272 + (XP_SHIFT_TR(halo, tall) + (halo)) / 16 * 16)

/* Sector tiles (1 byte, destination rows 16 bytes off a sector): FastTile's 128 x 256, 9 row groups of 16 loaded,
 * windows 16 rows before the tile ("fast: sector tiles"). */
#define XP_SECTOR_SHIFT 16
#define XP_SECTOR_SMEM (9 * 16 * 256)

/* Shared memory of a vector tile of tr x tc elements: tr rows of tc * es bytes, padded by one bank-width access for
 * the scalar path (the larger of the two layouts). */
#define XP_TILE_SMEM(es, tr, tc) ((tr) * ((tc) * (es) + ((es) < 4 ? 4 : (es))))

/* Blocks per SM the kernels are built for (their launch bounds): FastTile 4; 4-byte one-wave calls 8 ("fast: one
 * wave at 8 blocks per SM"); small tiles 6 (1 byte: 4), and the lab's small row 8 (1 byte: 4). */
#define XP_FAST_BLOCKS 4
#define XP_ONE_WAVE_BLOCKS 8
#define XP_SMALL_BLOCKS(es) ((es) == 1 ? 4 : 6)
#define XP_SMALL_LAB_BLOCKS(es) ((es) == 1 ? 4 : 8)

#endif
