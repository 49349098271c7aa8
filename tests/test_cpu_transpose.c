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
        xpose_variant_info info;
        if (xpose_variant_get(xpose_variant_find(id), &info) == XPOSE_OK && !info.available)
            continue; /* an optional library this build lacks (cpu-openblas without OpenBLAS) */
        edge_shapes(id, mask);
        t_random_layouts(&t_host_mem, id, mask, 1000u + (unsigned)i, 120, 150);
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
