/* test_cpu_transpose.c: every CPU transpose variant against the reference: edge shapes, random shapes,
 * strides, batches, element offsets, every element size, and the double-transpose identity. */
#include <string.h>
#include "testing.h"

static const size_t elem_sizes[] = {1, 2, 4, 8, 16};

static void edge_shapes(const char *id, unsigned mask)
{
    for (size_t e = 0; e < 5; e++) {
        if (!(mask & elem_sizes[e]))
            continue;
        for (size_t i = 0; i < t_edge_shape_count; i++) {
            xpose_layout l = {t_edge_shapes[i].rows, t_edge_shapes[i].cols, elem_sizes[e], 0, 0, 0, 0, 0};
            t_check_variant(&t_host_mem, id, &l, (unsigned)(i * 5 + e + 1), 0, 0);
        }
    }
}

/* Random shapes with padded leading dimensions, batches with gaps, and pointers offset by whole elements. */
static void random_layouts(const char *id, unsigned mask, unsigned seed, int count)
{
    uint64_t s = seed;
    for (int k = 0; k < count; k++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        unsigned r = (unsigned)(s >> 33);
        size_t es = elem_sizes[r % 5];
        if (!(mask & es))
            continue;
        xpose_layout l = {1 + (r >> 3) % 150, 1 + (r >> 11) % 150, es, 0, 0, 0, 0, 0};
        if (r & (1u << 20))
            l.ld_src = l.cols + (r >> 21) % 9;
        if (r & (1u << 25))
            l.ld_dst = l.rows + (r >> 26) % 5;
        if ((r & 7u) == 0) {
            size_t lds = l.ld_src ? l.ld_src : l.cols, ldd = l.ld_dst ? l.ld_dst : l.rows;
            l.batch = 2 + r % 4;
            l.stride_src = l.rows * lds + (r >> 4) % 3;
            l.stride_dst = l.cols * ldd + (r >> 6) % 3;
        }
        size_t so = es * ((r >> 17) % 3), dof = es * ((r >> 19) % 3);
        t_check_variant(&t_host_mem, id, &l, r, so, dof);
    }
}

/* transpose(transpose(A)) == A, bit for bit. */
static void double_transpose(const char *id, unsigned mask)
{
    for (size_t e = 0; e < 5; e++) {
        if (!(mask & elem_sizes[e]))
            continue;
        size_t rows = 123, cols = 77, bytes = rows * cols * elem_sizes[e];
        unsigned char *a = malloc(bytes), *t = malloc(bytes), *back = malloc(bytes);
        xv_fill_random(a, bytes, 99 + e);
        xv_poison(t, bytes);
        xv_poison(back, bytes);
        xpose_layout l1 = {rows, cols, elem_sizes[e], 0, 0, 0, 0, 0}, l2 = {cols, rows, elem_sizes[e], 0, 0, 0, 0, 0};
        CHECK_STATUS(xpose_transpose_variant(id, &l1, a, t), XPOSE_OK, "%s forward", id);
        CHECK_STATUS(xpose_transpose_variant(id, &l2, t, back), XPOSE_OK, "%s back", id);
        CHECK(memcmp(a, back, bytes) == 0, "%s: transpose twice is not the identity (es %zu)", id, elem_sizes[e]);
        free(a), free(t), free(back);
    }
}

int main(void)
{
    char id[96];
    unsigned mask;
    int n = 0;
    for (int i = 0; t_variant_id(i, XPOSE_BACKEND_CPU, XPOSE_FAMILY_TRANSPOSE, id, sizeof id, &mask); i++, n++) {
        edge_shapes(id, mask);
        random_layouts(id, mask, 1000u + (unsigned)i, 120);
        double_transpose(id, mask);
    }
    CHECK(n >= 2, "only %d CPU transpose variants registered", n);
    /* The production entry point (AUTO on host memory picks the CPU). */
    for (size_t e = 0; e < 5; e++) {
        xpose_layout p = {301, 199, elem_sizes[e], 310, 305, 2, 0, 0};
        CHECK(t_check_variant(&t_host_mem, NULL, &p, 7 + (unsigned)e, 0, 0) == 1, "production, es %zu", elem_sizes[e]);
    }
    return t_finish("test_cpu_transpose");
}
