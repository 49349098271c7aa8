/* fast.cu: the production GPU transpose (`fast`): which tiles and kernel each call takes (the rules, with the
 * measurements behind them), and the launch. Kernels: fast_kernels.cuh; tile order: fast_order.cuh. */
#include "fast.h"

#include "fast_kernels.cuh"

/* log2 of the number of column walks. One walk reads, at any moment, the same 256-byte column segment of
 * every source row. Where the source pitch is a power of two of 128 KiB or more, those reads all share
 * address bits 0..16 or more, and how well they spread over the memory system then depends on the physical
 * pages behind the buffer: a read-only probe of that pattern took 0.95 to 1.13 ms at 16384^2 16-byte
 * elements depending on the allocation history, a sequential read 0.95. Walks that start 64 KiB of source
 * row apart vary bits 16 and up: with 4 walks the probe took 1.02-1.06 ms everywhere. Each walk keeps its
 * own destination rows busy, which costs writes (a write-only probe: 1, 2, 4, 8 walks 0.921, 0.926, 0.937,
 * 0.951 ms), so: one walk per 64 KiB of pitch, at most 4, and fewer where the tile columns do not split
 * into equal shares; only for tiles walked down single tile columns (band 1). Measured over five
 * allocation histories, 16384^2 16-byte worst case 90.3 -> 93.9 % of memcpy, 8-byte 94.7 -> 96.1; 32768x8192 16-byte two walks
 * 95.0-95.5 against one 94.4-95.1 and four 93.9-94.4 (docs/notes/fast-v25-*). */
static unsigned walk_count_log2(const FastArgs &a, size_t es, const xp_call *c)
{
    const size_t pitch = a.lds * es;
    if ((c->p1 & XP_FAST_ONE_WALK) || a.band != 1 || pitch < (128u << 10) || (pitch & (pitch - 1)))
        return 0;
    unsigned w = pitch >= (256u << 10) ? 2 : 1;
    while (w && a.tiles_c % (1u << w))
        w--;
    return w;
}

/* The current device's compute capability major (0 without a device) and SM count, asked only where a rule reads
 * them: each costs a device query and a lock (xr_device_sms). */
static int device_major(void)
{
    int major = 0;
    xr_device_sms(&major);
    return major;
}

static size_t device_sms(void)
{
    int major;
    return (size_t)xr_device_sms(&major);
}

/* Whether a call's matrices are whole tiles of geometry G. */
template <class G> static bool whole_tiles(const xp_shape *s) { return s->rows % G::TR == 0 && s->cols % G::TC == 0; }

/* Launches `kernel` over the tiles of geometry G (windows reaching `extra` rows past a tile: count_tiles)
 * with `smem` bytes of shared memory a block, or `direct` (fast_kernel_direct) where given and the call is
 * one matrix in one walk whose tile rows and columns a 2-D grid can name, with `direct_smem` bytes where given; `direct`
 * in clusters along x where the device has clusters (sm_90): of `cluster` blocks (a power of two), or of the largest
 * power of two below it that divides the grid's x. */
template <class G> static int run(void (*kernel)(const FastArgs), FastArgs a, const xp_shape *s, unsigned extra,
                                  size_t smem, const xp_call *c, void (*direct)(const TileArgs) = 0,
                                  unsigned cluster = 1, size_t direct_smem = 0)
{
    count_tiles<G>(a, s, extra);
    a.walks_log2 = walk_count_log2(a, G::ES, c);
    size_t grid = min(a.tiles, (size_t)INT32_MAX);
    if (grid == 0)
        return XPOSE_OK;
    if (!set_divisors(a))
        return XPOSE_ERR_UNSUPPORTED;
    if (direct && (s->batch > 1 || a.walks_log2 || a.band > 1 || a.tiles_r > 65535 || a.tiles_c > 65535))
        direct = 0;
    if (direct && direct_smem)
        smem = direct_smem;
    if (smem > 48 * 1024 && cudaFuncSetAttribute(direct ? (const void *)direct : (const void *)kernel,
                                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != cudaSuccess)
        return XPOSE_ERR_CUDA;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = !direct ? dim3((unsigned)grid)
                  : a.band ? dim3((unsigned)a.tiles_r, (unsigned)a.tiles_c)
                           : dim3((unsigned)a.tiles_c, (unsigned)a.tiles_r);
    cfg.blockDim = dim3(FAST_THREADS);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = xp_stream(c);
    cudaLaunchAttribute at;
    while (cluster > 1 && cfg.gridDim.x % cluster) /* the largest cluster that divides the grid's x */
        cluster /= 2;
    if (direct && cluster > 1 && device_major() >= 9) {
        at.id = cudaLaunchAttributeClusterDimension;
        at.val.clusterDim.x = cluster;
        at.val.clusterDim.y = 1;
        at.val.clusterDim.z = 1;
        cfg.attrs = &at;
        cfg.numAttrs = 1;
    }
    if ((direct ? cudaLaunchKernelEx(&cfg, direct, (const TileArgs &)a) : cudaLaunchKernelEx(&cfg, kernel, a)) !=
        cudaSuccess)
        return XPOSE_ERR_CUDA;
    return xp_cuda_launch_status();
}

/* The skewed kernel of ES-byte rows with shared-memory row stride RS, launched. */
template <int ES, int RS> static int run_skew(const FastArgs &a, const xp_shape *s, const xp_call *c)
{
    typedef SkewGeo<ES> K;
    return run<typename K::G>(fast_skew_kernel<ES, RS>, a, s, K::W - 1, (size_t)K::SR * RS, c);
}

/* Whole calls of at most this many tiles (two waves on an H200) ran faster row by row: a wave then reads
 * whole source rows (float 2048^2: 96.5 against 94.2 % of memcpy; docs/notes/final3-sweep-*, fast-v9-*).
 * Only for 1- to 4-byte elements since the column walks: in three sweeps of squares 256^2-4096^2, 8- and
 * 16-byte calls gained down tile columns (8-byte 1000^2 +2.6, 1024^2 +3.2; 16-byte 1000^2 and 1024^2 +1,
 * the rest level within a point) while 2- and 4-byte ones lost (u16 3000^2 -2.2, float 1500^2 -3.1;
 * docs/notes/fast-v26-*). */
#define FAST_FEW_TILES 1024
#define FAST_FEW_TILES_MAX_ES 4

/* 4-byte calls with at most this many tiles per SM take fast_kernel_direct at this many
 * blocks per SM: one wave, where 4 blocks per SM (64 registers) needed two from 4 x SMs tiles on, and the
 * second wave started only as the first one's blocks drained. Against the kernel before, in sweeps of squares
 * 256^2-4096^2 on the H200 (docs/notes/fast-v28-*), % of memcpy: 16-byte 256^2 +2.0, 512^2 +1.7, 1024^2
 * +3.0..+3.8; 8-byte 1024^2 +1.4; float 1024^2 +2.6, 2048^2 +3.2..+4.5 (calls of fewer tiles take SmallTile).
 * Beyond one wave the direct kernel at 4 blocks per SM was level, 16-byte 2048^2-4096^2 -0.3..-0.7, so those
 * keep fast_kernel. 1- and 2-byte tiles spill at 32 registers (152-388 bytes). 8- and 16-byte calls of one wave
 * have since taken DenseTile (which says why), and some 4- and 16-byte ones fast_kernel_split (SplitTiles). */
#define FAST_ONE_WAVE_BLOCKS 8

/* 1-byte FastTile calls that a 2-D grid can name take fast_kernel_direct (4 blocks per SM, as fast_kernel) in
 * clusters of this many blocks (whole tiles past one wave: FAST_SYNC_CLUSTER below): neighbouring tiles, down a tile
 * column or along a tile row, start together on one GPC. Calls of whole tiles take its variant without edge code. Against fast_kernel in the same runs on the
 * H200, three processes, % of memcpy (docs/notes/fast-v40-byte-clusters.txt): 16384^2 95.9..96.0 -> 96.4,
 * 32768 x 8192 95.0..95.1 -> 95.6..95.7, 8192^2 95.9..96.3 -> 97.0..97.5, 4096^2 101.1..101.4 -> 104.1..104.5,
 * 2048^2 93.2..97.4 -> 97.8..101.6. The 2-D grid alone gave about half of that (16384^2 96.2, 2048^2 95.7..100.4),
 * clusters of 4 less than of 2 (16384^2 95.3 against 95.4, 2048^2 90.6 against 98.5). Other element sizes did not
 * gain from clusters: float 1024^2 -0.4..-4.3, u16 2048^2 -1.7..-1.8, 4096^2 -0.7, c128 1024^2 -0.7..-1.3, 16384^2
 * level; nor did 1-byte SmallTile calls (1024^2 -0.3..-1.0). Pairs of blocks that joined their tiles into 256-byte
 * destination segments through distributed shared memory ran at 91.0 % of memcpy at 16384^2 against fast_kernel's
 * 95.4, or 55 % where half the gathers read the other block's tile.
 * The 1-byte sector and shifted tiles do the same (each on its own kernel's grid-stride order before). On an H100,
 * one process per mode, two or three rounds, % of memcpy, grid-stride -> 2-D grid -> 2-D grid in clusters of two
 * (docs/notes/fast-v43-byte-grid.txt): sector tiles 16384^2 pitches 16400 90.8 -> 91.0 -> 91.0, destination pitch
 * 16400 94.1 -> 94.5 -> 94.5, 8192^2 pitches 8208 89.6 -> 90.7 -> 90.6; shifted windows 8191 x 8193 88.5 -> 90.5 ->
 * 90.9, 4001 x 4003 80.3 -> 82.6 -> 83.6, 2047 x 2049 89.3 -> 93.4 -> 94.4, 16384^2 pitches 16392 89.0 -> 89.5 -> 89.5,
 * destination pitch 16385 93.4 -> 93.6 -> 93.5; shifted tiles without windows (source pitch 16385) 90.5 -> 90.2 ->
 * 90.2, so those keep the grid-stride kernel. */
#define FAST_BYTE_CLUSTER 2

/* Calls of whole tiles past one wave (FastTile at 4 blocks per SM for 1 to 4 bytes, DenseTile at 8 for 8 and 16) take
 * the 2-D grid in clusters of this many blocks down a tile column that meet at a barrier between loading their tiles
 * and storing them: the cluster then writes 8 neighbouring segments of each of its destination rows together (1 KB
 * of a row for 1 byte, where a tile alone writes 128 bytes; 4 KB for 16 bytes). Blocks that start together (clusters
 * of 2, FAST_BYTE_CLUSTER) drift apart by their stores; the barrier holds them together. On an H100, % of memcpy:
 * - 1 byte, three or two processes each (docs/notes/fast-v48-byte-cluster-sync.txt), clusters of 2 -> 2 with the
 *   barrier -> 4 with it -> 8 with it: 32768 x 8192 94.4 -> 94.9 -> 95.2 -> 95.5..95.6, 8192 x 32768 95.5 -> 96.0 ->
 *   96.2 -> 96.5..96.6, 16384^2 95.0 -> 95.5 -> 95.8 -> 96.2..96.3, 8192^2 97.3 -> 97.9 -> 98.5 -> 98.4..98.7, 5120^2
 *   95.0 -> 96.0 -> 96.3 -> 95.9..96.2. Without the barrier clusters of 4 and 8 were level or behind 2 (5120^2 94.3,
 *   95.1..95.4); clusters of 16 (a non-portable size) level with 8 but 8192^2 97.5..97.9.
 * - 2 to 16 bytes, two processes each (docs/notes/fast-v50-sync-clusters.txt), no clusters -> clusters of 8 with the
 *   barrier: u16 16384^2 96.1 -> 96.6, 4096^2 level; float 4096^2 98.0..98.2 -> 98.9..99.1, 16384^2 level (96.6 ->
 *   96.5); double 2048^2 99.3..99.5 -> 100.1..100.3, 4096^2 97.1 -> 97.8; c128 2048^2 99.0..99.2 -> 100.1..100.2,
 *   4096^2 97.2 -> 97.7 (clusters of 2 and 4 gained about half and three quarters of that). Clusters of 8 without the
 *   barrier: u16 level, float -0.3..-0.7.
 * Calls of one wave or less lost by the barrier (1-byte 2048^2 95.3..98.5 -> 90.0..90.3 with clusters of 2) and keep
 * their kernels; so do the 1-byte sector and shifted tiles, where it was level or behind
 * (fast-v49-sync-sector-shift-edge.txt), and calls of several column walks (walk_count_log2), whose tiles no 2-D grid
 * names (c128 16384^2 with one walk in clusters of 8: 96.3 against 96.2 with one walk alone). */
/* 8- and 16-byte calls (DenseTile) take clusters of 2 instead: on the H200, the issue's machine, clusters of 8 lost
 * to 2 at every such shape measured, three processes each (docs/notes/fast-v60-sync-cluster-h200.txt), % of memcpy,
 * 8 -> 2: double 2048^2 100.0..100.6 -> 102.0..102.2, 3072^2 98.5 -> 99.4, 4096^2 98.1..98.5 -> 98.6, 5120^2 97.0 ->
 * 97.4, 8192^2 98.2..98.3 -> 98.5, 32768 x 8192 96.7..96.8 -> 97.0; c128 2048^2 99.1..99.4 -> 99.7..99.9 (cuBLAS
 * 99.9..100.1, which led it there), 3072^2 96.7 -> 97.3, 4096^2 97.5 -> 97.7..97.8 (c128 16384^2 and 8192 x 32768
 * take column walks or no 2-D grid); clusters of 4 and no clusters at all in between. (On an H100, fast-v50 above, 2
 * had gained about half of what 8 did at 2048^2, where fast stays 1-2 points ahead of cuBLAS.) 1- to 4-byte calls
 * keep 8: on the H200 2 lost at u8, u16 and float 16384^2 and 32768 x 8192 (u8 96.2 -> 95.8, float 96.4..96.5 ->
 * 96.1..96.2) and split the smaller squares (u8 8192^2 +1.3, float 4096^2 +0.8, 8192^2 -0.2). */
#define FAST_SYNC_CLUSTER 8
#define FAST_SYNC_CLUSTER_WIDE 2

/* Shared-memory row stride of the skewed 4-byte tile, by lds and ldd mod 4: the stride with the fewest
 * wavefronts (stores and gathers) in a bank model of the tile (tools/skew_banks.py). 260 bytes, the padded
 * scalar stride, takes 828 wavefronts a tile at 8191x8193, 264 takes 544: 85.2 -> 86.2 % of memcpy there,
 * 81.9 -> 82.6 at 4001x4003 (docs/notes/fast-v12-stride.txt). */
/* The other element sizes, from the same model: 1 byte 135 (since by residue: skew_stride_1; 132, the padded
 * stride, had 1.5-2.8x the wavefronts: 8191x8193 u8 49.3 -> 61.1 % of memcpy, 4001x4003 56.6 -> 86.0), 2 bytes 266
 * (since by residue: skew_stride_2; 260: 1.2-2.3x; 86.4 -> 89.9, 83.9 -> 98.0; docs/notes/fast-v15-*), 8 bytes 264
 * (rows placed by cp.async, a lane an element, leave only the gathers to choose by: 258-386 wavefronts a tile, the
 * fewest at every residue; with the vector placement before, odd lds took 272: 536 wavefronts against 808,
 * docs/notes/fast-v16-*). Realigning 1- and
 * 2-byte vectors into words by funnel shifts, with XOR-swizzled rows (stride 160 / 288), cut shared-memory
 * instructions by 40 % but ran slower: u8 4001x4003 87.4 -> 75.5 (docs/notes/fast-v21-*). */
/* 16 bytes 272: whole vectors, 17 of them a row, so the 8 rows a quarter-warp gathers from lie in 8 distinct
 * groups of 4 banks. */
template <int ES> struct SkewStride { enum { RS = ES == 16 ? 272 : 264 }; }; /* 8 and 16 bytes; the rest by table */

static int skew_stride_4(size_t lds, size_t ldd)
{
    static const short best[4][4] = {{260, 264, 260, 260}, {268, 268, 268, 264}, {260, 268, 260, 260}, {260, 264, 260, 260}};
    return best[lds % 4][ldd % 4];
}

/* The 1-byte skewed tile's stride by lds % 16 and ldd % 16. lds % 16 and ldd % 32 fix every row's offset in its
 * vector and every window's offset in its sector, so the bank model (tools/skew_banks.py --bytes, which prints this
 * table) counts each pitch of such a residue exactly, base pointers on 32 bytes; its choices for ldd and ldd + 16
 * agree everywhere, hence the table's 16 columns. Of the strides 128-175, the six whose best at each residue comes
 * closest to that residue's best: at most 1.20x, 1745 wavefronts a tile on the mean over residues (each residue's
 * best: 1693). The model's counts past one wavefront a warp access are Nsight Compute's shared-memory bank conflicts
 * within 3 % (2501 x 2503 at 131: 527 against 515 a tile; 2401 x 2403 at 135: 271 against 267; 2001 x 4001 at 165:
 * 15 and 15). The table before, by lds % 8 and ldd % 8 from two pitches each, missed that residues 8 apart differ:
 * 2501 x 2503 (lds % 16 = 7, ldd % 16 = 5) took 1754 wavefronts a tile at 131 against 1574 at 145 now, 2503 x 2501
 * 1794 against 1518; the mean over residues was 1829. */
static int skew_stride_1(size_t lds, size_t ldd)
{
    static const unsigned char best[16][16] = {
        {165, 165, 165, 135, 165, 137, 165, 131, 165, 165, 131, 135, 165, 137, 165, 131},
        {157, 157, 157, 157, 157, 165, 157, 157, 157, 157, 135, 165, 157, 157, 157, 165},
        {165, 165, 165, 135, 165, 137, 165, 157, 165, 165, 135, 135, 165, 137, 165, 165},
        {135, 135, 135, 135, 135, 137, 135, 157, 135, 157, 135, 135, 135, 135, 157, 135},
        {135, 157, 135, 135, 135, 145, 135, 145, 135, 157, 135, 135, 135, 145, 145, 137},
        {145, 137, 145, 137, 145, 145, 145, 145, 145, 145, 145, 145, 145, 145, 145, 137},
        {145, 157, 131, 137, 145, 145, 145, 131, 145, 157, 145, 145, 145, 145, 145, 131},
        {131, 157, 131, 131, 131, 145, 145, 131, 131, 131, 131, 145, 131, 131, 131, 131},
        {131, 165, 131, 157, 131, 145, 165, 131, 131, 165, 131, 165, 131, 145, 131, 131},
        {157, 157, 157, 157, 157, 165, 157, 157, 157, 157, 131, 165, 157, 157, 157, 165},
        {165, 165, 165, 135, 165, 145, 165, 131, 165, 165, 135, 135, 165, 145, 165, 131},
        {135, 135, 135, 135, 135, 145, 135, 145, 135, 165, 135, 135, 135, 135, 145, 135},
        {145, 165, 131, 135, 145, 145, 145, 131, 145, 165, 145, 135, 145, 145, 145, 131},
        {145, 137, 135, 137, 145, 145, 145, 145, 145, 145, 145, 145, 145, 145, 145, 137},
        {137, 165, 131, 135, 137, 137, 137, 131, 137, 165, 137, 135, 137, 137, 137, 131},
        {131, 165, 131, 131, 131, 137, 137, 131, 131, 131, 131, 165, 131, 131, 131, 131},
    };
    return best[lds % 16][ldd % 16];
}

/* Whether the 1-byte skewed tiles of a residue (lds % 16, ldd % 16) take at least 1400 shared-memory wavefronts a tile
 * at skew_stride_1's stride in the bank model (tools/skew_banks.py --bytes prints these masks, bit ldd % 16 of row
 * lds % 16): all but the residues with lds odd and ldd = lds mod 8, which take 1242-1262. */
static bool skew_heavy_1(size_t lds, size_t ldd)
{
    static const unsigned short heavy[16] = {0xffff, 0xfdfd, 0xffff, 0xf7f7, 0xffff, 0xdfdf, 0xffff, 0x7f7f,
                                             0xffff, 0xfdfd, 0xffff, 0xf7f7, 0xffff, 0xdfdf, 0xffff, 0x7f7f};
    return heavy[lds % 16] >> (ldd % 16) & 1;
}

/* The 2-byte skewed tile's stride by lds % 8 and ldd % 8 (the same residues in elements, and again columns 8 apart
 * agree), from the strides 256-302: five strides hold every residue's best in the bank model (tools/skew_banks.py
 * --halves). 266 alone, the stride before, took up to 2.5 times the best (lds % 8 = 5, ldd % 8 = 5, as 16384^2 at
 * pitch 16389: 2344 wavefronts a tile against 923 at 262), 1.31 times on the mean over residues (1287 against 982);
 * 4001 x 4003 1181 against 926 (286). */
static int skew_stride_2(size_t lds, size_t ldd)
{
    static const short best[8][8] = {
        {262, 262, 262, 266, 262, 262, 266, 266},
        {262, 262, 262, 266, 262, 262, 266, 266},
        {266, 286, 286, 266, 266, 286, 266, 266},
        {274, 286, 286, 274, 274, 286, 274, 274},
        {274, 286, 286, 274, 274, 286, 274, 274},
        {262, 262, 262, 290, 262, 262, 290, 290},
        {262, 262, 262, 274, 262, 262, 274, 274},
        {274, 262, 262, 274, 274, 262, 274, 274},
    };
    return best[lds % 8][ldd % 8];
}

/* Whether some row of a matrix (first at `base`, rows `ld` elements apart, batch members `stride` apart)
 * starts off a multiple of `unit` bytes. */
static bool rows_off(const void *base, size_t ld, size_t stride, const xp_shape *s, size_t unit)
{
    return ((uintptr_t)base | (ld * s->es) | (s->batch > 1 ? stride * s->es : 0)) % unit != 0;
}

static bool src_rows_off(const xp_call *c, size_t unit) { return rows_off(c->src, c->s.lds, c->s.ss, &c->s, unit); }
static bool dst_rows_off(const xp_call *c, size_t unit) { return rows_off(c->dst, c->s.ldd, c->s.sd, &c->s, unit); }

/* Whether some destination row of an aligned call starts 16 bytes into a 32-byte sector. */
static bool half_sector_rows(const xp_call *c) { return dst_rows_off(c, 32); }

/* Whether the destination of a call (its span, xp_shape::dst_bytes) covers at most 1/3 of the L2 (1/8 for 4-byte
 * elements). Such calls keep vector tiles on rows 16 bytes off a sector: against the skewed tiles in the same runs on
 * the H200 (docs/notes/fast-v39-half-sector-l2.txt), % of memcpy, 2 bytes 1000^2 +10.5..+11.3, 2024^2 +9.1..+9.8,
 * 3000^2 (18 MB) +7.3; 4 bytes 1004^2 +6.4..+7.3; 8 bytes 1002^2 +7.7..+9.1; 16 bytes 1001^2 (16 MB) +1.8. Past those
 * sizes the sectors cut in half cost more: 2 bytes 4008^2 (32 MB) -2.2..-2.4, 7000^2 -5.5; 4 bytes 2004^2 (16 MB)
 * -1.0, 4004^2 -2.6..-3.0; 8 bytes 3002^2 -1.0..-1.5; 16 bytes 3001^2 -0.5. (8 bytes at 32 MB +0.9, 16 bytes at 36 and
 * 64 MB +2.4 and +0.5 lie past these bounds: the bound is the one all sizes share, with floats' own.) */
static bool dst_within_l2_part(const xp_shape *s)
{
    return s->dst_bytes <= xr_device_l2_bytes() / (s->es == 4 ? 8 : 3);
}

/* The shifted kernel with windows of HALO rows. Windows (16, 32) take the 2-D grid in clusters of two blocks
 * (FAST_BYTE_CLUSTER says where); tiles without windows keep the grid-stride kernel, which was 0.3 points ahead. */
template <int HALO, bool TALL = false> static int run_shift(const FastArgs &a, const xp_shape *s, const xp_call *c)
{
    typedef ShiftGeo<HALO, TALL> K;
    if constexpr (HALO == 0)
        return run<typename K::G>(fast_shift_kernel<HALO, TALL>, a, s, 0, K::SMEM, c);
    else
        return run<typename K::G>(fast_shift_kernel<HALO, TALL>, a, s, HALO - 1, K::SMEM, c,
                                  fast_shift_direct<HALO, TALL>, FAST_BYTE_CLUSTER);
}

/* Whether a call of `tiles` tiles (FastTile's unless a rule says otherwise) fits one wave of `blocks` blocks per SM. */
static bool fits_one_wave(size_t tiles, size_t blocks = FAST_ONE_WAVE_BLOCKS) { return tiles <= blocks * device_sms(); }

/* The windows of the shifted tiles (fast_shift.cuh) a 1-byte call whose rows are not all on vectors takes: 0 where
 * its destination rows are all on vectors; else 32 (sector windows) where its destination spans more than a third of
 * the L2, whose sectors cut in two would leave the L2 before both halves arrive, or 16 (vector windows, fewer halo
 * rows) where the source rows are off vectors; -1: skewed tiles. Against the skewed tiles in the same runs on the
 * H200 (docs/notes/fast-v42-shift.txt), % of memcpy:
 * - 0: 16384^2 source pitch 16385 76.8 -> 91.3;
 * - 32: 16384^2 both pitches 16392 57.4..65.7 -> 82.9, destination pitch 16385 79.3 -> 86.8, 16392 76.3 -> 87.3,
 *   8191 x 8193 69.6 -> 79.2 (16: 79.2..80.2);
 * - 16: 2047 x 2049 83.9 -> 85.2..89.0 (32: 80.1), 4001 x 4003 81.5..81.8 -> 81.5..82.4 (32: 74.4). With the source
 *   on vectors and the destination not, 16 lost at pitch 16385 (69.0 against 80.2); small calls of that kind keep
 *   the skewed tiles.
 * - -1 also where the skewed tiles (128 x 128, 21 KB) fit one wave at 4 blocks per SM: smaller tiles than the shifted
 *   ones (112 x 256 windows, 35 KB) and about twice as many, so a call of one wave ends sooner. Against windows of 16
 *   in the same runs on an H100 (docs/notes/fast-v55-byte-skew-small.txt), us: 255 x 257 8.7..8.8 -> 7.2, 1023 x
 *   1025 8.9..9.0 -> 7.3..7.5, 1203 x 901 9.2 -> 7.6 (85 -> 105 % of memcpy), 1801 x 1803 10.7 -> 8.9, 2001 x 4001
 *   13.6..13.7 -> 11.0..11.3, 4001 x 2001 13.0 -> 10.8, 2047 x 2049 10.6..10.7 -> 10.1..10.2: 18 of 21 shapes
 *   faster, 2 level (both past one wave of skewed tiles), 2501 x 2503 slower (11.0 -> 12.2; 11.4..11.5 with the
 *   strides by lds % 16 of skew_stride_1, where its bank conflicts had been: docs/notes/fast-v56-skew-strides.txt).
 * - but 16 where the skewed tiles need a fourth on some SM (more than 3 a SM) while the vector windows fit 2 a SM, for
 *   residues whose skewed tiles are heavy in shared memory (skew_heavy_1): against the skewed tiles on an H100, us,
 *   two rounds (docs/notes/fast-v57-skew-window-rule.txt), 12 heavy shapes 10 faster and 2 level, 7 of them held out
 *   from the rule's making: 2588 x 2556 11.7 -> 10.6, 2068 x 3131 11.2 -> 10.4, 2289 x 2947 11.7 -> 11.1, 2501 x
 *   2601 12.2 -> 10.9, 2501 x 2503 11.4 -> 11.0, 2331 x 2847 level. Light residues (1242-1262 wavefronts a tile) split
 *   either way by up to 0.6 us in 11 shapes, and keep the skewed tiles. */
static int shift_halo(const xp_call *c)
{
    if (!dst_rows_off(c, 16))
        return 0;
    if (!dst_within_l2_part(&c->s))
        return 32;
    if (!src_rows_off(c, 16))
        return -1;
    FastArgs skew;
    count_tiles<SkewGeo<1>::G>(skew, &c->s, SkewGeo<1>::W - 1); /* as run_skew counts them */
    if (!fits_one_wave(skew.tiles, 4))
        return 16;
    FastArgs win;
    count_tiles<ShiftGeo<16>::G>(win, &c->s, 16 - 1); /* as run_shift<16> counts them */
    return !fits_one_wave(skew.tiles, 3) && fits_one_wave(win.tiles, 2) && skew_heavy_1(c->s.lds, c->s.ldd) ? 16 : -1;
}

/* The skewed kernel for ES-byte rows (skew_stride_4, skew_stride_2 and skew_stride_1 pick the 4-, 2- and 1-byte
 * strides). */
template <int ES> static int launch_skew(const FastArgs &a, const xp_shape *s, const xp_call *c)
{
    if constexpr (ES == 4) {
        switch (skew_stride_4(s->lds, s->ldd)) {
        case 264: return run_skew<ES, 264>(a, s, c);
        case 268: return run_skew<ES, 268>(a, s, c);
        default: return run_skew<ES, 260>(a, s, c);
        }
    } else if constexpr (ES == 1) {
        switch (skew_stride_1(s->lds, s->ldd)) {
        case 131: return run_skew<ES, 131>(a, s, c);
        case 137: return run_skew<ES, 137>(a, s, c);
        case 145: return run_skew<ES, 145>(a, s, c);
        case 157: return run_skew<ES, 157>(a, s, c);
        case 165: return run_skew<ES, 165>(a, s, c);
        default: return run_skew<ES, 135>(a, s, c);
        }
    } else if constexpr (ES == 2) {
        switch (skew_stride_2(s->lds, s->ldd)) {
        case 262: return run_skew<ES, 262>(a, s, c);
        case 274: return run_skew<ES, 274>(a, s, c);
        case 286: return run_skew<ES, 286>(a, s, c);
        case 290: return run_skew<ES, 290>(a, s, c);
        default: return run_skew<ES, 266>(a, s, c);
        }
    } else {
        return run_skew<ES, SkewStride<ES>::RS>(a, s, c);
    }
}

/* Tiles of `t` units that hold at least a third of their units, over n units. */
static size_t heavy_tiles(size_t n, size_t t) { return n / t + (n % t >= t / 3); }

/* Whether a call of vector windows (HALO 16) takes tall tiles (fast_shift.cuh: 128 own rows, 144 loaded, against 112
 * and 128): where its tall tiles fit one wave at 4 blocks per SM and its short tiles that hold at least a third of a
 * tile's rows and columns ("heavy") exceed one wave by more than 1/64 of it. A tall tile takes longer than a short
 * one, so calls of one wave of short tiles stay short, as do calls whose second wave of short tiles carries little
 * (a last tile row or column of a few rows or columns, or a few tiles). On an H100, fast ms short -> tall, two runs
 * each (docs/notes/fast-v54-tall-windows.txt): taken at 4001 x 4003 17.5..17.7 -> 16.3..16.4 us (82-83 -> 89-90 % of
 * memcpy), 3725 x 4003 16.4..16.5 -> 15.9..16.1, 2001 x 8003 17.6..17.8 -> 16.3..16.4, 5001 x 3203 17.6..17.7 ->
 * 16.2..16.4, 1501 x 10003 17.3 -> 16.3..16.4, 1001 x 16003 18.3..18.4 -> 17.7..17.9; not taken at 3697 x 4003 (a
 * last tile row of 16 rows) 15.9..16.3 -> 16.6, 2001 x 7001 (one wave) 15.0..15.1 -> 17.5..17.6, 1001 x 14001 (last
 * tile row of 8 rows) 15.8..16.1 -> 18.0..18.2, 1001 x 15001 (3 heavy tiles past a wave) 17.3..17.4 -> 17.9..18.1. */
static bool tall_pays(const xp_shape *s)
{
    typedef ShiftGeo<16>::G Short;
    enum { EXTRA = 16 - 1 }; /* run_shift's windows reach HALO - 1 rows past a tile */
    const size_t heavy = heavy_tiles(s->rows + EXTRA, Short::TR) * heavy_tiles(s->cols, Short::TC) * s->batch;
    const size_t slots = 4 * device_sms();
    FastArgs tall;
    count_tiles<ShiftGeo<16, true>::G>(tall, s, EXTRA);
    return heavy > slots + slots / 64 && fits_one_wave(tall.tiles, 4);
}

/* Whether a call takes tiles of geometry G at NB blocks per SM in clusters that store together: whole tiles, more
 * than one wave of them (FAST_SYNC_CLUSTER says why). */
template <class G, int NB> static bool sync_pays(const xp_shape *s)
{
    return whole_tiles<G>(s) && !fits_one_wave(s->rows / G::TR * (s->cols / G::TC) * s->batch, NB);
}

/* Tiles of geometry G at NB blocks per SM, on the 2-D grid in clusters of FAST_SYNC_CLUSTER (8- and 16-byte elements:
 * FAST_SYNC_CLUSTER_WIDE) that meet before storing (or the grid-stride kernel where no 2-D grid names the tiles:
 * batches, column walks). */
template <class G, int NB> static int run_synced(const FastArgs &a, const xp_shape *s, const xp_call *c)
{
    return run<G>(fast_kernel<G, NB>, a, s, 0, G::SMEM, c, fast_kernel_direct<G, NB, true, true>,
                  G::ES >= 8 ? FAST_SYNC_CLUSTER_WIDE : FAST_SYNC_CLUSTER);
}

/* 4- and 16-byte calls of whole FastTile tiles, one matrix, that take fast_kernel_split: those of one wave of
 * FAST_ONE_WAVE_BLOCKS blocks per SM with at most LOW_MAX or at least HIGH_MIN tiles per SM. Kernel durations on the
 * H200 (CUPTI: the mean of the middle half of 600 launches, each after an L2 flush; docs/notes/fast-v41-split.txt)
 * against the kernel before, in %, tiles per SM in parentheses:
 * - 16 bytes, against DenseTile below 5 tiles per SM and FastTile at 8 blocks per SM from 5: 256^2 (0.5) -4.1, 320^2
 *   -5.9, 448^2 -2.9, 512^2 (1.9) -2.9; 768^2 (4.4) -2.3, 832^2 -2.7, 960^2 -3.1, 1024^2 (7.8) -1.7 (-3.6..-4.5 against
 *   DenseTile in eight runs over four allocations), 512 x 2048 -2.9, 2048 x 512 -1.3, 1152 x 512 -1.4, 896^2 -0.3, 1024 x 768 and
 *   768 x 1024 -0.4, 512 x 1536 -0.5. Not taken: 384^2 (1.1) +0.1, 640^2 (3.0) +1.8, 704^2 (3.7) -0.1.
 * - 4 bytes, against the same tiles stored whole: 640^2 (0.8) -3.4, 768^2 -3.6, 896^2 -2.4, 1024^2 (1.9) -2.9
 *   (-1.2..-2.5 in eight runs over four allocations), 2048 x 512 -3.5, 512 x 2048 0.0. Not taken, from 3 a SM: 1280^2 (3.0) +4.6,
 *   1536^2 +0.8, 2048^2 -0.3, 1024 x 2048 -0.9, 2048 x 1024 +0.2, 1152^2 -0.1.
 * - 8 bytes (16 KB tiles against DenseTile), not taken: 640^2 (1.5) +2.8, 768^2 +8.0, 1024^2 (3.9) -1.7 in one
 *   run and level in four allocations of another, 1280^2 -1.6, 1408^2 -2.4, 1152^2 -0.3, 2048 x 512 +0.4, and in the
 *   bench's sweep (event times) 98.4 against 100.7 % of memcpy at 1024^2. */
template <int ES> struct SplitTiles;
template <> struct SplitTiles<4> { enum { LOW_MAX = 2, HIGH_MIN = FAST_ONE_WAVE_BLOCKS + 1 }; };
template <> struct SplitTiles<16> { enum { LOW_MAX = 2, HIGH_MIN = 4 }; };

template <int ES> static bool split_pays(size_t tiles)
{
    const size_t sms = device_sms();
    return tiles <= FAST_ONE_WAVE_BLOCKS * sms &&
           (tiles <= SplitTiles<ES>::LOW_MAX * sms || tiles >= SplitTiles<ES>::HIGH_MIN * sms);
}

template <int ES> static int launch(const xp_call *c)
{
    const xp_shape *s = &c->s;
    FastArgs a;
    a.src = (const char *)c->src;
    a.dst = (char *)c->dst;
    a.rows = s->rows, a.cols = s->cols, a.lds = s->lds, a.ldd = s->ldd, a.ss = s->ss, a.sd = s->sd;
    a.vec = !src_rows_off(c, 16) && !dst_rows_off(c, 16);
    a.band = (unsigned)c->p0;
    const bool auto_tiles = c->p1 & XP_FAST_AUTO_TILES;
    size_t tiles = 0; /* FastTile tiles of the whole call, counted where an automatic rule reads them */
    if (c->p1 & (XP_FAST_AUTO_ORDER | XP_FAST_AUTO_TILES)) {
        FastArgs t = a;
        count_tiles<Geo<ES>>(t, s, 0);
        tiles = t.tiles;
        if ((c->p1 & XP_FAST_AUTO_ORDER) && tiles <= FAST_FEW_TILES && ES <= FAST_FEW_TILES_MAX_ES)
            a.band = 0;
    }
    /* 1-byte rows off a vector take shifted tiles, with windows that shift_halo picks (or skewed ones). */
    if constexpr (ES == 1)
        if (auto_tiles && !a.vec) {
            switch (shift_halo(c)) {
            case 0: return run_shift<0>(a, s, c);
            case 16: return tall_pays(s) ? run_shift<16, true>(a, s, c) : run_shift<16>(a, s, c);
            case 32: return run_shift<32>(a, s, c);
            default: break;
            }
        }
    /* Other rows off a vector take skewed tiles; so do 2- to 16-byte rows on vectors whose destination rows are not
     * all on sectors (half_sector_rows), which vector tiles would cut into half sectors. Against vector tiles
     * in the same runs on the H200 (docs/notes/fast-v32-half-sectors.txt), 16384^2 with a destination pitch
     * an odd number of 16-byte units, % of memcpy: u16 82.8 -> 95.8, float 92.9 -> 96.3, double 89.0 ->
     * 96.2, c128 91.9 -> 94.9; float 4000^2 (ld 4004) 91.1 -> 94.5, double 8192^2 (ld 8194) 93.3 -> 98.1.
     * Calls whose destination spans a small part of the L2 keep vector tiles (dst_within_l2_part says why). */
    if (!a.vec || (ES > 1 && auto_tiles && half_sector_rows(c) && !dst_within_l2_part(s)))
        return launch_skew<ES>(a, s, c);
    typedef Geo<ES, SmallTile<ES>::TR, SmallTile<ES>::TC> Small;
    /* Small tiles with vector edges: 6 blocks per SM (34-40 registers; 4 for 1 byte), on the 2-D grid where it names
     * the tiles (one tile a block, 72 bytes of parameters, no tile-number divisions: these calls take 5-9 us, much of
     * it the launch and the first loads). Against the grid-stride kernel, same processes, two rounds on an H100
     * (docs/notes/fast-v51-small-grid.txt), % of memcpy: u8 256^2 +1.1..+1.6, 512^2 +0.9..+1.4, 1024^2 +1.9 and -4.6;
     * u16 256^2-1024^2 +1.3..+2.0, 1000 x 3000 +0.5..+2.3, 2048^2 level; float 256^2 +2.8..+6.6, 512^2 +1.9..+3.8;
     * double 256^2 +3.9..+4.2, 512^2 +0.8..+2.3 (non-SmallTile controls in the same runs moved -1.2..+0.3). Where the
     * lab row asks for small tiles everywhere: 8 blocks, 32 registers, element-wise edges (with vector edges at 6
     * blocks, 8-byte 4096^2 fell from 90.9 to 79.5 % of memcpy: docs/notes/fast-v18-*). */
    if (auto_tiles && tiles <= SmallTile<ES>::AUTO_MAX) {
        enum { NB = ES == 1 ? 4 : 6 };
        return run<Small>(fast_kernel<Small, NB, true>, a, s, 0, Small::SMEM, c, fast_kernel_direct<Small, NB>);
    }
    if (c->p1 & XP_FAST_SMALL_TILES)
        return run<Small>(fast_kernel<Small, ES == 1 ? 4 : 8, false>, a, s, 0, Small::SMEM, c);
    if constexpr (ES == 1)
        if (auto_tiles && half_sector_rows(c))
            return run<SectorGeo::G>(fast_sector_kernel, a, s, SectorGeo::SHIFT, SectorGeo::SMEM, c, fast_sector_direct,
                                     FAST_BYTE_CLUSTER);
    if constexpr (ES == 4 || ES == 16) /* SplitTiles says where */
        if (auto_tiles && s->batch == 1 && whole_tiles<Geo<ES>>(s) && split_pays<ES>(tiles))
            return run<Geo<ES>>(fast_kernel<Geo<ES>>, a, s, 0, Geo<ES>::SMEM, c, fast_kernel_split<Geo<ES>>, 1,
                                Geo<ES>::SMEM / 2);
    if constexpr (ES == 4)
        if (auto_tiles && fits_one_wave(tiles))
            return run<Geo<ES>>(fast_kernel<Geo<ES>>, a, s, 0, Geo<ES>::SMEM, c,
                                fast_kernel_direct<Geo<ES>, FAST_ONE_WAVE_BLOCKS>);
    if constexpr (ES >= 4) /* large calls whose source rows are off a line (WideTile says why) */
        if (auto_tiles && tiles >= FAST_WIDE_MIN_TILES && src_rows_off(c, 128)) {
            typedef Geo<ES, WideTile<ES>::TR, WideTile<ES>::TC> Wide;
            return run<Wide>(fast_kernel<Wide>, a, s, 0, Wide::SMEM, c);
        }
    if constexpr (ES >= 8) /* 8 KB tiles at 8 blocks per SM (DenseTile says why) */
        if (auto_tiles) {
            typedef Geo<ES, DenseTile<ES>::TR, DenseTile<ES>::TC> Dense;
            enum { NB = DenseTile<ES>::BLOCKS };
            if (sync_pays<Dense, NB>(s))
                return run_synced<Dense, NB>(a, s, c);
            return run<Dense>(fast_kernel<Dense, NB>, a, s, 0, Dense::SMEM, c, fast_kernel_direct<Dense, NB>);
        }
    /* Whole tiles past one wave in clusters that store together (FAST_SYNC_CLUSTER); other 1-byte FastTile calls on
     * the 2-D grid in pairs of blocks (FAST_BYTE_CLUSTER says why). */
    if constexpr (ES <= 4)
        if (auto_tiles && sync_pays<Geo<ES>, 4>(s))
            return run_synced<Geo<ES>, 4>(a, s, c);
    if constexpr (ES == 1)
        if (auto_tiles)
            return run<Geo<ES>>(fast_kernel<Geo<ES>>, a, s, 0, Geo<ES>::SMEM, c,
                                whole_tiles<Geo<ES>>(s) ? fast_kernel_direct<Geo<ES>, 4, true>
                                                        : fast_kernel_direct<Geo<ES>, 4>,
                                FAST_BYTE_CLUSTER);
    return run<Geo<ES>>(fast_kernel<Geo<ES>>, a, s, 0, Geo<ES>::SMEM, c);
}

/* A one-row or one-column matrix whose transpose is contiguous on both sides (xp_shape_is_copy) is a
 * copy: the copy engine's rate, where tiles would use one row or column of
 * each (1 x 10^6 float: 9 % of memcpy, 10^6 x 1 bytes: 8 %; docs/notes/fast-v19-*; as copies 98-104 %,
 * docs/notes/fast-v20-*). Batches with gaps are one 2-D copy; source members that overlap, or pitches past
 * the copy's limit, take the kernel. */
static bool copy_if_vector(const xp_call *c, int *status)
{
    const xp_shape *s = &c->s;
    if (!xp_shape_is_copy(s))
        return false;
    const size_t w = s->rows * s->cols * s->es, sp = s->ss * s->es, dp = s->sd * s->es;
    cudaError_t e;
    if (s->batch == 1 || (sp == w && dp == w)) /* members back to back: one copy (as a 2-D copy: 44 %) */
        e = cudaMemcpyAsync(c->dst, c->src, w * s->batch, cudaMemcpyDeviceToDevice, xp_stream(c));
    else if (sp >= w && dp >= w && sp <= INT32_MAX && dp <= INT32_MAX)
        e = cudaMemcpy2DAsync(c->dst, dp, c->src, sp, w, s->batch, cudaMemcpyDeviceToDevice, xp_stream(c));
    else
        return false;
    *status = xp_cuda_status_of(e);
    return true;
}

extern "C" int xp_cuda_fast(const xp_call *c)
{
    int status;
    if ((c->p1 & XP_FAST_AUTO_TILES) && copy_if_vector(c, &status))
        return status;
    switch (c->s.es) {
    case 1: return launch<1>(c);
    case 2: return launch<2>(c);
    case 4: return launch<4>(c);
    case 8: return launch<8>(c);
    default: return launch<16>(c);
    }
}
