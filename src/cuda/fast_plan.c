/* fast_plan.c: the production GPU transpose's planner: the rules that pick a path, tiles, grid and clusters for a
 * call (each names the docs/tuning.md entry that holds its measurements), and their constants, as data. Plain C: the
 * CPU tests (tests/test_fast_plan.c) and `xpose explain fast` run it with any device's facts. */
#include <stdint.h>
#include <string.h>
#include "fast.h"
#include "fast_geometry.h"
#include "fast_plan.h"
#include "../core/xp_permute.h"

/* The rules' constants, one row per card they were measured on. Until a card has its own row, it takes the first. */
typedef struct tuning {
    const char *card;
    /* 1- to few_tiles_max_es-byte calls of at most few_tiles FastTile tiles (two waves on an H200) run row by row: a
     * wave then reads whole source rows ("fast: row order for few tiles"). */
    size_t few_tiles;
    unsigned few_tiles_max_es;
    /* Clusters: 1-byte tiles on the 2-D grid take pairs ("fast: byte clusters"); whole tiles past one wave take
     * clusters that meet before storing, of sync_cluster blocks, 8- and 16-byte (dense) ones of sync_cluster_wide
     * ("fast: sync clusters", "fast: wide sync clusters"). */
    unsigned byte_cluster, sync_cluster, sync_cluster_wide;
    /* 4- to 16-byte calls of at least this many FastTile tiles, source rows off a line, take WideTile ("fast: wide
     * tiles"). */
    size_t wide_min_tiles;
    /* By log2(element size): calls of at most small_max FastTile tiles take SmallTile ("fast: small tiles");
     * 4- and 16-byte one-wave calls of at most split_low or at least split_high tiles per SM take the split kernel
     * (0: never; "fast: split tiles"); vector tiles stay on destination rows 16 bytes off a sector while the
     * destination spans at most 1/l2_part of the L2 ("fast: half sectors within the L2"). */
    size_t small_max[5];
    unsigned split_low[5], split_high[5];
    unsigned l2_part[5];
} tuning;

static const tuning tunings[] = {
    {"H200",
     1024,
     4,
     2,
     8,
     2,
     16384,
     {32, 1024, 64, 128, 0},
     {0, 0, 2, 0, 2},
     {0, 0, XP_ONE_WAVE_BLOCKS + 1, 0, 4},
     {3, 3, 8, 3, 3}},
};

static const tuning *tuning_for(const xp_fast_facts *d)
{
    (void)d;
    return &tunings[0];
}

const xp_fast_card xp_fast_cards[] = {
    {"h200", "H200 (sm_90, 132 SMs, 60 MiB L2)", {9, 132, (size_t)60 << 20}},
    {"h100", "H100 SXM (sm_90, 132 SMs, 50 MiB L2)", {9, 132, (size_t)50 << 20}},
    {"v100", "V100 (sm_70, 80 SMs, 6 MiB L2)", {7, 80, (size_t)6 << 20}},
    {"a100", "A100 (sm_80, 108 SMs, 40 MiB L2)", {8, 108, (size_t)40 << 20}},
};
const size_t xp_fast_card_count = sizeof xp_fast_cards / sizeof xp_fast_cards[0];

static unsigned log2_es(size_t es) { return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : es == 8 ? 3 : 4; }

const char *xp_fast_path_name(xp_fast_path path)
{
    static const char *const names[] = {
#define XP_FAST_PATH_NAME_(name, text) text,
        XP_FAST_PATH_LIST(XP_FAST_PATH_NAME_)
#undef XP_FAST_PATH_NAME_
    };
    return (unsigned)path < XP_FAST_PATH_COUNT ? names[path] : "?";
}

/* The shared-memory row stride of the skewed tiles: the one with the fewest wavefronts (stores and gathers) in a bank
 * model of the tile (scripts/skew_banks.py). 8 and 16 bytes take one stride each; 1, 2 and 4 bytes by the pitches'
 * residues ("fast: skew strides"). */
static unsigned skew_stride_4(size_t lds, size_t ldd)
{
    static const short best[4][4] = {
        {260, 264, 260, 260}, {268, 268, 268, 264}, {260, 268, 260, 260}, {260, 264, 260, 260}};
    return (unsigned)best[lds % 4][ldd % 4];
}

/* The 1-byte skewed tile's stride by lds % 16 and ldd % 16 (they fix each row's offset in its vector and each
 * window's in its sector; the model's picks for ldd and ldd + 16 agree), from six strides of 128-175, within 1.20x of
 * each residue's best (scripts/skew_banks.py --bytes prints this table). */
static unsigned skew_stride_1(size_t lds, size_t ldd)
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

/* The 2-byte skewed tile's stride by lds % 8 and ldd % 8 (the same residues in elements; columns 8 apart agree), from
 * five strides of 256-302 that hold every residue's best in the bank model (scripts/skew_banks.py --halves). */
static unsigned skew_stride_2(size_t lds, size_t ldd)
{
    static const short best[8][8] = {
        {262, 262, 262, 266, 262, 262, 266, 266}, {262, 262, 262, 266, 262, 262, 266, 266},
        {266, 286, 286, 266, 266, 286, 266, 266}, {274, 286, 286, 274, 274, 286, 274, 274},
        {274, 286, 286, 274, 274, 286, 274, 274}, {262, 262, 262, 290, 262, 262, 290, 290},
        {262, 262, 262, 274, 262, 262, 274, 274}, {274, 262, 262, 274, 274, 262, 274, 274},
    };
    return (unsigned)best[lds % 8][ldd % 8];
}

static unsigned skew_stride(const xp_shape *s)
{
    switch (s->es) {
    case 1: return skew_stride_1(s->lds, s->ldd);
    case 2: return skew_stride_2(s->lds, s->ldd);
    case 4: return skew_stride_4(s->lds, s->ldd);
    default: return XP_SKEW_STRIDE_WIDE(s->es);
    }
}

/* Whether the 1-byte skewed tiles of a residue (lds % 16, ldd % 16) take at least 1400 shared-memory wavefronts a tile
 * at skew_stride_1's stride in the bank model (scripts/skew_banks.py --bytes prints these masks, bit ldd % 16 of row
 * lds % 16): all but lds odd with ldd = lds mod 8, which take 1242-1262 ("fast: skewed tiles for small byte calls"). */
static int skew_heavy_1(size_t lds, size_t ldd)
{
    static const unsigned short heavy[16] = {0xffff, 0xfdfd, 0xffff, 0xf7f7, 0xffff, 0xdfdf, 0xffff, 0x7f7f,
                                             0xffff, 0xfdfd, 0xffff, 0xf7f7, 0xffff, 0xdfdf, 0xffff, 0x7f7f};
    return heavy[lds % 16] >> (ldd % 16) & 1;
}

/* Tiles of tr x tc over the call; windows reaching `extra` rows past a tile may need one more tile row. */
static size_t count_tiles(const xp_shape *s, unsigned tr, unsigned tc, unsigned extra, size_t *tiles_r, size_t *tiles_c)
{
    size_t r, c;
    r = (s->rows + extra + tr - 1) / tr;
    c = (s->cols + tc - 1) / tc;
    if (tiles_r)
        *tiles_r = r, *tiles_c = c;
    return r * c * s->batch;
}

static size_t tiles_of(const xp_shape *s, unsigned tr, unsigned tc, unsigned extra)
{
    return count_tiles(s, tr, tc, extra, NULL, NULL);
}

static int whole_tiles(const xp_shape *s, unsigned tr, unsigned tc) { return s->rows % tr == 0 && s->cols % tc == 0; }

/* Whether a call of `tiles` tiles fits one wave of `blocks` blocks per SM. */
static int fits_one_wave(const xp_fast_facts *d, size_t tiles, unsigned blocks)
{
    return tiles <= (size_t)blocks * d->sms;
}

/* Whether some row of a matrix (first at `base`, rows `ld` elements apart, batch members `stride` apart) starts off a
 * multiple of `unit` bytes. */
static int rows_off(const void *base, size_t ld, size_t stride, const xp_shape *s, size_t unit)
{
    return ((uintptr_t)base | (ld * s->es) | (s->batch > 1 ? stride * s->es : 0)) % unit != 0;
}

static int src_rows_off(const xp_call *c, size_t unit) { return rows_off(c->src, c->s.lds, c->s.ss, &c->s, unit); }
static int dst_rows_off(const xp_call *c, size_t unit) { return rows_off(c->dst, c->s.ldd, c->s.sd, &c->s, unit); }

/* Whether the destination (its span, xp_shape::dst_bytes) covers at most 1/l2_part of the L2: while the L2 holds both
 * halves of a sector cut in two, vector tiles on such rows cost less than the skewed ones. */
static int dst_within_l2_part(const xp_shape *s, const xp_fast_facts *d, const tuning *t)
{
    return s->dst_bytes <= d->l2_bytes / t->l2_part[log2_es(s->es)];
}

/* log2 of the number of column walks. Where the source pitch is a power of two of 128 KiB or more, one walk's reads
 * share their low address bits and spread over the memory system only as well as the physical pages let them; walks
 * 64 KiB of row apart vary bits 16 and up. One walk per 64 KiB of pitch, at most 4, and only for tiles walked down
 * single tile columns (band 1): each walk costs writes ("fast: interleaved walks"). */
static unsigned walk_count_log2(const xp_call *c, unsigned band, size_t tiles_c)
{
    const size_t pitch = c->s.lds * c->s.es;
    if ((c->p1 & XP_FAST_ONE_WALK) || band != 1 || pitch < (128u << 10) || (pitch & (pitch - 1)))
        return 0;
    unsigned w = pitch >= (256u << 10) ? 2 : 1;
    while (w && tiles_c % (1u << w))
        w--;
    return w;
}

/* The windows of the shifted tiles a 1-byte call whose rows are not all on vectors takes ("fast: shifted tiles"): 0
 * where its destination rows are all on vectors; 32 (sector windows) where its destination spans more than a third
 * of the L2, whose sectors cut in two would leave the L2 before both halves arrive; 16 (vector windows, fewer halo
 * rows) where the source rows are off vectors; -1: skewed tiles, which also take calls that fit one wave of them,
 * unless heavy residues would need a fourth a SM where windows fit 2 ("fast: skewed tiles for small byte calls"). */
static int shift_halo(const xp_call *c, const xp_fast_facts *d, const tuning *t, const char **rule)
{
    const xp_shape *s = &c->s;
    *rule = "fast: shifted tiles";
    if (!dst_rows_off(c, 16))
        return 0;
    if (!dst_within_l2_part(s, d, t))
        return 32;
    if (!src_rows_off(c, 16))
        return -1;
    *rule = "fast: skewed tiles for small byte calls";
    const size_t skew = tiles_of(s, XP_SKEW_TR(1), XP_SKEW_TC(1), XP_SKEW_W(1) - 1);
    if (!fits_one_wave(d, skew, 4))
        return 16;
    const size_t win = tiles_of(s, XP_SHIFT_TR(16, 0), XP_SHIFT_TC, 16 - 1);
    return !fits_one_wave(d, skew, 3) && fits_one_wave(d, win, 2) && skew_heavy_1(s->lds, s->ldd) ? 16 : -1;
}

/* Tiles of n units in tiles of t that hold at least a third of a tile. */
static size_t heavy_tiles(size_t n, size_t t) { return n / t + (n % t >= t / 3); }

/* Whether a call of vector windows takes tall tiles (128 own rows, 144 loaded, against 112 and 128): where they fit
 * one wave at 4 blocks per SM and the short tiles that hold at least a third of a tile's rows and columns exceed one
 * wave by more than 1/64 of it. A tall tile takes longer than a short one, so it pays only where it saves a second
 * wave that carries work ("fast: tall windows"). */
static int tall_pays(const xp_shape *s, const xp_fast_facts *d)
{
    const unsigned extra = 16 - 1;
    const size_t heavy =
        heavy_tiles(s->rows + extra, XP_SHIFT_TR(16, 0)) * heavy_tiles(s->cols, XP_SHIFT_TC) * s->batch;
    const size_t slots = 4 * (size_t)d->sms;
    return heavy > slots + slots / 64 && fits_one_wave(d, tiles_of(s, XP_SHIFT_TR(16, 1), XP_SHIFT_TC, extra), 4);
}

/* Whether whole tiles of tr x tc at nb blocks per SM exceed one wave: then clusters that store together pay. */
static int sync_pays(const xp_shape *s, const xp_fast_facts *d, unsigned tr, unsigned tc, unsigned nb)
{
    return whole_tiles(s, tr, tc) && !fits_one_wave(d, s->rows / tr * (s->cols / tc) * s->batch, nb);
}

/* Whether a 4- or 16-byte call of whole FastTile tiles, one matrix, of `tiles` tiles takes the split kernel: one wave
 * at XP_ONE_WAVE_BLOCKS per SM with at most split_low or at least split_high tiles per SM. */
static int split_pays(const xp_shape *s, const xp_fast_facts *d, const tuning *t, size_t tiles)
{
    const unsigned k = log2_es(s->es);
    const size_t sms = d->sms;
    return t->split_low[k] && s->batch == 1 && whole_tiles(s, XP_FAST_TR(s->es), XP_FAST_TC(s->es)) &&
           tiles <= XP_ONE_WAVE_BLOCKS * sms && (tiles <= t->split_low[k] * sms || tiles >= t->split_high[k] * sms);
}

/* What every path shares: the tile count, walks, grid and clusters. `direct`: the path has a 2-D grid kernel, taken
 * where the call is one matrix in one walk whose tile rows and columns a 2-D grid can name, with `direct_smem` bytes
 * where nonzero; `cluster`: blocks per cluster along x there (sm_90 and later), cut to the largest power of two that
 * divides the grid's x. */
static int finish(xp_fast_plan *p, const xp_call *c, const xp_fast_facts *d, unsigned tr, unsigned tc, unsigned extra,
                  size_t smem, int direct, unsigned cluster, size_t direct_smem)
{
    const xp_shape *s = &c->s;
    p->tile_r = tr, p->tile_c = tc, p->extra = extra;
    p->tiles = count_tiles(s, tr, tc, extra, &p->tiles_r, &p->tiles_c);
    p->walks_log2 = walk_count_log2(c, p->band, p->tiles_c);
    p->smem = smem;
    p->cluster = 1;
    if (p->tiles == 0)
        return XPOSE_OK;
    const size_t band = p->band ? p->band : 1;
    if (p->tiles > UINT32_MAX || p->tiles_r * band > UINT32_MAX) /* tile_at's 32-bit tile numbers */
        return XPOSE_ERR_UNSUPPORTED;
    if (direct && (s->batch > 1 || p->walks_log2 || p->band > 1 || p->tiles_r > 65535 || p->tiles_c > 65535))
        direct = 0;
    p->direct = (unsigned)direct;
    if (direct) {
        if (direct_smem)
            p->smem = direct_smem;
        p->grid_x = (unsigned)(p->band ? p->tiles_r : p->tiles_c);
        p->grid_y = (unsigned)(p->band ? p->tiles_c : p->tiles_r);
        while (cluster > 1 && p->grid_x % cluster)
            cluster /= 2;
        if (d->major >= 9)
            p->cluster = cluster;
    } else {
        p->grid_x = (unsigned)(p->tiles < INT32_MAX ? p->tiles : INT32_MAX);
        p->grid_y = 1;
    }
    return XPOSE_OK;
}

/* A one-row or one-column matrix whose transpose is contiguous on both sides (xp_shape_is_copy) is a copy, at the
 * copy engine's rate, where tiles would use one row or column of each ("fast: copy_if_vector"). Batches with gaps are
 * one 2-D copy; source members that overlap, or pitches past the copy's limit, take the kernel. */
static int plan_copy(const xp_call *c, xp_fast_plan *p)
{
    const xp_shape *s = &c->s;
    if (!(c->p1 & XP_FAST_AUTO_TILES) || !xp_shape_is_copy(s))
        return 0;
    const size_t w = s->rows * s->cols * s->es, sp = s->ss * s->es, dp = s->sd * s->es;
    p->rule = "fast: copy_if_vector";
    if (s->batch == 1 || (sp == w && dp == w)) { /* members back to back: one copy (as a 2-D copy: 44 %) */
        p->path = XP_FAST_PATH_COPY;
        p->copy_bytes = w * s->batch;
        return 1;
    }
    if (sp >= w && dp >= w && sp <= INT32_MAX && dp <= INT32_MAX) {
        p->path = XP_FAST_PATH_COPY_2D;
        p->copy_bytes = w;
        return 1;
    }
    return 0;
}

static int plan_path(xp_fast_plan *p, xp_fast_path path, const char *rule)
{
    p->path = path;
    p->rule = rule;
    return 1;
}

int xp_fast_plan_make(const xp_call *c, const xp_fast_facts *d, xp_fast_plan *p)
{
    const xp_shape *s = &c->s;
    const tuning *t = tuning_for(d);
    const unsigned es = (unsigned)s->es, k = log2_es(es), TR = XP_FAST_TR(es), TC = XP_FAST_TC(es);
    const int auto_tiles = (c->p1 & XP_FAST_AUTO_TILES) != 0;
    memset(p, 0, sizeof *p);
    p->es = es;
    p->blocks_per_sm = XP_FAST_BLOCKS;
    if (plan_copy(c, p))
        return XPOSE_OK;
    /* A side of at most XP_PERM_SKINNY_MAX elements (pairs of doubles, 5 floats) or one xp_perm_stage_side takes
     * (3 to 64 channels of bytes, up to 31 floats; in large calls up to 135 floats into destination rows): tiles
     * would read it a few elements a thread or fill part of their rows, at 10-80 % of a copy; the permutation kernels
     * keep the short side in registers or stage it ("fast: narrow matrices", "permute: staged wide sides"). But 48
     * or 64 rows of bytes in whole 16-byte pieces fill the byte tiles' rows, which then ran faster (48: 62 % of a
     * copy against 47). */
    const int byte_rows = es == 1 && s->rows < s->cols && s->rows % 16 == 0 && s->rows >= 48;
    const size_t bytes = s->rows * s->cols * s->batch * es;
    if ((c->p1 & XP_FAST_AUTO_TILES) && !byte_rows &&
        (xp_perm_stage_side(s->rows, s->cols, es, 1, bytes) || xp_perm_stage_side(s->cols, s->rows, es, 0, bytes) ||
         s->rows <= XP_PERM_SKINNY_MAX || s->cols <= XP_PERM_SKINNY_MAX)) {
        plan_path(p, XP_FAST_PATH_NARROW, "fast: narrow matrices");
        return XPOSE_OK;
    }
    p->vec = !src_rows_off(c, 16) && !dst_rows_off(c, 16);
    p->band = (unsigned)c->p0; /* the row's tile order: 1, down single tile columns ("fast: column walks") */
    size_t tiles = 0;          /* FastTile tiles of the whole call, counted where an automatic rule reads them */
    const char *order_rule = NULL;
    if (c->p1 & (XP_FAST_AUTO_ORDER | XP_FAST_AUTO_TILES)) {
        tiles = tiles_of(s, TR, TC, 0);
        if ((c->p1 & XP_FAST_AUTO_ORDER) && tiles <= t->few_tiles && es <= t->few_tiles_max_es) {
            p->band = 0;
            order_rule = "fast: row order for few tiles";
        }
    }
    /* 1-byte rows off a vector take shifted tiles, with windows that shift_halo picks (or skewed ones). */
    if (es == 1 && auto_tiles && !p->vec) {
        const char *rule;
        const int halo = shift_halo(c, d, t, &rule);
        if (halo >= 0) {
            const unsigned tall = halo == 16 && tall_pays(s, d);
            plan_path(p, XP_FAST_PATH_SHIFT, tall ? "fast: tall windows" : rule);
            p->halo = (unsigned)halo, p->tall = tall;
            return finish(p, c, d, XP_SHIFT_TR(halo, tall), XP_SHIFT_TC, halo ? halo - 1 : 0, XP_SHIFT_SMEM(halo, tall),
                          halo != 0, t->byte_cluster, 0);
        }
    }
    /* Other rows off a vector take skewed tiles; so do 2- to 16-byte rows on vectors whose destination rows are not
     * all on sectors, which vector tiles would cut into half sectors, unless the destination spans a small part of
     * the L2 (dst_within_l2_part). */
    if (!p->vec || (es > 1 && auto_tiles && dst_rows_off(c, 32) && !dst_within_l2_part(s, d, t))) {
        plan_path(p, XP_FAST_PATH_SKEW, p->vec ? "fast: half sectors" : "fast: skewed tiles");
        p->skew_stride = skew_stride(s);
        const unsigned sr = XP_SKEW_TR(es) + XP_SKEW_W(es) - 1;
        return finish(p, c, d, XP_SKEW_TR(es), XP_SKEW_TC(es), XP_SKEW_W(es) - 1, (size_t)sr * p->skew_stride, 0, 1, 0);
    }
    /* Small tiles with vector edges on the 2-D grid where it names the tiles: these calls take 5-9 us, much of it the
     * launch and the first loads. The lab row asks for small tiles everywhere: element-wise edges. */
    const unsigned str = XP_SMALL_TR(es), stc = XP_SMALL_TC(es);
    if (auto_tiles && tiles <= t->small_max[k]) {
        plan_path(p, XP_FAST_PATH_SMALL, "fast: small tiles");
        p->blocks_per_sm = XP_SMALL_BLOCKS(es);
        return finish(p, c, d, str, stc, 0, XP_TILE_SMEM(es, str, stc), 1, 1, 0);
    }
    if (c->p1 & XP_FAST_SMALL_TILES) {
        plan_path(p, XP_FAST_PATH_SMALL_LAB, "fast: small tiles");
        p->blocks_per_sm = XP_SMALL_LAB_BLOCKS(es);
        return finish(p, c, d, str, stc, 0, XP_TILE_SMEM(es, str, stc), 0, 1, 0);
    }
    if (es == 1 && auto_tiles && dst_rows_off(c, 32)) { /* destination rows 16 bytes off a sector */
        plan_path(p, XP_FAST_PATH_SECTOR, "fast: sector tiles");
        return finish(p, c, d, TR, TC, XP_SECTOR_SHIFT, XP_SECTOR_SMEM, 1, t->byte_cluster, 0);
    }
    const size_t smem = XP_TILE_SMEM(es, TR, TC);
    if ((es == 4 || es == 16) && auto_tiles && split_pays(s, d, t, tiles)) {
        plan_path(p, XP_FAST_PATH_SPLIT, "fast: split tiles");
        const int st = finish(p, c, d, TR, TC, 0, smem, 1, 1, smem / 2);
        p->blocks_per_sm = p->direct ? XP_ONE_WAVE_BLOCKS : XP_FAST_BLOCKS;
        return st;
    }
    if (es == 4 && auto_tiles && fits_one_wave(d, tiles, XP_ONE_WAVE_BLOCKS)) {
        plan_path(p, XP_FAST_PATH_ONE_WAVE, "fast: one wave at 8 blocks per SM");
        const int st = finish(p, c, d, TR, TC, 0, smem, 1, 1, 0);
        p->blocks_per_sm = p->direct ? XP_ONE_WAVE_BLOCKS : XP_FAST_BLOCKS;
        return st;
    }
    if (es >= 4 && auto_tiles && tiles >= t->wide_min_tiles && src_rows_off(c, 128)) {
        plan_path(p, XP_FAST_PATH_WIDE, "fast: wide tiles");
        return finish(p, c, d, XP_WIDE_TR(es), XP_WIDE_TC(es), 0, XP_TILE_SMEM(es, XP_WIDE_TR(es), XP_WIDE_TC(es)), 0,
                      1, 0);
    }
    if (es >= 8 && auto_tiles) { /* 8 KB tiles at 8 blocks per SM */
        const unsigned dtc = XP_DENSE_TC(es);
        const int sync = sync_pays(s, d, XP_DENSE_TR, dtc, XP_DENSE_BLOCKS);
        plan_path(p, sync ? XP_FAST_PATH_SYNCED : XP_FAST_PATH_DENSE,
                  sync ? "fast: wide sync clusters" : "fast: dense tiles");
        p->blocks_per_sm = XP_DENSE_BLOCKS;
        p->whole = (unsigned)sync;
        return finish(p, c, d, XP_DENSE_TR, dtc, 0, XP_TILE_SMEM(es, XP_DENSE_TR, dtc), 1,
                      sync ? t->sync_cluster_wide : 1, 0);
    }
    /* Whole tiles past one wave in clusters that store together; other 1-byte FastTile calls on the 2-D grid in pairs
     * of blocks. */
    if (es <= 4 && auto_tiles && sync_pays(s, d, TR, TC, XP_FAST_BLOCKS)) {
        plan_path(p, XP_FAST_PATH_SYNCED, "fast: sync clusters");
        p->whole = 1;
        return finish(p, c, d, TR, TC, 0, smem, 1, t->sync_cluster, 0);
    }
    if (es == 1 && auto_tiles) {
        plan_path(p, XP_FAST_PATH_BYTE_PAIRS, "fast: byte clusters");
        p->whole = (unsigned)whole_tiles(s, TR, TC);
        return finish(p, c, d, TR, TC, 0, smem, 1, t->byte_cluster, 0);
    }
    plan_path(p, XP_FAST_PATH_PLAIN,
              order_rule     ? order_rule
              : p->band == 1 ? "fast: column walks"
                             : "fast: tile shapes");
    return finish(p, c, d, TR, TC, 0, smem, 0, 1, 0);
}

int xp_fast_narrow_perm(const xp_call *c, xp_perm *p)
{
    const xp_shape *s = &c->s;
    const size_t ext[3] = {s->batch, s->rows, s->cols};
    const int perm[3] = {0, 2, 1};
    const int64_t ss[3] = {(int64_t)s->ss, (int64_t)s->lds, 1}, ds[3] = {(int64_t)s->sd, (int64_t)s->ldd, 1};
    return xp_perm_canon(s->es, 3, ext, perm, ss, ds, p);
}
