/* cpu_inplace_peel.c: the peels of the CPU rectangular in-place transpose: the passes that take the last columns or
 * rows off a matrix before its transpose and put them into the result after it (docs/variants.md, "Peels"). */
#include <stdint.h>
#include <string.h>
#include "cpu_fast.h"
#include "cpu_inplace.h"

/* Writes n bytes from src to offset d of m, the part of [d, d + n) inside [h0, h1) into held + (x - h0) instead:
 * a thread's writes over sources another thread may not have read yet wait in its buffer until a barrier. */
static void put(unsigned char *m, size_t d, const unsigned char *src, size_t n, unsigned char *held, size_t h0,
                size_t h1)
{
    const size_t e = d + n, a = h0 < d ? d : h0 > e ? e : h0, b = h1 < a ? a : h1 > e ? e : h1;
    const int up =
        (uintptr_t)(m + d) > (uintptr_t)src; /* moving up: the parts in decreasing order, as memmove copies */
    if (a > d && !up)
        memmove(m + d, src, a - d);
    if (e > b && up)
        memmove(m + b, src + (b - d), e - b);
    if (b > a)
        memcpy(held + (a - h0), src + (a - d), b - a);
    if (a > d && up)
        memmove(m + d, src, a - d);
    if (e > b && !up)
        memmove(m + b, src + (b - d), e - b);
}

void xp_cpu_peel_cols(unsigned char *m, size_t R, size_t C, size_t kc, size_t es, unsigned char *ws, size_t slice,
                      int nt)
{
    const size_t keep = (C - kc) * es, tail = kc * es, pitch = C * es;
    unsigned char *tails = ws; /* R x kc, slice 0 */
    /* Row i moves down from i C to i (C - kc), in increasing i: it overwrites only sources already read, its own
     * row's among them (memmove), except at the start of a thread's rows, where its output lies over the previous
     * thread's last rows: that part waits in the thread's slice until every thread has read its sources. */
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        const int t = xp_ip_thread(), n = nt > 1 ? nt : 1;
        size_t lo, hi;
        xp_ip_share(R, t, n, &lo, &hi);
        unsigned char *held = ws + (size_t)t * slice;
        const size_t h0 = lo * keep, h1 = t == 0 ? h0 : lo * pitch < hi * keep ? lo * pitch : hi * keep;
        for (size_t i = lo; i < hi; i++) {
            memcpy(tails + i * tail, m + i * pitch + keep, tail);
            put(m, i * keep, m + i * pitch, keep, held, h0, h1);
        }
#pragma omp barrier
        if (h1 > h0)
            memcpy(m + h0, held, h1 - h0);
        if (t == 0) /* the columns, kc x R, into the last kc rows of the result */
            xp_fast_pick_isa()->region[0][xp_elem_index(es)](tails, tail, R, kc, m + R * keep, R * es);
    }
}

void xp_cpu_peel_rows_back(unsigned char *m, size_t R, size_t C, size_t kr, size_t es, unsigned char *ws, size_t slice,
                           int nt)
{
    const size_t r1 = R - kr, in = r1 * es, out = R * es;
    unsigned char *rows = ws; /* the kr x C peeled rows, slice 0 */
    memcpy(rows, m + C * in, kr * C * es);
    /* Row j of the inner result moves up from j (R - kr) to j R, in decreasing j, and takes the peeled rows' column j
     * after it; a thread's output past its own sources (over the next thread's first rows) waits in slice t + 1. */
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        const int t = xp_ip_thread(), n = nt > 1 ? nt : 1;
        size_t lo, hi;
        xp_ip_share(C, t, n, &lo, &hi);
        unsigned char *held = ws + (size_t)(t + 1) * slice;
        const size_t h1 = hi * out, h0 = t == n - 1 ? h1 : hi * in > lo * out ? hi * in : lo * out;
        _Alignas(16) unsigned char col[64 * 16]; /* kr <= XP_PEEL_MAX */
        for (size_t j = hi; j-- > lo;) {
            put(m, j * out, m + j * in, in, held, h0, h1);
            for (size_t q = 0; q < kr; q++)
                memcpy(col + q * es, rows + (q * C + j) * es, es);
            put(m, j * out + in, col, kr * es, held, h0, h1);
        }
#pragma omp barrier
        if (h1 > h0)
            memcpy(m + h0, held, h1 - h0);
    }
}

void xp_cpu_widen_rows(unsigned char *m, size_t R, size_t C, size_t es, unsigned char *tail, unsigned char *ws,
                       size_t slice, int nt)
{
    const size_t in = C * es, out = in + es, end = R * in;
    /* The last row's part past the matrix first: its source is where the rows' moves up will write. */
    memcpy(tail, m + end - (R - 1) * es, (R - 1) * es);
    /* Row i moves up from i C to i (C + 1), in decreasing i, as in xp_cpu_peel_rows_back: a thread's output past its
     * own sources (over the next thread's first rows) waits in slice t + 1 until a barrier. */
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        const int t = xp_ip_thread(), n = nt > 1 ? nt : 1;
        size_t lo, hi;
        xp_ip_share(R, t, n, &lo, &hi);
        unsigned char *held = ws + (size_t)(t + 1) * slice;
        const size_t h1 = hi * out < end ? hi * out : end, h0 = t == n - 1           ? h1
                                                                : hi * in > lo * out ? hi * in
                                                                                     : lo * out;
        for (size_t i = hi; i-- > lo;) {
            const size_t d = i * out, len = d + in > end ? end - d : in;
            put(m, d, m + i * in, len, held, h0, h1);
        }
#pragma omp barrier
        if (h1 > h0)
            memcpy(m + h0, held, h1 - h0);
    }
}

void xp_cpu_narrow_rows(unsigned char *m, size_t R, size_t C, size_t es, const unsigned char *tail, unsigned char *ws,
                        size_t slice, int nt)
{
    const size_t in = C * es, out = in + es, end = R * in;
    /* Row i moves down from i (C + 1) to i C, in increasing i, as in xp_cpu_peel_cols: a thread's output below its own
     * sources (over the previous thread's last rows) waits in its slice until a barrier. */
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        const int t = xp_ip_thread(), n = nt > 1 ? nt : 1;
        size_t lo, hi;
        xp_ip_share(R, t, n, &lo, &hi);
        unsigned char *held = ws + (size_t)t * slice;
        const size_t h0 = lo * in, h1 = t == 0 ? h0 : lo * out < hi * in ? lo * out : hi * in;
        for (size_t i = lo; i < hi; i++) {
            const size_t s = i * out, len = s + in > end ? end - s : in;
            put(m, i * in, m + s, len, held, h0, h1);
            if (len < in) /* the last row: its elements past the matrix come from tail */
                memcpy(m + i * in + len, tail, in - len);
        }
#pragma omp barrier
        if (h1 > h0)
            memcpy(m + h0, held, h1 - h0);
    }
}
