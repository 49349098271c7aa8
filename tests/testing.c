/* testing.c: the shared check behind every variant test, and the edge shapes the seeds list. */
#include <string.h>
#include "testing.h"
#include "xpose_peers.h"

int t_failures, t_checks;

/* Every suite sees the peer rows too (cublas-geam, cpu-openblas), as the CLI does; before main, before threads. */
__attribute__((constructor)) static void t_register_peers(void) { xp_peers_register(); }

int t_finish(const char *suite)
{
    printf("%s: %d checks, %d failed\n", suite, t_checks, t_failures);
    if (t_checks == 0) {
        printf("%s: no check ran\n", suite);
        return 1;
    }
    return t_failures ? 1 : 0;
}

static void *h_alloc(size_t n) { return malloc(n ? n : 1); }
static void h_copy(void *d, const void *s, size_t n) { memcpy(d, s, n); }
static void h_copy_c(void *d, const void *s, size_t n) { memcpy(d, s, n); }
const t_mem t_host_mem = {h_alloc, free, h_copy, h_copy_c, xv_poison};

const t_shape t_edge_shapes[] = {
    {1, 1},   {1, 1000}, {1000, 1}, {2, 3},     {3, 2},     {17, 33},   {33, 17},    {31, 64},     {64, 31},
    {65, 65}, {100, 7},  {7, 100},  {129, 255}, {256, 256}, {257, 129}, {512, 1024}, {1000, 1500}, {127, 4099},
};
const size_t t_edge_shape_count = sizeof t_edge_shapes / sizeof t_edge_shapes[0];

int t_check_variant(const t_mem *m, const char *id, const xpose_layout *lay, unsigned seed, size_t src_off,
                    size_t dst_off)
{
    size_t sb, db;
    xv_spans(lay, &sb, &db);
    unsigned char *hsrc = malloc(sb + 1), *ref = malloc(db + 1), *got = malloc(db + dst_off + 1);
    unsigned char *dsrc = m->alloc(sb + src_off), *ddst = m->alloc(db + dst_off);
    int ok = 0;
    if (!hsrc || !ref || !got || !dsrc || !ddst) {
        CHECK(0, "%s: cannot allocate %zu + %zu bytes", id, sb, db);
        goto out;
    }
    xv_fill_random(hsrc, sb, seed);
    xv_poison(ref, db);
    xv_reference(lay, hsrc, ref);
    m->upload(dsrc + src_off, hsrc, sb);
    m->poison(ddst, db + dst_off);
    int st = id ? xpose_transpose_variant(id, lay, dsrc + src_off, ddst + dst_off)
                : xpose_transpose(XPOSE_BACKEND_AUTO, lay, dsrc + src_off, ddst + dst_off);
    if (!id)
        id = "production";
    if (st == XPOSE_ERR_UNSUPPORTED) {
        ok = -1;
        goto out;
    }
    CHECK_STATUS(st, XPOSE_OK, "%s %zux%zu es %zu", id, lay->rows, lay->cols, lay->elem_size);
    if (st != XPOSE_OK)
        goto out;
    m->download(got, ddst, db + dst_off);
    size_t first = 0, bad = xv_compare(got + dst_off, ref, db, &first);
    size_t lead = 0;
    for (size_t i = 0; i < dst_off; i++)
        lead += got[i] != XV_POISON;
    CHECK(bad == 0 && lead == 0,
          "%s %zux%zu es %zu ld %zu/%zu batch %zu offs %zu/%zu: %zu bytes differ (first at %zu), %zu written "
          "before dst",
          id, lay->rows, lay->cols, lay->elem_size, lay->ld_src, lay->ld_dst, lay->batch, src_off, dst_off, bad, first,
          lead);
    ok = bad == 0 && lead == 0;
out:
    free(hsrc), free(ref), free(got);
    if (dsrc)
        m->release(dsrc);
    if (ddst)
        m->release(ddst);
    return ok;
}

int t_variant_id(int i, xpose_backend be, xpose_family fam, char *id, size_t n, unsigned *elem_sizes)
{
    xpose_variant_info v;
    for (int k = 0, seen = 0; k < xpose_variant_count(); k++) {
        if (xpose_variant_get(k, &v) != XPOSE_OK || v.backend != be || v.family != fam)
            continue;
        if (seen++ == i) {
            snprintf(id, n, "%s%s%s", v.name, v.params[0] ? "/" : "", v.params);
            *elem_sizes = v.elem_sizes;
            return 1;
        }
    }
    return 0;
}

void t_random_layouts(const t_mem *m, const char *id, unsigned mask, unsigned seed, int count, size_t max_dim)
{
    static const size_t sizes[] = {1, 2, 4, 8, 16};
    uint64_t s = seed;
    for (int k = 0; k < count; k++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        unsigned r = (unsigned)(s >> 33);
        size_t es = sizes[r % 5];
        if (!(mask & es))
            continue;
        xpose_layout l = {1 + (r >> 3) % max_dim, 1 + (r >> 13) % max_dim, es, 0, 0, 0, 0, 0};
        if (r & (1u << 23))
            l.ld_src = l.cols + (r >> 24) % 37;
        if (r & (1u << 29))
            l.ld_dst = l.rows + (r >> 26) % 7;
        if ((r & 7u) < 2) {
            size_t lds = l.ld_src ? l.ld_src : l.cols, ldd = l.ld_dst ? l.ld_dst : l.rows;
            l.batch = 2 + r % 5;
            l.stride_src = l.rows * lds + (r >> 4) % 3;
            l.stride_dst = l.cols * ldd + (r >> 6) % 3;
        }
        size_t so = es * ((r >> 17) % 3), dof = es * ((r >> 19) % 3);
        t_check_variant(m, id, &l, r, so, dof);
    }
}

size_t t_transpose_mismatches(const unsigned char *src, const unsigned char *got, size_t rows, size_t cols)
{
    size_t bad = 0;
    for (size_t i0 = 0; i0 < rows; i0 += 64)
        for (size_t j = 0; j < cols; j++)
            for (size_t i = i0; i < i0 + 64 && i < rows; i++)
                bad += got[j * rows + i] != src[i * cols + j];
    return bad;
}
