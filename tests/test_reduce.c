/* test_reduce.c (label cpu): every CPU reduction variant and the production path, every type and op, at
 * n = 0, 1, primes and 2^k +- 1; NaN, infinities and signed zeros by the documented rule; the same bits
 * for any thread count; every bad argument. */
#include <math.h>
#include <string.h>
#include "reduce_cases.h"

/* The reference decides what every suite accepts, so its answers to the documented rules are pinned. */
static void reference_rules(void)
{
    xr_expect e;
    float zeros[2] = {0.0f, -0.0f}, with_nan[3] = {1.0f, NAN, -2.0f}, tiny[2] = {1.0f, 0x1p-30f};
    uint32_t bits;
    xr_expected(XPOSE_MIN, XPOSE_F32, zeros, 2, &e);
    memcpy(&bits, e.bits, 4);
    CHECK(e.exact && bits == 0x80000000u, "min(+0, -0) must be -0, reference says %08x", bits);
    xr_expected(XPOSE_MAX, XPOSE_F32, zeros, 2, &e);
    memcpy(&bits, e.bits, 4);
    CHECK(e.exact && bits == 0u, "max(+0, -0) must be +0, reference says %08x", bits);
    for (int op = XPOSE_SUM; op <= XPOSE_MAX; op++) {
        xr_expected((xpose_reduce_op)op, XPOSE_F32, with_nan, 3, &e);
        memcpy(&bits, e.bits, 4);
        CHECK(e.exact && bits == 0x7FC00000u, "%s with a NaN must be the quiet NaN, reference says %08x",
              rc_op_names[op], bits);
    }
    int32_t wrap[2] = {INT32_MAX, 1}, sum;
    xr_expected(XPOSE_SUM, XPOSE_I32, wrap, 2, &e);
    memcpy(&sum, e.bits, 4);
    CHECK(e.exact && sum == INT32_MIN, "int32 sums wrap modulo 2^32, reference says %d", sum);
    /* 1 + 2^-30 in float is 1; the next float up is off by more than the bound allows. */
    xr_expected(XPOSE_SUM, XPOSE_F32, tiny, 2, &e);
    float one = 1.0f, next = nextafterf(1.0f, 2.0f);
    CHECK(!e.exact && xr_accepts(XPOSE_F32, &e, &one) && !xr_accepts(XPOSE_F32, &e, &next),
          "the float bound must accept 1 and refuse 1 + 2^-23 for 1 + 2^-30");
}

static void bad_arguments(void)
{
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r = 0;
    unsigned char raw[64] = {0};
    double d;
    CHECK_STATUS(xpose_reduce_variant("cpu-reduce", XPOSE_SUM, XPOSE_F32, x, 8, NULL), XPOSE_ERR_NULL, "NULL result");
    CHECK_STATUS(xpose_reduce_variant("cpu-reduce", XPOSE_SUM, XPOSE_F32, NULL, 8, &r), XPOSE_ERR_NULL, "NULL src");
    r = 5;
    CHECK_STATUS(xpose_reduce_variant("cpu-reduce", XPOSE_SUM, XPOSE_F32, NULL, 0, &r), XPOSE_OK, "empty sum");
    CHECK(r == 0.0f && !signbit(r), "the empty sum must be +0, got %g", r);
    CHECK_STATUS(xpose_reduce_variant("cpu-reduce", XPOSE_MIN, XPOSE_F32, x, 0, &r), XPOSE_ERR_EMPTY, "empty min");
    CHECK_STATUS(xpose_reduce_variant("cpu-reduce", XPOSE_MAX, XPOSE_I64, x, 0, &d), XPOSE_ERR_EMPTY, "empty max");
    CHECK_STATUS(xpose_reduce_variant("cpu-reduce", (xpose_reduce_op)7, XPOSE_F32, x, 8, &r), XPOSE_ERR_INVALID,
                 "bad op");
    CHECK_STATUS(xpose_reduce_variant("cpu-reduce", XPOSE_SUM, (xpose_dtype)9, x, 8, &r), XPOSE_ERR_INVALID,
                 "bad type");
    CHECK_STATUS(xpose_reduce_variant("cpu-reduce", XPOSE_SUM, XPOSE_F64, x, SIZE_MAX / 4, &d), XPOSE_ERR_OVERFLOW,
                 "n * 8 overflows");
    CHECK_STATUS(xpose_reduce_variant("cpu-reduce", XPOSE_SUM, XPOSE_F32, raw + 1, 8, &r), XPOSE_ERR_ALIGNMENT,
                 "misaligned src");
    CHECK_STATUS(xpose_reduce_variant("cpu-reduce", XPOSE_SUM, XPOSE_F64, x, 2, raw + 4), XPOSE_ERR_ALIGNMENT,
                 "misaligned result");
    CHECK_STATUS(xpose_reduce_variant("no-such-reduce", XPOSE_SUM, XPOSE_F32, x, 8, &r), XPOSE_ERR_UNKNOWN_VARIANT,
                 "unknown variant");
    CHECK_STATUS(xpose_reduce_variant("cpu-naive", XPOSE_SUM, XPOSE_F32, x, 8, &r), XPOSE_ERR_UNSUPPORTED,
                 "a transpose variant asked to reduce");
    xpose_layout lay = {2, 4, 4, 0, 0, 0, 0, 0};
    float out[8];
    CHECK_STATUS(xpose_transpose_variant("cpu-reduce", &lay, x, out), XPOSE_ERR_UNSUPPORTED,
                 "a reduction asked to transpose");
    CHECK_STATUS(xpose_reduce((xpose_backend)7, XPOSE_SUM, XPOSE_F32, x, 8, &r), XPOSE_ERR_INVALID, "bad backend");
    if (xpose_cuda_status() != XPOSE_OK) {
        int st = xpose_reduce_variant("reduce-fast", XPOSE_SUM, XPOSE_F32, x, 8, &r);
        CHECK(st == XPOSE_ERR_NO_DEVICE || st == XPOSE_ERR_NOT_BUILT, "GPU row without a GPU: status %d", st);
        st = xpose_reduce(XPOSE_BACKEND_CUDA, XPOSE_SUM, XPOSE_F32, x, 8, &r);
        CHECK(st == XPOSE_ERR_NO_DEVICE || st == XPOSE_ERR_NOT_BUILT, "CUDA backend without a GPU: status %d", st);
    }
}

/* The split never depends on the thread count: 1, 2 and the default give the same bits, run after run. */
static void thread_independence(void)
{
    const size_t n = ((size_t)1 << 20) + 5;
    for (int t = XPOSE_F32; t <= XPOSE_F64; t++) {
        void *host = malloc(n * 8);
        if (!host) {
            CHECK(0, "cannot allocate");
            return;
        }
        xr_fill((xpose_dtype)t, XR_WIDE, host, n, 99);
        uint64_t got[4] = {0, 0, 0, 0};
        static const int threads[4] = {1, 2, 0, 0};
        for (int k = 0; k < 4; k++) {
            xpose_set_threads(threads[k]);
            CHECK_STATUS(rc_run(&t_host_mem, "cpu-reduce", XPOSE_SUM, (xpose_dtype)t, host, n, 0, &got[k]), XPOSE_OK,
                         "threads %d", threads[k]);
        }
        CHECK(got[0] == got[1] && got[1] == got[2] && got[2] == got[3],
              "%s sum differs across thread counts: %016llx %016llx %016llx %016llx", rc_type_names[t],
              (unsigned long long)got[0], (unsigned long long)got[1], (unsigned long long)got[2],
              (unsigned long long)got[3]);
        free(host);
    }
    xpose_set_threads(0);
}

int main(int argc, char **argv)
{
    rc_set s;
    rc_collect(&s, &t_host_mem, XPOSE_BACKEND_CPU, argc > 1 ? argv[1] : NULL);
    CHECK(s.count > 0, "no CPU reduce variant registered");
    reference_rules();
    bad_arguments();
    rc_sweep(&s, ((size_t)1 << 20) + 1);
    rc_specials(&s);
    thread_independence();
    return t_finish("test_reduce");
}
