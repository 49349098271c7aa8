/* test_copy.c: the copy-family rows (the memcpy bounds) copy every byte and nothing else. */
#include <string.h>
#include "testing.h"

int main(void)
{
    xpose_variant_info v;
    int copies = 0;
    for (int i = 0; i < xpose_variant_count(); i++) {
        if (xpose_variant_get(i, &v) != XPOSE_OK || v.family != XPOSE_FAMILY_COPY || v.backend != XPOSE_BACKEND_CPU)
            continue;
        copies++;
        /* Sizes around the serial and chunk bounds, and offsets that leave dst off its line, so that cpu-stream's
         * ordinary-store head and tail are covered as well as its streamed lines. */
        size_t sizes[] = {1, 63, 4097, 200000, 3u << 20};
        size_t offs[][2] = {{0, 0}, {3, 0}, {0, 5}, {17, 40}};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++) {
                size_t n = sizes[k], os = offs[o][0], od = offs[o][1];
                xpose_layout l = {n, 1, 1, 0, 0, 0, 0, 0};
                unsigned char *a = malloc(n + os), *b = malloc(n + od + 1);
                xv_fill_random(a + os, n, k + 1);
                xv_poison(b, n + od + 1);
                CHECK_STATUS(xpose_transpose_variant(v.name, &l, a + os, b + od), XPOSE_OK, "%s", v.name);
                CHECK(memcmp(a + os, b + od, n) == 0 && b[n + od] == XV_POISON && (od == 0 || b[od - 1] == XV_POISON),
                      "%s copied wrong (%zu bytes, src +%zu, dst +%zu)", v.name, n, os, od);
                free(a), free(b);
            }
    }
    CHECK(copies >= 1, "no CPU copy variant registered");
    return t_finish("test_copy");
}
