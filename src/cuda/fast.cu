/* fast.cu: the production GPU transpose (`fast`): which tiles and kernel each call takes (the rules, each naming the
 * entry of docs/tuning.md that holds its measurements), and the launch. Kernels: fast_kernels.cuh; tile order:
 * fast_order.cuh. */
#include "fast.h"

#include "fast_kernels.cuh"

/* log2 of the number of column walks. Where the source pitch is a power of two of 128 KiB or more, one walk's reads
 * share their low address bits and spread over the memory system only as well as the physical pages let them; walks
 * 64 KiB of row apart vary bits 16 and up. One walk per 64 KiB of pitch, at most 4, and only for tiles walked down
 * single tile columns (band 1): each walk costs writes (docs/tuning.md, "fast: interleaved walks"). */
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

/* Launches `kernel` over the tiles of geometry G (windows reaching `extra` rows past a tile: count_tiles) with `smem`
 * bytes of shared memory a block, or `direct` (fast_kernel_direct) where given and the call is one matrix in one walk
 * whose tile rows and columns a 2-D grid can name, with `direct_smem` bytes where given; `direct` in clusters along x
 * where the device has clusters (sm_90): of `cluster` blocks (a power of two), or of the largest power of two below it
 * that divides the grid's x. */
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
    cfg.gridDim = !direct  ? dim3((unsigned)grid)
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

/* Calls of 1- to 4-byte elements with at most this many tiles (two waves on an H200) run row by row: a wave then
 * reads whole source rows ("fast: row order for few tiles"). */
#define FAST_FEW_TILES 1024
#define FAST_FEW_TILES_MAX_ES 4

/* 4-byte calls with at most this many FastTile tiles per SM take fast_kernel_direct at this many blocks per SM: one
 * wave, where 4 blocks per SM needed two and the second started only as the first drained ("fast: one wave at 8
 * blocks per SM"). */
#define FAST_ONE_WAVE_BLOCKS 8

/* 1-byte FastTile calls that a 2-D grid can name, and the 1-byte sector and windowed shifted tiles, take it in
 * clusters of this many blocks: neighbouring tiles start together on one GPC ("fast: byte clusters"). Calls of whole
 * tiles past one wave cluster as FAST_SYNC_CLUSTER says. */
#define FAST_BYTE_CLUSTER 2

/* Calls of whole tiles past one wave take the 2-D grid in clusters of this many blocks down a tile column, which meet
 * at a barrier between loading their tiles and storing them: the cluster then writes neighbouring segments of each
 * destination row together, where its blocks would drift apart ("fast: sync clusters"). 8- and 16-byte tiles
 * (DenseTile) take clusters of FAST_SYNC_CLUSTER_WIDE: 8 lost to 2 there on the H200 ("fast: wide sync clusters"). */
#define FAST_SYNC_CLUSTER 8
#define FAST_SYNC_CLUSTER_WIDE 2

/* Shared-memory row stride of the skewed tiles: the one with the fewest wavefronts (stores and gathers) in a bank model
 * of the tile (scripts/skew_banks.py). 8 and 16 bytes take one stride each; 1, 2 and 4 bytes by the pitches' residues
 * (skew_stride_1, skew_stride_2, skew_stride_4) ("fast: skew strides"). */
template <int ES> struct SkewStride {
    enum { RS = ES == 16 ? 272 : 264 };
}; /* 8 and 16 bytes; the rest by table */

static int skew_stride_4(size_t lds, size_t ldd)
{
    static const short best[4][4] = {
        {260, 264, 260, 260}, {268, 268, 268, 264}, {260, 268, 260, 260}, {260, 264, 260, 260}};
    return best[lds % 4][ldd % 4];
}

/* The 1-byte skewed tile's stride by lds % 16 and ldd % 16 (they fix each row's offset in its vector and each
 * window's in its sector; the model's picks for ldd and ldd + 16 agree), from six strides of 128-175, within 1.20x of
 * each residue's best (scripts/skew_banks.py --bytes prints this table; "fast: skew strides"). */
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
 * at skew_stride_1's stride in the bank model (scripts/skew_banks.py --bytes prints these masks, bit ldd % 16 of row
 * lds % 16): all but lds odd with ldd = lds mod 8, which take 1242-1262 ("fast: skewed tiles for small byte calls"). */
static bool skew_heavy_1(size_t lds, size_t ldd)
{
    static const unsigned short heavy[16] = {0xffff, 0xfdfd, 0xffff, 0xf7f7, 0xffff, 0xdfdf, 0xffff, 0x7f7f,
                                             0xffff, 0xfdfd, 0xffff, 0xf7f7, 0xffff, 0xdfdf, 0xffff, 0x7f7f};
    return heavy[lds % 16] >> (ldd % 16) & 1;
}

/* The 2-byte skewed tile's stride by lds % 8 and ldd % 8 (the same residues in elements; columns 8 apart agree), from
 * five strides of 256-302 that hold every residue's best in the bank model (scripts/skew_banks.py --halves; "fast:
 * skew strides"). */
static int skew_stride_2(size_t lds, size_t ldd)
{
    static const short best[8][8] = {
        {262, 262, 262, 266, 262, 262, 266, 266}, {262, 262, 262, 266, 262, 262, 266, 266},
        {266, 286, 286, 266, 266, 286, 266, 266}, {274, 286, 286, 274, 274, 286, 274, 274},
        {274, 286, 286, 274, 274, 286, 274, 274}, {262, 262, 262, 290, 262, 262, 290, 290},
        {262, 262, 262, 274, 262, 262, 274, 274}, {274, 262, 262, 274, 274, 262, 274, 274},
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
 * elements). Such calls keep vector tiles on rows 16 bytes off a sector: while the L2 holds both halves of a cut
 * sector, that costs less than the skewed tiles ("fast: half sectors within the L2"). */
static bool dst_within_l2_part(const xp_shape *s)
{
    return s->dst_bytes <= xr_device_l2_bytes() / (s->es == 4 ? 8 : 3);
}

/* The shifted kernel with windows of HALO rows. Windows (16, 32) take the 2-D grid in clusters of two blocks;
 * tiles without windows keep the grid-stride kernel, which was 0.3 points ahead ("fast: byte clusters"). */
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

/* The windows of the shifted tiles (fast_shift.cuh) a 1-byte call whose rows are not all on vectors takes
 * ("fast: shifted tiles"): 0 where its destination rows are all on vectors; 32 (sector windows) where its destination
 * spans more than a third of the L2, whose sectors cut in two would leave the L2 before both halves arrive; 16
 * (vector windows, fewer halo rows) where the source rows are off vectors; -1: skewed tiles, which also take calls
 * that fit one wave of them, unless heavy residues would need a fourth a SM where windows fit 2 ("fast: skewed tiles
 * for small byte calls"). */
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
 * and 128): where they fit one wave at 4 blocks per SM and the short tiles that hold at least a third of a tile's rows
 * and columns ("heavy") exceed one wave by more than 1/64 of it. A tall tile takes longer than a short one, so it pays
 * only where it saves a second wave that carries work ("fast: tall windows"). */
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
 * than one wave of them (FAST_SYNC_CLUSTER). */
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
 * FAST_ONE_WAVE_BLOCKS blocks per SM with at most LOW_MAX or at least HIGH_MIN tiles per SM, where its kernel
 * durations measured shorter ("fast: split tiles"). */
template <int ES> struct SplitTiles;
template <> struct SplitTiles<4> {
    enum { LOW_MAX = 2, HIGH_MIN = FAST_ONE_WAVE_BLOCKS + 1 };
};
template <> struct SplitTiles<16> {
    enum { LOW_MAX = 2, HIGH_MIN = 4 };
};

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
    a.band = (unsigned)c->p0; /* the row's tile order: 1, down single tile columns ("fast: column walks") */
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
     * all on sectors, which vector tiles would cut into half sectors ("fast: half sectors"), unless the destination
     * spans a small part of the L2 (dst_within_l2_part). */
    if (!a.vec || (ES > 1 && auto_tiles && half_sector_rows(c) && !dst_within_l2_part(s)))
        return launch_skew<ES>(a, s, c);
    typedef Geo<ES, SmallTile<ES>::TR, SmallTile<ES>::TC> Small;
    /* Small tiles with vector edges, 6 blocks per SM (4 for 1 byte), on the 2-D grid where it names the tiles: these
     * calls take 5-9 us, much of it the launch and the first loads ("fast: small tiles"). Where the lab row asks for
     * small tiles everywhere: 8 blocks, 32 registers, element-wise edges. */
    if (auto_tiles && tiles <= SmallTile<ES>::AUTO_MAX) {
        enum { NB = ES == 1 ? 4 : 6 };
        return run<Small>(fast_kernel<Small, NB, true>, a, s, 0, Small::SMEM, c, fast_kernel_direct<Small, NB>);
    }
    if (c->p1 & XP_FAST_SMALL_TILES)
        return run<Small>(fast_kernel < Small, ES == 1 ? 4 : 8, false >, a, s, 0, Small::SMEM, c);
    if constexpr (ES == 1) /* destination rows 16 bytes off a sector ("fast: sector tiles") */
        if (auto_tiles && half_sector_rows(c))
            return run<SectorGeo::G>(fast_sector_kernel, a, s, SectorGeo::SHIFT, SectorGeo::SMEM, c, fast_sector_direct,
                                     FAST_BYTE_CLUSTER);
    if constexpr (ES == 4 || ES == 16) /* split_pays says where */
        if (auto_tiles && s->batch == 1 && whole_tiles<Geo<ES>>(s) && split_pays<ES>(tiles))
            return run<Geo<ES>>(fast_kernel<Geo<ES>>, a, s, 0, Geo<ES>::SMEM, c, fast_kernel_split<Geo<ES>>, 1,
                                Geo<ES>::SMEM / 2);
    if constexpr (ES == 4) /* one wave at FAST_ONE_WAVE_BLOCKS blocks per SM */
        if (auto_tiles && fits_one_wave(tiles))
            return run<Geo<ES>>(fast_kernel<Geo<ES>>, a, s, 0, Geo<ES>::SMEM, c,
                                fast_kernel_direct<Geo<ES>, FAST_ONE_WAVE_BLOCKS>);
    if constexpr (ES >= 4) /* large calls whose source rows are off a line ("fast: wide tiles") */
        if (auto_tiles && tiles >= FAST_WIDE_MIN_TILES && src_rows_off(c, 128)) {
            typedef Geo<ES, WideTile<ES>::TR, WideTile<ES>::TC> Wide;
            return run<Wide>(fast_kernel<Wide>, a, s, 0, Wide::SMEM, c);
        }
    if constexpr (ES >= 8) /* 8 KB tiles at 8 blocks per SM ("fast: dense tiles") */
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

/* A one-row or one-column matrix whose transpose is contiguous on both sides (xp_shape_is_copy) is a copy, at the
 * copy engine's rate, where tiles would use one row or column of each ("fast: copy_if_vector"). Batches with gaps
 * are one 2-D copy; source members that overlap, or pitches past the copy's limit, take the kernel. */
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
