/* fast_order.cuh: where each tile of the production transpose lies: the kernels' arguments, tile numbers in
 * column walks and bands (tile_at), the 2-D grid's tiles (block_tile), and the host side that counts the tiles. */
#ifndef XP_FAST_ORDER_CUH
#define XP_FAST_ORDER_CUH

#include "xp_cuda.h"

/* n / d for any 32-bit n as a multiply and a shift, d fixed per launch (m, s from the host: xp_div). A 32-bit
 * division costs about 25 instructions and tile_at needs three per tile, in every thread (docs/tuning.md, "fast: tile
 * numbers by multiply-shift"). */
struct XpDiv {
    unsigned d, m, s;
};

static XpDiv xp_div(unsigned d)
{
    unsigned s = 0;
    while (s < 32 && (1ull << s) < d)
        s++;
    /* m = floor(2^32 (2^s - d) / d) + 1 < 2^32; then n / d = (umulhi(n, m) + n) >> s for every n < 2^32. */
    XpDiv v = {d, (unsigned)((((1ull << s) - d) << 32) / d + 1), s};
    return v;
}

static __device__ __forceinline__ unsigned div_by(unsigned n, XpDiv v)
{
    return (unsigned)(((unsigned long long)__umulhi(n, v.m) + n) >> v.s);
}

/* What a kernel on the 2-D grid (one tile a block) reads: 72 bytes of parameters where FastArgs has 160. */
struct TileArgs {
    const char *src;
    char *dst;
    size_t rows, cols, lds, ldd, ss, sd; /* elements */
    unsigned band;                       /* tile order: bands of this many tile columns (0: row by row) */
    int vec;                             /* every row start is 16-byte aligned */
};

/* What a kernel that numbers its tiles (tile_at) reads besides. */
struct FastArgs : TileArgs {
    size_t tiles_r, tiles_c, tiles; /* tiles per matrix: tiles_r x tiles_c; all batch members: tiles */
    unsigned walks_log2;            /* 2^walks_log2 column walks taken in turn (walk_count_log2) */
    /* Divisors of tile_at: tiles per matrix, per band, band width, last band's width, tiles per row. */
    XpDiv per_mat, per_band, band_w, last_w, row_w;
};

struct TilePos {
    const char *src, *src_mat; /* the tile's first element; its batch member's first element */
    char *dst, *dst_mat;
    size_t r0, c0;
    unsigned nr, nc;
};

/* Where tile (tr, tc) of batch member b lies. */
template <class G> __device__ __forceinline__ TilePos tile_pos(const TileArgs &a, unsigned b, unsigned tr, unsigned tc)
{
    enum { ES = G::ES };
    TilePos p;
    p.r0 = tr * G::TR;
    p.c0 = tc * G::TC;
    p.src_mat = a.src + b * a.ss * ES;
    p.dst_mat = a.dst + b * a.sd * ES;
    p.src = p.src_mat + (p.r0 * a.lds + p.c0) * ES;
    p.dst = p.dst_mat + (p.c0 * a.ldd + p.r0) * ES;
    /* With skewed tiles the last tile row may start at or past the last row: it only owns window ends. */
    p.nr = a.rows > p.r0 ? (unsigned)min((size_t)G::TR, a.rows - p.r0) : 0;
    p.nc = (unsigned)min((size_t)G::TC, a.cols - p.c0);
    return p;
}

/* Where tile number `tile` lies. Tiles are walked top to bottom in bands of `band` tile columns. With bands one tile
 * wide (the production order) the blocks running at once write consecutive segments of the same few destination
 * rows, so the writes stream through DRAM pages as a copy's would ("fast: column walks"). With 2^walks_log2 > 1 walks,
 * consecutive tiles go to the walks in turn, each down its own equal share of the tile columns ("fast: interleaved
 * walks"). */
template <class G> __device__ __forceinline__ TilePos tile_at(const FastArgs &a, size_t tile)
{
    unsigned t = (unsigned)tile, b = div_by(t, a.per_mat), k = t - b * a.per_mat.d, tr, tc;
    const unsigned walk = k & ((1u << a.walks_log2) - 1);
    k >>= a.walks_log2; /* the tile's number within its walk */
    if (a.band) {
        unsigned band = div_by(k, a.per_band), in = k - band * a.per_band.d, c0 = band * a.band;
        XpDiv w = c0 + a.band <= a.tiles_c ? a.band_w : a.last_w;
        tr = div_by(in, w);
        tc = c0 + in - tr * w.d;
    } else {
        tr = div_by(k, a.row_w);
        tc = k - tr * a.row_w.d;
    }
    tc += walk * (unsigned)(a.tiles_c >> a.walks_log2); /* the walk's share of the tile columns */
    return tile_pos<G>(a, b, tr, tc);
}

/* The tile of a kernel on the 2-D grid (one matrix, one walk): x runs down a tile column (bands) or along a tile
 * row, the same order as tile_at's with none of its divisions. */
template <class G> __device__ __forceinline__ TilePos block_tile(const TileArgs &a)
{
    const unsigned tr = a.band ? blockIdx.x : blockIdx.y, tc = a.band ? blockIdx.y : blockIdx.x;
    return tile_pos<G>(a, 0, tr, tc);
}

/* Tiles of geometry G over the call. Windows that reach `extra` rows past a tile's height (skewed tiles: W - 1,
 * sector-aligned ones: 16) may need one more tile row. */
template <class G> static void count_tiles(FastArgs &a, const xp_shape *s, unsigned extra)
{
    a.tiles_r = (s->rows + extra + G::TR - 1) / G::TR;
    a.tiles_c = (s->cols + G::TC - 1) / G::TC;
    a.tiles = a.tiles_r * a.tiles_c * s->batch;
}

/* The divisors of tile_at; false where tile numbers would not fit 32 bits (2^32 tiles of at least 4 KiB:
 * 16 TiB, more than any device holds). */
static bool set_divisors(FastArgs &a)
{
    const size_t band = a.band ? a.band : 1, per_band = a.tiles_r * band;
    if (a.tiles > UINT32_MAX || per_band > UINT32_MAX)
        return false;
    const size_t last = a.tiles_c % band ? a.tiles_c % band : band;
    a.per_mat = xp_div((unsigned)(a.tiles_r * a.tiles_c));
    a.per_band = xp_div((unsigned)per_band);
    a.band_w = xp_div((unsigned)band);
    a.last_w = xp_div((unsigned)last);
    a.row_w = xp_div((unsigned)a.tiles_c);
    return true;
}

#endif
