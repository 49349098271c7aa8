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
        size_t sizes[] = {1, 4097, 3u << 20};
        for (size_t k = 0; k < 3; k++) {
            xpose_layout l = {sizes[k], 1, 1, 0, 0, 0, 0, 0};
            unsigned char *a = malloc(sizes[k]), *b = malloc(sizes[k] + 1);
            xv_fill_random(a, sizes[k], k + 1);
            xv_poison(b, sizes[k] + 1);
            CHECK_STATUS(xpose_transpose_variant(v.name, &l, a, b), XPOSE_OK, "%s", v.name);
            CHECK(memcmp(a, b, sizes[k]) == 0 && b[sizes[k]] == XV_POISON, "%s copied wrong (%zu bytes)", v.name,
                  sizes[k]);
            free(a), free(b);
        }
    }
    CHECK(copies >= 1, "no CPU copy variant registered");
    return t_finish("test_copy");
}
