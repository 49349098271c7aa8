/* test_status.c: every bad argument returns its own status; strerror and version are sane. */
#include <stdint.h>
#include <string.h>
#include "testing.h"
#include "xpose_cuda.h"

static void test_messages(void)
{
    static const int codes[] = {
#define CODE_(name, value, msg) name,
        XPOSE_STATUS_LIST(CODE_)
#undef CODE_
    };
    size_t n = sizeof codes / sizeof codes[0];
    for (size_t i = 0; i < n; i++) {
        CHECK(codes[i] <= 0, "status %d is positive", codes[i]);
        CHECK(strcmp(xpose_strerror(codes[i]), "unknown xpose status") != 0, "status %d has no message", codes[i]);
        for (size_t j = 0; j < i; j++)
            CHECK(codes[i] != codes[j], "status value %d listed twice", codes[i]);
    }
    CHECK(!strcmp(xpose_strerror(12345), "unknown xpose status"), "unknown code");
    CHECK(!strcmp(xpose_version(), XPOSE_VERSION_STRING), "version %s", xpose_version());
}

static void test_transpose_args(void)
{
    float a[64] = {0}, b[64] = {0};
    xpose_layout ok = {4, 8, 4, 0, 0, 0, 0, 0};
    xpose_layout l;

    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, NULL, a, b), XPOSE_ERR_NULL, "NULL layout");
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &ok, NULL, b), XPOSE_ERR_NULL, "NULL src");
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &ok, a, NULL), XPOSE_ERR_NULL, "NULL dst");
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &ok, a, b), XPOSE_OK, "valid call");
    CHECK_STATUS(xpose_transpose((xpose_backend)7, &ok, a, b), XPOSE_ERR_INVALID, "unknown backend");

    l = ok, l.rows = 0;
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &l, NULL, NULL), XPOSE_OK, "0 rows is a no-op");
    l = ok, l.cols = 0;
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &l, NULL, NULL), XPOSE_OK, "0 cols is a no-op");

    size_t bad_sizes[] = {0, 3, 5, 32};
    for (size_t i = 0; i < 4; i++) {
        l = ok, l.elem_size = bad_sizes[i];
        CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &l, a, b), XPOSE_ERR_ELEM_SIZE, "elem %zu", bad_sizes[i]);
    }
    l = ok, l.ld_src = 7;
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &l, a, b), XPOSE_ERR_LEADING_DIM, "ld_src < cols");
    l = ok, l.ld_dst = 3;
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &l, a, b), XPOSE_ERR_LEADING_DIM, "ld_dst < rows");
    l = ok, l.rows = SIZE_MAX / 2, l.ld_dst = SIZE_MAX / 2;
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &l, a, b), XPOSE_ERR_OVERFLOW, "rows*ld overflows");
    l = ok, l.rows = (SIZE_MAX / 4) / 8 + 1;
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &l, a, b), XPOSE_ERR_OVERFLOW, "bytes overflow");
    l = ok, l.batch = SIZE_MAX / 16;
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &l, a, b), XPOSE_ERR_OVERFLOW, "batch overflows");

    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &ok, a, a), XPOSE_ERR_OVERLAP, "in place");
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &ok, a, a + 31), XPOSE_ERR_OVERLAP, "dst inside src");
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &ok, a + 31, a), XPOSE_ERR_OVERLAP, "src inside dst");
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &ok, a, a + 32), XPOSE_OK, "adjacent buffers");

    l = ok, l.batch = 2, l.stride_dst = 20;
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &l, a, b), XPOSE_ERR_BATCH_STRIDE, "members overlap");
    l = ok, l.batch = 2, l.stride_src = 0, l.stride_dst = 32;
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &l, a, b), XPOSE_OK, "two dense members");

    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &ok, (char *)a + 1, b), XPOSE_ERR_ALIGNMENT, "misaligned src");
    CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CPU, &ok, a, (char *)b + 2), XPOSE_ERR_ALIGNMENT, "misaligned dst");

    CHECK_STATUS(xpose_transpose_variant("no-such", &ok, a, b), XPOSE_ERR_UNKNOWN_VARIANT, "unknown variant");
    CHECK_STATUS(xpose_transpose_variant("cpu-blocked/7", &ok, a, b), XPOSE_ERR_UNKNOWN_VARIANT, "unknown params");
    CHECK_STATUS(xpose_transpose_variant(NULL, &ok, a, b), XPOSE_ERR_NULL, "NULL variant name");
    CHECK_STATUS(xpose_transpose_variant("cpu-memcpy", &(xpose_layout){4, 8, 4, 9, 0, 0, 0, 0}, a, b),
                 XPOSE_ERR_UNSUPPORTED, "copy with a leading dimension");
}

static void test_cuda_absent_or_present(void)
{
    float a[8] = {0}, b[8] = {0};
    xpose_layout l = {2, 4, 4, 0, 0, 0, 0, 0};
    int st = xpose_cuda_status();
    CHECK(st == XPOSE_OK || st == XPOSE_ERR_NOT_BUILT || st == XPOSE_ERR_NO_DEVICE, "cuda status %d", st);
    if (st != XPOSE_OK) {
        /* Every build exports the stream-ordered entry points; without CUDA (or a device) they say why. */
        CHECK_STATUS(xpose_transpose(XPOSE_BACKEND_CUDA, &l, a, b), st, "CUDA call without CUDA");
        CHECK_STATUS(xpose_transpose_cuda(&l, a, b, NULL), st, "xpose_transpose_cuda without CUDA");
        CHECK_STATUS(xpose_transpose_variant_cuda("fast", &l, a, b, NULL), st, "the fast variant without CUDA");
        CHECK_STATUS(xpose_reduce_cuda(XPOSE_SUM, XPOSE_F32, a, 8, b, NULL), st, "xpose_reduce_cuda without CUDA");
        CHECK_STATUS(xpose_reduce_variant_cuda("reduce-fast", XPOSE_SUM, XPOSE_F32, a, 8, b, NULL), st,
                     "a CUDA reduction variant without CUDA");
    }
}

static void test_registry(void)
{
    int n = xpose_variant_count();
    CHECK(n > 0, "empty registry");
    xpose_variant_info v;
    CHECK_STATUS(xpose_variant_get(-1, &v), XPOSE_ERR_INVALID, "index -1");
    CHECK_STATUS(xpose_variant_get(n, &v), XPOSE_ERR_INVALID, "index past the end");
    for (int i = 0; i < n; i++) {
        CHECK(xpose_variant_get(i, &v) == XPOSE_OK, "row %d", i);
        char id[96];
        snprintf(id, sizeof id, "%s%s%s", v.name, v.params[0] ? "/" : "", v.params);
        CHECK(xpose_variant_find(id) == i, "%s found at %d, wanted %d (duplicate id?)", id, xpose_variant_find(id), i);
        CHECK(v.about && v.about[0], "%s has no description", id);
    }
    /* The peers live outside libxpose; a program that registers them (as the tests and the CLI do) sees them. */
    CHECK(xpose_variant_find("cublas-geam") >= 0 && xpose_variant_find("cpu-openblas") >= 0, "peer rows missing");
}

int main(void)
{
    test_messages();
    test_transpose_args();
    test_cuda_absent_or_present();
    test_registry();
    return t_finish("test_status");
}
