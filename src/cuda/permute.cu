/* permute.cu: the CUDA backend of the N-d permutation: the plan (which kernel and tile a canonical permutation takes,
 * docs/variants.md, "Permutations") and its launches. Kernels: permute_kernels.cuh. */
#include "../core/xp_permute.h"
#include "permute_kernels.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Extents past this are cut into pieces of it (one launch each), and so are launches of more blocks than a grid's x
 * can name: every index a kernel divides then fits 32 bits. */
#define PERM_MAX_EXT ((size_t)1 << 30)
#define PERM_MAX_BLOCKS ((size_t)INT32_MAX)

enum PermKind { PERM_NOTHING, PERM_MEMCPY, PERM_RUNS, PERM_SKINNY, PERM_STAGE, PERM_VEC, PERM_SCALAR };

/* The vector tiles, rows (edge B) x columns (edge A), by element size: "wide" ones read 256-byte source segments
 * (fast's FastTile for 1 to 4 bytes, DenseTile for 8 and 16 bytes); "narrow" ones 128-byte segments (4 to 16 bytes:
 * twice as many rows), where edge A leaves less of its last tile empty: an edge A of 28 floats (docs/tuning.md,
 * "permute: tile shapes"). */
template <int ES, bool NARROW> struct PermVecTile;
template <bool N> struct PermVecTile<1, N> {
    typedef Geo<1, 128, N ? 128 : 256> G;
    enum { BLOCKS = 4 };
};
template <bool N> struct PermVecTile<2, N> {
    typedef Geo<2, 128, N ? 64 : 128> G;
    enum { BLOCKS = 4 };
};
template <bool N> struct PermVecTile<4, N> {
    typedef Geo<4, N ? 128 : 64, N ? 32 : 64> G;
    enum { BLOCKS = 4 };
};
template <bool N> struct PermVecTile<8, N> {
    typedef Geo<8, N ? 64 : 32, N ? 16 : 32> G;
    enum { BLOCKS = 8 };
};
template <bool N> struct PermVecTile<16, N> {
    typedef Geo<16, N ? 64 : 32, N ? 8 : 16> G;
    enum { BLOCKS = 8 };
};

/* Rows and columns of a vector tile, from the host's element size. */
static void vec_tile_shape(size_t es, bool narrow, unsigned *tr, unsigned *tc)
{
    switch (es) {
    case 1: *tr = 128, *tc = narrow ? 128 : 256; break;
    case 2: *tr = 128, *tc = narrow ? 64 : 128; break;
    case 4: *tr = narrow ? 128 : 64, *tc = narrow ? 32 : 64; break;
    case 8: *tr = narrow ? 64 : 32, *tc = narrow ? 16 : 32; break;
    default: *tr = narrow ? 64 : 32, *tc = narrow ? 8 : 16; break;
    }
}

/* Elements of an element-wise tile: 4096, at most 16 KB. Either edge at most 512. */
#define PERM_SCALAR_BYTES 16384
#define PERM_SCALAR_MAX_ELEMS 4096
#define PERM_SCALAR_MAX_EDGE 512

struct PermPlan {
    PermKind kind;
    xp_perm p;       /* the permutation the kernel moves: the caller's, or runs of it folded into wider elements */
    size_t fold;     /* the caller's elements in one of p's (1: none folded) */
    int a, b;        /* tiles: the dimensions of p that start edges A (source-fastest) and B (destination-fastest) */
    bool narrow;     /* vector tiles: the narrow shape */
    unsigned tr, tc; /* tile rows (edge B) and columns (edge A) */
    unsigned unit;   /* runs: bytes a thread moves at once */
    bool contig_src; /* skinny, staged: the source side is the contiguous one (the small extent its fastest) */
    size_t blocks;   /* blocks the launch takes (may exceed PERM_MAX_BLOCKS: then the call is cut) */
    PermArgs t;
    RunArgs r;
    SkinnyArgs k;
    StageArgs g;
};

/* Whether the address and every stride of p in bytes, on the source (src) or the destination side, are multiples of
 * `unit` bytes, but those of the dimensions that `skip` marks (NULL: none) or of dimension `skip_one`. */
static bool strides_on(const xp_perm *p, const int *skip, int skip_one, bool src, uintptr_t addr, size_t unit)
{
    if (addr % unit)
        return false;
    for (int d = 0; d < p->rank; d++)
        if (d != skip_one && !(skip && skip[d]) && (size_t)llabs((src ? p->ss[d] : p->ds[d]) * (long long)p->es) % unit)
            return false;
    return true;
}

/* Where the fastest dimension is unit-stride on both sides and its run is 2, 4, 8 or 16 bytes (a pair of floats, a
 * complex number), that run becomes one element of the run's size and the rest moves as a permutation of one
 * dimension fewer, in tiles. Every other stride and both addresses must be multiples of the run. */
static bool fold_runs(xp_perm *p, uintptr_t src, uintptr_t dst)
{
    const int l = p->rank - 1;
    if (p->rank < 2 || p->ss[l] != 1 || p->ds[l] != 1)
        return false;
    const size_t run = p->ext[l] * p->es;
    if (run > 16 || (run & (run - 1)) || !strides_on(p, NULL, l, true, src, run) ||
        !strides_on(p, NULL, l, false, dst, run))
        return false;
    for (int d = 0; d < l; d++)
        p->ss[d] /= (int64_t)p->ext[l], p->ds[d] /= (int64_t)p->ext[l];
    p->count /= p->ext[l];
    p->es = run;
    p->rank = l;
    return true;
}

/* The two tile edges: each one's dimensions of p (its first, then those continuing it) and volume, and which edge each
 * dimension is on. */
struct PermEdges {
    int in[XPOSE_MAX_RANK]; /* 0: outer, 1: edge A, 2: edge B */
    int a[XPOSE_MAX_RANK], b[XPOSE_MAX_RANK];
    int na, nb;
    size_t va, vb;
};

/* Adds to an edge the dimension that continues its last one (in the source for edge A, the destination for edge B:
 * stride = last stride x last extent), while the edge's volume stays within PERM_MAX_EXT. Returns whether one was. */
static bool grow_edge(const xp_perm *p, PermEdges *e, bool edge_a)
{
    int *list = edge_a ? e->a : e->b, *n = edge_a ? &e->na : &e->nb;
    size_t *v = edge_a ? &e->va : &e->vb;
    const int last = list[*n - 1];
    const int64_t next = (edge_a ? p->ss[last] : p->ds[last]) * (int64_t)p->ext[last];
    for (int d = 0; d < p->rank; d++)
        if (!e->in[d] && (edge_a ? p->ss[d] : p->ds[d]) == next && *v * p->ext[d] <= PERM_MAX_EXT) {
            list[(*n)++] = d;
            e->in[d] = edge_a ? 1 : 2;
            *v *= p->ext[d];
            return true;
        }
    return false;
}

/* Grows an edge until its volume reaches `want` and divides by `tile` (so that no tile is cut), as far as dimensions
 * continue it. */
static void grow_to(const xp_perm *p, PermEdges *e, bool edge_a, size_t want, size_t tile)
{
    for (;;) {
        const size_t v = edge_a ? e->va : e->vb;
        if ((v >= want && v % tile == 0) || !grow_edge(p, e, edge_a))
            return;
    }
}

static unsigned log2_of(size_t x)
{
    unsigned l = 0;
    while (((size_t)1 << l) < x)
        l++;
    return l;
}

static void set_dim(PermDim *d, const xp_perm *p, int k)
{
    d->ext = xp_div((unsigned)p->ext[k]);
    d->ss = (long long)p->ss[k] * (long long)p->es;
    d->ds = (long long)p->ds[k] * (long long)p->es;
}

/* Tiles over edges A (from dimension a) and B (from the destination's fastest): 16-byte vector tiles where edge A is
 * unit-stride in the source and edge B in the destination, and where every stride off edge A in the source, every
 * stride off edge B in the destination and both addresses sit on 16 bytes; element-wise tiles otherwise. */
static void plan_tiles(PermPlan *pl, int a, uintptr_t src, uintptr_t dst)
{
    const xp_perm *p = &pl->p;
    const int b = p->rank - 1;
    PermEdges e = {};
    e.a[0] = a, e.na = 1, e.va = p->ext[a], e.in[a] = 1;
    e.b[0] = b, e.nb = 1, e.vb = p->ext[b], e.in[b] = 2;
    pl->a = a, pl->b = b;
    bool vec = p->ss[a] == 1 && p->ds[b] == 1;
    unsigned tr = 64, tc = 64, ntr = 64, ntc = 64; /* element-wise: grow the edges to 64 */
    if (vec) {
        vec_tile_shape(p->es, false, &tr, &tc);
        vec_tile_shape(p->es, true, &ntr, &ntc);
    }
    /* Edge A first: it holds the loads' source segments. A longer edge wastes less of its last tile. */
    grow_to(p, &e, true, tc, ntc);
    if (vec) {
        const size_t wide_cols = (e.va + tc - 1) / tc * tc, narrow_cols = (e.va + ntc - 1) / ntc * ntc;
        pl->narrow = narrow_cols < wide_cols;
        if (pl->narrow)
            tr = ntr, tc = ntc;
    }
    grow_to(p, &e, false, tr, tr);
    int off_a[XPOSE_MAX_RANK], off_b[XPOSE_MAX_RANK];
    for (int d = 0; d < p->rank; d++)
        off_a[d] = e.in[d] == 1, off_b[d] = e.in[d] == 2;
    vec = vec && strides_on(p, off_a, -1, true, src, 16) && strides_on(p, off_b, -1, false, dst, 16);
    if (!vec) { /* element-wise: edges of powers of two, as long as the edges are, within the tile's elements */
        const size_t elems =
            PERM_SCALAR_BYTES / p->es < PERM_SCALAR_MAX_ELEMS ? PERM_SCALAR_BYTES / p->es : PERM_SCALAR_MAX_ELEMS;
        unsigned lc = log2_of(e.va < PERM_SCALAR_MAX_EDGE ? e.va : PERM_SCALAR_MAX_EDGE);
        unsigned lr = log2_of(e.vb < PERM_SCALAR_MAX_EDGE ? e.vb : PERM_SCALAR_MAX_EDGE);
        while (((size_t)1 << (lc + lr)) > elems)
            lc >= lr ? lc-- : lr--;
        tr = 1u << lr, tc = 1u << lc;
        pl->t.lr = lr, pl->t.lc = lc;
        pl->narrow = false;
    }
    pl->kind = vec ? PERM_VEC : PERM_SCALAR;
    pl->tr = tr, pl->tc = tc;
    PermArgs *t = &pl->t;
    t->na = (unsigned)e.na, t->nb = (unsigned)e.nb, t->nd = (unsigned)p->rank;
    t->va = (unsigned)e.va, t->vb = (unsigned)e.vb;
    const size_t tiles_a = (e.va + tc - 1) / tc, tiles_b = (e.vb + tr - 1) / tr;
    int k = 0;
    for (int i = 0; i < e.na; i++)
        set_dim(&t->d[k++], p, e.a[i]);
    for (int i = 0; i < e.nb; i++)
        set_dim(&t->d[k++], p, e.b[i]);
    size_t outer = 1;
    for (int d = p->rank - 1; d >= 0; d--) /* outer dimensions, the destination's fastest first */
        if (!e.in[d]) {
            set_dim(&t->d[k++], p, d);
            outer *= p->ext[d];
        }
    pl->blocks = tiles_a * tiles_b * outer;
    if (pl->blocks <= PERM_MAX_BLOCKS) {
        t->tiles_a = xp_div((unsigned)tiles_a);
        t->tiles_b = xp_div((unsigned)tiles_b);
    }
}

/* Runs along the destination's fastest dimension, which is also the source's (or whose source stride is 0): 16-byte
 * units where both sides are unit-stride and the run, the strides and the addresses allow, else single elements. */
static void plan_runs(PermPlan *pl, uintptr_t src, uintptr_t dst)
{
    const xp_perm *p = &pl->p;
    const int l = p->rank - 1;
    RunArgs *r = &pl->r;
    size_t unit = p->es, per_row = p->ext[l];
    r->su = (long long)p->ss[l] * (long long)p->es;
    r->du = (long long)p->ds[l] * (long long)p->es;
    if (p->ss[l] == 1 && p->ds[l] == 1) {
        const size_t run = p->ext[l] * p->es;
        for (unit = 16; unit > p->es; unit /= 2)
            if (run % unit == 0 && strides_on(p, NULL, l, true, src, unit) && strides_on(p, NULL, l, false, dst, unit))
                break;
        per_row = run / unit;
        r->su = r->du = (long long)unit;
    }
    pl->kind = PERM_RUNS;
    pl->unit = (unsigned)unit;
    pl->a = pl->b = l;
    r->nd = (unsigned)l;
    size_t rows = 1;
    for (int d = l - 1, k = 0; d >= 0; d--, k++) {
        set_dim(&r->d[k], p, d);
        rows *= p->ext[d];
    }
    const size_t total = rows * per_row, per_block = PERM_THREADS * PERM_RUN_UNITS;
    pl->blocks = total <= PERM_MAX_BLOCKS ? (total + per_block - 1) / per_block : PERM_MAX_BLOCKS + 1;
    if (pl->blocks <= PERM_MAX_BLOCKS) {
        r->upr = xp_div((unsigned)per_row);
        r->total = (unsigned)total;
    }
}

/* The long and small sides' byte strides and the outer dimensions (every one but a and b) of a skinny or staged plan
 * (SkinnyArgs, StageArgs); returns the product of the outer extents. */
template <class Args> static size_t set_sides(Args *g, const xp_perm *p, int a, int b, int small, int long_dim)
{
    g->sl = p->ss[long_dim] * (long long)p->es, g->dl = p->ds[long_dim] * (long long)p->es;
    g->sk = p->ss[small] * (long long)p->es, g->dk = p->ds[small] * (long long)p->es;
    size_t outer = 1;
    g->nd = 0;
    for (int d = p->rank - 1; d >= 0; d--)
        if (d != a && d != b) {
            set_dim(&g->d[g->nd++], p, d);
            outer *= p->ext[d];
        }
    return outer;
}

/* The skinny kernel, where one side's fastest extent k is at most XP_PERM_SKINNY_MAX and the other side's fastest
 * dimension continues it there (so that each thread's E x k elements are one 16-byte-aligned segment on that side and
 * k vectors on the other), unit strides, and every other stride and both addresses on 16 bytes. Returns whether it
 * applies. */
static bool plan_skinny(PermPlan *pl, int a, uintptr_t src, uintptr_t dst)
{
    const xp_perm *p = &pl->p;
    const int b = p->rank - 1;
    if (p->ss[a] != 1 || p->ds[b] != 1)
        return false;
    int not_a[XPOSE_MAX_RANK] = {0}, not_ab[XPOSE_MAX_RANK] = {0}, not_b[XPOSE_MAX_RANK] = {0};
    not_a[a] = not_ab[a] = not_ab[b] = not_b[b] = 1;
    /* small along the source: rows of k back to back in the source, the long dimension b */
    const bool contig_src = p->ext[a] <= XP_PERM_SKINNY_MAX && p->ss[b] == (int64_t)p->ext[a] &&
                            strides_on(p, not_ab, -1, true, src, 16) && strides_on(p, not_b, -1, false, dst, 16);
    /* small along the destination: rows of k back to back in the destination, the long dimension a */
    const bool contig_dst = !contig_src && p->ext[b] <= XP_PERM_SKINNY_MAX && p->ds[a] == (int64_t)p->ext[b] &&
                            strides_on(p, not_a, -1, true, src, 16) && strides_on(p, not_ab, -1, false, dst, 16);
    if (!contig_src && !contig_dst)
        return false;
    const int small = contig_src ? a : b, long_dim = contig_src ? b : a;
    const size_t n = p->ext[long_dim], e = 16 / p->es, chunks = (n + e - 1) / e;
    SkinnyArgs *s = &pl->k;
    pl->kind = PERM_SKINNY;
    pl->contig_src = contig_src;
    pl->a = a, pl->b = b;
    s->n = (unsigned)n;
    const size_t threads = chunks * set_sides(s, p, a, b, small, long_dim);
    pl->blocks = threads <= PERM_MAX_BLOCKS ? (threads + PERM_THREADS - 1) / PERM_THREADS : PERM_MAX_BLOCKS + 1;
    if (pl->blocks <= PERM_MAX_BLOCKS) {
        s->chunks = xp_div((unsigned)chunks);
        s->total = (unsigned)threads;
    }
    return true;
}

/* The staged skinny kernel, where the skinny kernel does not apply: one side's fastest extent k that
 * xp_perm_stage_side takes, continued there by the other side's fastest dimension b (or a), unit strides, the
 * contiguous side's address and other strides on 16 bytes; the strided side's rows may lie anywhere. Returns whether
 * it applies. */
static bool plan_stage(PermPlan *pl, int a, uintptr_t src, uintptr_t dst)
{
    const xp_perm *p = &pl->p;
    const int b = p->rank - 1;
    if (p->ss[a] != 1 || p->ds[b] != 1)
        return false;
    int not_ab[XPOSE_MAX_RANK] = {0};
    not_ab[a] = not_ab[b] = 1;
    const size_t bytes = p->count * p->es;
    const bool contig_src = xp_perm_stage_side(p->ext[a], p->ext[b], p->es, 0, bytes) &&
                            p->ss[b] == (int64_t)p->ext[a] && strides_on(p, not_ab, -1, true, src, 16);
    const bool contig_dst = !contig_src && xp_perm_stage_side(p->ext[b], p->ext[a], p->es, 1, bytes) &&
                            p->ds[a] == (int64_t)p->ext[b] && strides_on(p, not_ab, -1, false, dst, 16);
    if (!contig_src && !contig_dst)
        return false;
    const int small = contig_src ? a : b, long_dim = contig_src ? b : a;
    const size_t n = p->ext[long_dim], k = p->ext[small], pad = k % 2 == 0, e = 16 / p->es;
    /* Bytes of rows up to 32 take stage_rows' grouped items ("permute: staged skinny kernel"). A segment: at most as
     * many long indices as fill the stage (k + pad elements each, with stage_at's padding), in groups of e (whole
     * 16-byte pieces of each row); grouped, e (8 t - 1) of them, so that a row spans 8 t pieces (one more for a row
     * off 16 bytes): whole groups of 8. */
    const bool grouped = p->es == 1 && k <= 32;
    const size_t most = PERM_STAGE_BYTES / ((k + pad) * p->es) / e, t = (most + 1) / 8;
    const size_t L = e * (grouped && t ? 8 * t - 1 : most), segs = (n + L - 1) / L;
    StageArgs *g = &pl->g;
    pl->kind = PERM_STAGE;
    pl->contig_src = contig_src;
    pl->a = a, pl->b = b;
    g->n = (unsigned)n, g->k = (unsigned)k, g->L = (unsigned)L;
    g->kd = xp_div((unsigned)k);
    g->grouped = grouped;
    /* Bytes of k % 4 == 0 up to 48 whose strided rows lie a multiple of 16 bytes apart: 4 rows a thread
     * (stage_quads; "permute: staged skinny kernel"). */
    g->quads =
        p->es == 1 && k % 4 == 0 && k <= XP_PERM_QUAD_MAX && (contig_src ? p->ds[small] : p->ss[small]) % 16 == 0;
    /* Strided rows (or their outer offsets) off 16 bytes: whole pieces inside rows (stage_rows' ENDS) */
    g->ends = !g->quads && !strides_on(p, NULL, long_dim, !contig_src, contig_src ? dst : src, 16);
    g->pieces = xp_div((unsigned)(L * p->es / 16 + 1));
    g->piece_groups = xp_div((g->pieces.d + 7) / 8);
    pl->blocks = segs * set_sides(g, p, a, b, small, long_dim);
    if (pl->blocks <= PERM_MAX_BLOCKS)
        g->segs = xp_div((unsigned)segs);
    return true;
}

/* The plan of a canonical permutation whose extents are at most PERM_MAX_EXT, for these addresses. */
static void plan(const xp_perm *in, const void *src, void *dst, PermPlan *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->p = *in;
    xp_perm *p = &pl->p;
    const uintptr_t s = (uintptr_t)src, d = (uintptr_t)dst;
    pl->fold = fold_runs(p, s, d) ? p->es / in->es : 1;
    pl->t.src = pl->r.src = pl->k.src = pl->g.src = (const char *)src;
    pl->t.dst = pl->r.dst = pl->k.dst = pl->g.dst = (char *)dst;
    pl->a = pl->b = -1;
    if (p->rank == 0 || p->count == 0) {
        pl->kind = PERM_NOTHING;
        return;
    }
    if (p->rank == 1 && p->ss[0] == 1 && p->ds[0] == 1) {
        pl->kind = PERM_MEMCPY;
        return;
    }
    /* The source's fastest dimension: the smallest nonzero stride, the destination's fastest on a tie. */
    int a = -1;
    for (int k = 0; k < p->rank; k++) {
        const long long m = llabs(p->ss[k]);
        if (m && (a < 0 || m < llabs(p->ss[a]) || (m == llabs(p->ss[a]) && k == p->rank - 1)))
            a = k;
    }
    if (a < 0 || a == p->rank - 1)
        plan_runs(pl, s, d);
    else if (!plan_skinny(pl, a, s, d) && !plan_stage(pl, a, s, d))
        plan_tiles(pl, a, s, d);
}

/* Bytes of the permutation's elements (count x es), for the copy. */
static size_t perm_bytes(const xp_perm *p) { return p->count * p->es; }

template <class G, int NB> static int launch_vec(const PermPlan *pl, cudaStream_t st)
{
    const size_t smem = G::SMEM + G::TC * sizeof(long long);
    perm_vec_kernel<G, NB><<<(unsigned)pl->blocks, PERM_THREADS, smem, st>>>(pl->t);
    return xp_cuda_launch_status();
}

template <int ES> static int launch_vec_es(const PermPlan *pl, cudaStream_t st)
{
    if (pl->narrow)
        return launch_vec<typename PermVecTile<ES, true>::G, PermVecTile<ES, true>::BLOCKS>(pl, st);
    return launch_vec<typename PermVecTile<ES, false>::G, PermVecTile<ES, false>::BLOCKS>(pl, st);
}

template <int ES> static int launch_scalar(const PermPlan *pl, cudaStream_t st)
{
    typedef typename XpElem<ES>::type T;
    perm_scalar_kernel<T>
        <<<(unsigned)pl->blocks, PERM_THREADS, perm_scalar_smem(sizeof(T), pl->t.lr, pl->t.lc), st>>>(pl->t);
    return xp_cuda_launch_status();
}

template <int ES> static int launch_runs(const PermPlan *pl, cudaStream_t st)
{
    perm_runs_kernel<typename XpElem<ES>::type><<<(unsigned)pl->blocks, PERM_THREADS, 0, st>>>(pl->r);
    return xp_cuda_launch_status();
}

template <int ES, int K> static int launch_skinny_k(const PermPlan *pl, cudaStream_t st)
{
    if (pl->contig_src)
        perm_skinny_kernel<ES, K, true><<<(unsigned)pl->blocks, PERM_THREADS, 0, st>>>(pl->k);
    else
        perm_skinny_kernel<ES, K, false><<<(unsigned)pl->blocks, PERM_THREADS, 0, st>>>(pl->k);
    return xp_cuda_launch_status();
}

template <int ES> static int launch_skinny(const PermPlan *pl, cudaStream_t st)
{
    switch (pl->contig_src ? pl->p.ext[pl->a] : pl->p.ext[pl->b]) {
    case 2: return launch_skinny_k<ES, 2>(pl, st);
    case 3: return launch_skinny_k<ES, 3>(pl, st);
    case 4: return launch_skinny_k<ES, 4>(pl, st);
    case 5: return launch_skinny_k<ES, 5>(pl, st);
    case 6: return launch_skinny_k<ES, 6>(pl, st);
    case 7: return launch_skinny_k<ES, 7>(pl, st);
    default: return launch_skinny_k<ES, XP_PERM_SKINNY_MAX>(pl, st);
    }
}

template <int ES, bool PAD, bool QUADS = false, bool ENDS = false>
static int launch_stage_pad(const PermPlan *pl, cudaStream_t st)
{
    /* ENDS: a contiguous source stages 16 / ES - 1 long indices past the segment too (perm_stage_kernel) */
    const size_t smem = (size_t)(pl->g.L + (ENDS && pl->contig_src ? 16 / ES : 0)) * (pl->g.k + PAD) * ES;
    if (pl->contig_src)
        perm_stage_kernel<ES, true, PAD, QUADS, ENDS><<<(unsigned)pl->blocks, PERM_THREADS, smem, st>>>(pl->g);
    else
        perm_stage_kernel<ES, false, PAD, QUADS, ENDS><<<(unsigned)pl->blocks, PERM_THREADS, smem, st>>>(pl->g);
    return xp_cuda_launch_status();
}

/* An even k pads the stage (stage_at); bytes with quads (k % 4 == 0, so padded; rows on 16 bytes) take stage_quads'
 * instances; strided rows off 16 bytes the ENDS ones. */
template <int ES> static int launch_stage(const PermPlan *pl, cudaStream_t st)
{
    if constexpr (ES == 1)
        if (pl->g.quads)
            return launch_stage_pad<1, true, true>(pl, st);
    if (pl->g.ends)
        return pl->g.k % 2 == 0 ? launch_stage_pad<ES, true, false, true>(pl, st)
                                : launch_stage_pad<ES, false, false, true>(pl, st);
    return pl->g.k % 2 == 0 ? launch_stage_pad<ES, true>(pl, st) : launch_stage_pad<ES, false>(pl, st);
}

typedef int (*PermLaunch)(const PermPlan *pl, cudaStream_t st);

/* A kernel kind's launcher for elements (or units) of es bytes, from its instances for 1, 2, 4, 8 and 16 bytes. */
static PermLaunch by_size(size_t es, PermLaunch l1, PermLaunch l2, PermLaunch l4, PermLaunch l8, PermLaunch l16)
{
    return es == 1 ? l1 : es == 2 ? l2 : es == 4 ? l4 : es == 8 ? l8 : l16;
}
#define PERM_SIZES(launcher) launcher<1>, launcher<2>, launcher<4>, launcher<8>, launcher<16>

static int launch(const PermPlan *pl, cudaStream_t st)
{
    switch (pl->kind) {
    case PERM_NOTHING: return XPOSE_OK;
    case PERM_MEMCPY:
        return xp_cuda_status_of(
            cudaMemcpyAsync(pl->t.dst, pl->t.src, perm_bytes(&pl->p), cudaMemcpyDeviceToDevice, st));
    case PERM_RUNS: return by_size(pl->unit, PERM_SIZES(launch_runs))(pl, st);
    case PERM_SKINNY: return by_size(pl->p.es, PERM_SIZES(launch_skinny))(pl, st);
    case PERM_STAGE: return by_size(pl->p.es, PERM_SIZES(launch_stage))(pl, st);
    case PERM_VEC: return by_size(pl->p.es, PERM_SIZES(launch_vec_es))(pl, st);
    default: return by_size(pl->p.es, PERM_SIZES(launch_scalar))(pl, st);
    }
}

/* p with dimension k cut to [i0, i0 + n), its pointers moved to the piece; a piece of one drops the dimension. */
static xp_perm piece_of(const xp_perm *p, int k, size_t i0, size_t n, const char **src, char **dst)
{
    xp_perm q = *p;
    *src += (int64_t)i0 * p->ss[k] * (int64_t)p->es;
    *dst += (int64_t)i0 * p->ds[k] * (int64_t)p->es;
    q.count = p->count / p->ext[k] * n;
    q.ext[k] = n;
    if (n == 1 && q.rank > 1) {
        for (int d = k; d + 1 < q.rank; d++)
            q.ext[d] = q.ext[d + 1], q.ss[d] = q.ss[d + 1], q.ds[d] = q.ds[d + 1];
        q.rank--;
    }
    return q;
}

/* Runs p, in pieces where an extent or the grid would be too large for 32-bit indices: an extent past PERM_MAX_EXT in
 * pieces of it, a grid past PERM_MAX_BLOCKS along the destination's slowest dimension. */
static int run_pieces(const xp_perm *p, const char *src, char *dst, cudaStream_t st)
{
    int k = -1;
    size_t piece = 0;
    for (int d = 0; d < p->rank && k < 0; d++)
        if (p->ext[d] > PERM_MAX_EXT)
            k = d, piece = PERM_MAX_EXT;
    PermPlan *pl = NULL;
    if (k < 0) {
        pl = (PermPlan *)malloc(sizeof *pl);
        if (!pl)
            return XPOSE_ERR_NO_MEMORY;
        plan(p, src, dst, pl);
        if (pl->blocks > PERM_MAX_BLOCKS) {
            k = 0;
            piece = p->ext[0] / (pl->blocks / PERM_MAX_BLOCKS + 1);
            piece = piece ? piece : 1;
        }
    }
    int status = XPOSE_OK;
    if (k < 0) {
        status = launch(pl, st);
    } else {
        for (size_t i0 = 0; i0 < p->ext[k] && status == XPOSE_OK; i0 += piece) {
            const char *s = src;
            char *d = dst;
            const size_t n = p->ext[k] - i0 < piece ? p->ext[k] - i0 : piece;
            const xp_perm q = piece_of(p, k, i0, n, &s, &d);
            status = run_pieces(&q, s, d, st);
        }
    }
    free(pl);
    return status;
}

extern "C" int xp_cuda_permute(const xp_perm *p, const void *src, void *dst, void *stream)
{
    if (p->rank == 0 || p->count == 0)
        return XPOSE_OK;
    return run_pieces(p, (const char *)src, (char *)dst, (cudaStream_t)stream);
}

extern "C" int xp_cuda_permute_describe(const xp_perm *p, char *buf, size_t size)
{
    PermPlan *pl = (PermPlan *)malloc(sizeof *pl);
    if (!pl)
        return XPOSE_ERR_NO_MEMORY;
    /* Extents past PERM_MAX_EXT run in pieces of it: describe the first. */
    xp_perm first = *p;
    bool cut = false;
    for (int d = 0; d < p->rank; d++)
        if (p->ext[d] > PERM_MAX_EXT) {
            first.count = first.count / first.ext[d] * PERM_MAX_EXT;
            first.ext[d] = PERM_MAX_EXT;
            cut = true;
        }
    plan(&first, (const void *)256, (void *)256, pl); /* addresses as cudaMalloc gives them */
    cut |= pl->blocks > PERM_MAX_BLOCKS;
    char fold[64] = "";
    if (pl->fold > 1)
        snprintf(fold, sizeof fold, "runs of %zu as %zu-byte elements, ", pl->fold, pl->p.es);
    const char *pieces = cut ? ", in pieces" : "";
    int n;
    switch (pl->kind) {
    case PERM_NOTHING: n = snprintf(buf, size, "nothing to move"); break;
    case PERM_MEMCPY: n = snprintf(buf, size, "%scopy of %zu bytes (cudaMemcpyAsync)", fold, perm_bytes(p)); break;
    case PERM_RUNS:
        n = snprintf(buf, size, "%sruns b=%d of %zu bytes (%u-byte accesses)%s", fold, pl->b,
                     pl->p.ext[pl->b] * pl->p.es, pl->unit, pieces);
        break;
    case PERM_SKINNY:
        n = snprintf(buf, size, "%sskinny a=%d b=%d k=%zu (%zu-byte, 16-byte vectors transposed in registers)%s", fold,
                     pl->a, pl->b, pl->contig_src ? pl->p.ext[pl->a] : pl->p.ext[pl->b], pl->p.es, pieces);
        break;
    case PERM_STAGE:
        n = snprintf(buf, size, "%sstaged skinny a=%d b=%d k=%u (%zu-byte, segments of %u through shared memory%s)%s",
                     fold, pl->a, pl->b, pl->g.k, pl->p.es, pl->g.L, pl->g.quads ? ", 4 rows a thread" : "", pieces);
        break;
    default:
        n = snprintf(buf, size, "%stiled a=%d b=%d tile %ux%u (%zu-byte, %s; edges of %u and %u dims)%s", fold, pl->a,
                     pl->b, pl->tc, pl->tr, pl->p.es, pl->kind == PERM_VEC ? "16-byte vectors" : "element-wise",
                     pl->t.na, pl->t.nb, pieces);
        break;
    }
    free(pl);
    return n;
}
