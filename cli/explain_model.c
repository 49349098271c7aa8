/* explain_model.c: the ladder kernels' access descriptions (their index math, mirrored) and the warp engine that
 * turns them into requests, sectors and shared-memory wavefronts, as `xpose explain` reports them. */
#include <stdlib.h>
#include <string.h>
#include "explain.h"

#define WARP 32
#define SECTOR 32
#define BANKS 32

static size_t ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }
static unsigned cap(size_t n, unsigned max) { return n < max ? (unsigned)n : max; }
static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

int ex_kernel_init(ex_kernel *k, ex_family fam, ex_layout layout, int p0, int p1, const ex_shape *s)
{
    memset(k, 0, sizeof *k);
    k->fam = fam;
    k->layout = layout;
    if (fam == EX_TILE) {
        /* The instantiations of ladder_shared.cu and ladder_unrolled.cu: TILE a power of two, SIDE dividing it. */
        if (p0 < 1 || p1 < 1 || p0 > 64 || (p0 & (p0 - 1)) || p0 % p1 || p0 * p1 > 1024)
            return -1;
        k->tile = p0;
        k->side = p1;
        k->bdx = (unsigned)p0;
        k->bdy = (unsigned)p1;
        k->tiles_x = ceil_div(s->cols, (size_t)p0);
        k->tiles_y = ceil_div(s->rows, (size_t)p0);
        k->smem = s->es * (size_t)(layout == EX_PAD ? p0 * (p0 + 1) : p0 * p0);
    } else {
        if (p0 < 1 || p1 < 1 || p0 * p1 > 1024) /* naive_step's check */
            return -1;
        k->bdx = (unsigned)p0;
        k->bdy = (unsigned)p1;
        /* launch_naive: x runs along a source row (naive) or a destination row (naive-write). */
        size_t along = fam == EX_NAIVE_WRITE ? s->rows : s->cols, across = fam == EX_NAIVE_WRITE ? s->cols : s->rows;
        k->tiles_x = ceil_div(along, (size_t)p0);
        k->tiles_y = ceil_div(across, (size_t)p1);
    }
    /* xp_launch's grid; blocks stride over the rest (xp_each_tile), so the tiles are what gets counted. */
    k->gx = cap(k->tiles_x, 0x7fffffffu);
    k->gy = cap(k->tiles_y, 65535u);
    k->gz = cap(s->batch, 65535u);
    return 0;
}

/* xp_tile_at: where tile element (r, c) lives, in elements. */
static int tile_at(const ex_kernel *k, int r, int c)
{
    const int t = k->tile;
    if (k->layout == EX_PAD)
        return r * (t + 1) + c;
    if (k->layout == EX_SWIZZLE)
        return r * t + ((r + c) & (t - 1));
    return c * t + r;
}

static ex_access acc(ex_kind kind, int active, size_t es, uint64_t elem)
{
    ex_access a = {kind, active, (unsigned)es, elem * es};
    return a;
}

int ex_describe(const ex_kernel *k, const ex_shape *s, size_t bx, size_t by, size_t z, int tx, int ty, ex_access *out)
{
    const size_t es = s->es;
    if (k->fam != EX_TILE) {
        /* naive_kernel: one element, m.dst[z*sd + j*ldd + i] = m.src[z*ss + i*lds + j] under i < rows, j < cols. */
        const size_t x = bx * k->bdx + (size_t)tx, y = by * k->bdy + (size_t)ty;
        const int walk_dst = k->fam == EX_NAIVE_WRITE;
        const size_t i = walk_dst ? x : y, j = walk_dst ? y : x;
        const int on = i < s->rows && j < s->cols;
        out[0] = acc(EX_GLD, on, es, z * s->ss + i * s->lds + j);
        out[1] = acc(EX_GST, on, es, z * s->sd + j * s->ldd + i);
        return 2;
    }
    /* xp_tile_kernel: rows ty, ty + SIDE, ... loaded into the tile, then its columns stored as destination rows. */
    const int t = k->tile;
    const size_t i0 = by * (size_t)t, j0 = bx * (size_t)t;
    const int nr = (int)min_sz(s->rows - i0, (size_t)t), nc = (int)min_sz(s->cols - j0, (size_t)t);
    const uint64_t a = z * s->ss + i0 * s->lds + j0, b = z * s->sd + j0 * s->ldd + i0;
    int n = 0;
    for (int off = 0; off < t; off += k->side) {
        const int r = ty + off, on = r < nr && tx < nc;
        out[n++] = acc(EX_GLD, on, es, a + (uint64_t)r * s->lds + (uint64_t)tx);
        out[n++] = acc(EX_SST, on, es, (uint64_t)tile_at(k, r, tx));
    }
    for (int off = 0; off < t; off += k->side) {
        const int c = ty + off, on = c < nc && tx < nr;
        out[n++] = acc(EX_SLD, on, es, (uint64_t)tile_at(k, tx, c));
        out[n++] = acc(EX_GST, on, es, b + (uint64_t)c * s->ldd + (uint64_t)tx);
    }
    return n;
}

/* Distinct 32-byte sectors the active lanes of one warp instruction touch. */
static unsigned sectors(const ex_access *const *lane, int n)
{
    uint64_t seen[WARP * 2];
    unsigned ns = 0;
    for (int l = 0; l < n; l++)
        for (uint64_t sec = lane[l]->addr / SECTOR; sec <= (lane[l]->addr + lane[l]->size - 1) / SECTOR; sec++) {
            unsigned q = 0;
            while (q < ns && seen[q] != sec)
                q++;
            if (q == ns)
                seen[ns++] = sec;
        }
    return ns;
}

/* Shared memory, the rule implemented: a warp's access goes in phases of 32 lanes (elements up to 4 bytes), 16
 * (8 bytes) or 8 (16 bytes); a phase takes as many wavefronts as the most distinct 4-byte words any one of the 32
 * banks holds among its lanes' words (lanes on the same word share it: broadcast). ways: the worst phase's count. */
static unsigned wavefronts(const ex_access *const *lane, const int *id, int n, unsigned size, unsigned *ways)
{
    const int per = size <= 4 ? 32 : size == 8 ? 16 : 8;
    unsigned total = 0;
    *ways = 0;
    for (int p = 0; p < WARP / per; p++) {
        uint64_t words[BANKS][WARP * 4];
        unsigned cnt[BANKS] = {0}, worst = 0;
        for (int l = 0; l < n; l++) {
            if (id[l] / per != p)
                continue;
            for (uint64_t w = lane[l]->addr / 4; w <= (lane[l]->addr + lane[l]->size - 1) / 4; w++) {
                unsigned bank = (unsigned)(w % BANKS), q = 0;
                while (q < cnt[bank] && words[bank][q] != w)
                    q++;
                if (q == cnt[bank])
                    words[bank][cnt[bank]++] = w;
                if (cnt[bank] > worst)
                    worst = cnt[bank];
            }
        }
        total += worst;
        if (worst > *ways)
            *ways = worst;
    }
    return total;
}

/* One block's (one tile's) accesses, warp by warp, slot by slot, added to st. */
static void run_block(const ex_kernel *k, const ex_shape *s, size_t bx, size_t by, size_t z, ex_stats *st)
{
    const int nthreads = (int)(k->bdx * k->bdy);
    ex_access a[WARP][EX_MAX_SLOTS];
    for (int w = 0; w * WARP < nthreads; w++) {
        int lanes = nthreads - w * WARP < WARP ? nthreads - w * WARP : WARP, slots = 0;
        for (int l = 0; l < lanes; l++) {
            const int tid = w * WARP + l; /* linear thread id: tx + ty * blockDim.x */
            slots = ex_describe(k, s, bx, by, z, tid % (int)k->bdx, tid / (int)k->bdx, a[l]);
        }
        for (int q = 0; q < slots; q++) {
            const ex_access *on[WARP];
            int id[WARP], n = 0;
            uint64_t bytes = 0;
            for (int l = 0; l < lanes; l++)
                if (a[l][q].active) {
                    on[n] = &a[l][q];
                    id[n++] = l;
                    bytes += a[l][q].size;
                }
            if (n == 0) /* the whole warp branches around it: no request */
                continue;
            unsigned ways;
            switch (a[0][q].kind) {
            case EX_GLD: st->gld_req++, st->gld_sect += sectors(on, n), st->gld_bytes += bytes; break;
            case EX_GST: st->gst_req++, st->gst_sect += sectors(on, n), st->gst_bytes += bytes; break;
            case EX_SLD:
                st->sld_req++, st->sld_wave += wavefronts(on, id, n, on[0]->size, &ways);
                st->sld_ways = ways > st->sld_ways ? ways : st->sld_ways;
                break;
            case EX_SST:
                st->sst_req++, st->sst_wave += wavefronts(on, id, n, on[0]->size, &ways);
                st->sst_ways = ways > st->sst_ways ? ways : st->sst_ways;
                break;
            }
        }
    }
}

/* A block's class: its source and destination rows' extents (the guards) and where its first source and
 * destination elements fall within a sector. Every address of a block is its first one plus an offset that depends
 * on (tx, ty, lds, ldd, es) alone, so two blocks of one class touch sector patterns that differ by a whole number
 * of sectors (global) and the same shared offsets: their counts are equal. */
typedef struct ex_class {
    uint64_t key;
    int used;
    ex_stats st;
} ex_class;

static uint64_t class_key(const ex_kernel *k, const ex_shape *s, size_t bx, size_t by, size_t z)
{
    size_t i0, j0, ni, nj; /* first source row and column, and how many of each the block covers */
    if (k->fam == EX_TILE)
        i0 = by * (size_t)k->tile, j0 = bx * (size_t)k->tile, ni = nj = (size_t)k->tile;
    else if (k->fam == EX_NAIVE)
        i0 = by * k->bdy, j0 = bx * k->bdx, ni = k->bdy, nj = k->bdx;
    else
        i0 = bx * k->bdx, j0 = by * k->bdy, ni = k->bdx, nj = k->bdy;
    ni = min_sz(ni, s->rows - i0);
    nj = min_sz(nj, s->cols - j0);
    const uint64_t sa = ((z * s->ss + i0 * s->lds + j0) * s->es) % SECTOR,
                   da = ((z * s->sd + j0 * s->ldd + i0) * s->es) % SECTOR;
    return ((uint64_t)ni << 40) | ((uint64_t)nj << 16) | (sa << 8) | da;
}

static void add(ex_stats *t, const ex_stats *b)
{
    t->gld_req += b->gld_req, t->gld_sect += b->gld_sect, t->gld_bytes += b->gld_bytes;
    t->gst_req += b->gst_req, t->gst_sect += b->gst_sect, t->gst_bytes += b->gst_bytes;
    t->sld_req += b->sld_req, t->sld_wave += b->sld_wave, t->sst_req += b->sst_req, t->sst_wave += b->sst_wave;
    t->sld_ways = b->sld_ways > t->sld_ways ? b->sld_ways : t->sld_ways;
    t->sst_ways = b->sst_ways > t->sst_ways ? b->sst_ways : t->sst_ways;
    t->tiles += b->tiles;
}

#define EX_CLASSES 16384 /* at most 4 edge cases x 32 x 32 alignments */

int ex_run(const ex_kernel *k, const ex_shape *s, int exhaustive, ex_stats *out)
{
    memset(out, 0, sizeof *out);
    ex_class *cls = exhaustive ? NULL : calloc(EX_CLASSES, sizeof *cls);
    if (!exhaustive && !cls)
        return -1;
    for (size_t z = 0; z < s->batch; z++)
        for (size_t by = 0; by < k->tiles_y; by++)
            for (size_t bx = 0; bx < k->tiles_x; bx++) {
                ex_stats one;
                if (exhaustive) {
                    memset(&one, 0, sizeof one);
                    one.tiles = 1;
                    run_block(k, s, bx, by, z, &one);
                    add(out, &one);
                    continue;
                }
                const uint64_t key = class_key(k, s, bx, by, z);
                size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 50) & (EX_CLASSES - 1);
                while (cls[h].used && cls[h].key != key)
                    h = (h + 1) & (EX_CLASSES - 1);
                if (!cls[h].used) {
                    cls[h].used = 1;
                    cls[h].key = key;
                    cls[h].st.tiles = 1;
                    run_block(k, s, bx, by, z, &cls[h].st);
                }
                add(out, &cls[h].st);
            }
    free(cls);
    return 0;
}

/* Rows of one member lie in increasing address order, and members too where their strides keep them apart, so a
 * row's sectors are new except perhaps its first, shared with the row before. Overlapping source members (a stride
 * under rows x lds) make this an upper bound. */
static uint64_t footprint(size_t batch, size_t nrows, size_t len, size_t ld, size_t stride, size_t es)
{
    uint64_t total = 0, last = UINT64_MAX;
    for (size_t z = 0; z < batch; z++)
        for (size_t i = 0; i < nrows; i++) {
            const uint64_t first = (uint64_t)((z * stride + i * ld) * es) / SECTOR,
                           end = (uint64_t)((z * stride + i * ld + len) * es - 1) / SECTOR;
            total += end - first + 1 - (first == last);
            last = end;
        }
    return total * SECTOR;
}

uint64_t ex_dram_bytes(const ex_shape *s)
{
    return footprint(s->batch, s->rows, s->cols, s->lds, s->ss, s->es) +
           footprint(s->batch, s->cols, s->rows, s->ldd, s->sd, s->es);
}
