/* cpu_openblas.c: cpu-openblas and cpu-openblas-imatcopy, the library peers: OpenBLAS's out-of-place and in-place
 * transposed copies (?omatcopy, ?imatcopy). */
#include "peers.h"

#ifdef XPOSE_HAVE_OPENBLAS
#include <cblas.h>
#include <stdint.h>

/* blasint is 32-bit in the usual builds, 64-bit in the ILP64 ones: larger dimensions are declined. */
static int fits_blasint(size_t v) { return v <= (sizeof(blasint) >= 8 ? (size_t)INT64_MAX : (size_t)INT32_MAX); }

/* The peer moves floating-point values, not bits: ?omatcopy multiplies by alpha = 1, which quiets signalling NaNs,
 * and 16-byte elements are complex doubles multiplied by 1 + 0i, whose real part is a * 1 - b * 0: a NaN where the
 * imaginary part b is infinite, +0 for a = -0 with b < 0. The bench's random data is finite and verifies; callers who
 * need the bits use cpu-fast (what xpose_transpose runs). */
int xp_cpu_openblas(const xp_call *c)
{
    const xp_shape *s = &c->s;
    if (!fits_blasint(s->rows) || !fits_blasint(s->cols) || !fits_blasint(s->lds) || !fits_blasint(s->ldd))
        return XPOSE_ERR_UNSUPPORTED;
    blasint r = (blasint)s->rows, n = (blasint)s->cols, lds = (blasint)s->lds, ldd = (blasint)s->ldd;
    const double one[2] = {1.0, 0.0};
    for (size_t b = 0; b < s->batch; b++) {
        const unsigned char *src = (const unsigned char *)c->src + b * s->ss * s->es;
        unsigned char *dst = (unsigned char *)c->dst + b * s->sd * s->es;
        switch (s->es) {
        case 4:
            cblas_somatcopy(CblasRowMajor, CblasTrans, r, n, 1.0f, (const float *)src, lds, (float *)dst, ldd);
            break;
        case 8:
            cblas_domatcopy(CblasRowMajor, CblasTrans, r, n, 1.0, (const double *)src, lds, (double *)dst, ldd);
            break;
        case 16:
            cblas_zomatcopy(CblasRowMajor, CblasTrans, r, n, one, (const double *)src, lds, (double *)dst, ldd);
            break;
        default: return XPOSE_ERR_UNSUPPORTED;
        }
    }
    return XPOSE_OK;
}

/* ?imatcopy takes no workspace from the caller: for a rectangle it allocates a full-size temporary of its own. */
int xp_cpu_openblas_imatcopy(xp_inplace_call *c)
{
    if (!fits_blasint(c->rows) || !fits_blasint(c->cols))
        return XPOSE_ERR_UNSUPPORTED;
    c->need = c->need_min = 0;
    if (c->query)
        return XPOSE_OK;
    blasint r = (blasint)c->rows, n = (blasint)c->cols;
    const double one[2] = {1.0, 0.0};
    for (size_t b = 0; b < c->batch; b++) {
        void *a = (unsigned char *)c->data + b * c->rows * c->cols * c->es;
        switch (c->es) {
        case 4: cblas_simatcopy(CblasRowMajor, CblasTrans, r, n, 1.0f, (float *)a, n, r); break;
        case 8: cblas_dimatcopy(CblasRowMajor, CblasTrans, r, n, 1.0, (double *)a, n, r); break;
        case 16: cblas_zimatcopy(CblasRowMajor, CblasTrans, r, n, one, (double *)a, n, r); break;
        default: return XPOSE_ERR_UNSUPPORTED;
        }
    }
    return XPOSE_OK;
}
#endif
