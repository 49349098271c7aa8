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

/* Rows i < R move down from i `from` to i `to` bytes (to < from), in increasing i: a row overwrites only sources
 * already read, its own among them (memmove), except at the start of a thread's rows, where its output lies over the
 * previous thread's last rows: that part waits in the thread's slice until every thread has read its sources. Each
 * row's last from - to bytes go first to save + i (from - to) where save is not NULL; the last row's bytes past `end`
 * come from tail. */
static void rows_down(unsigned char *m, size_t R, size_t from, size_t to, size_t end, unsigned char *save,
                      const unsigned char *tail, unsigned char *ws, size_t slice, int nt)
{
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        const int t = xp_ip_thread(), n = nt > 1 ? nt : 1;
        size_t lo, hi;
        xp_ip_share(R, t, n, &lo, &hi);
        unsigned char *held = ws + (size_t)t * slice;
        const size_t h0 = lo * to, h1 = t == 0 ? h0 : lo * from < hi * to ? lo * from : hi * to;
        for (size_t i = lo; i < hi; i++) {
            const size_t s = i * from, len = s + to > end ? end - s : to;
            if (save)
                memcpy(save + i * (from - to), m + s + to, from - to);
            put(m, i * to, m + s, len, held, h0, h1);
            if (len < to)
                memcpy(m + i * to + len, tail, to - len);
        }
#pragma omp barrier
        if (h1 > h0)
            memcpy(m + h0, held, h1 - h0);
    }
}

/* Rows i < R move up from i `from` to i `to` bytes (from < to), in decreasing i, each followed by column i of the
 * k x R matrix cols where k > 0; the last row's bytes past `end` are left out (the caller has them). A thread's output
 * past its own sources (over the next thread's first rows) waits in slice t + 1 until a barrier. */
static void rows_up(unsigned char *m, size_t R, size_t from, size_t to, size_t end, const unsigned char *cols, size_t k,
                    size_t es, unsigned char *ws, size_t slice, int nt)
{
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        const int t = xp_ip_thread(), n = nt > 1 ? nt : 1;
        size_t lo, hi;
        xp_ip_share(R, t, n, &lo, &hi);
        unsigned char *held = ws + (size_t)(t + 1) * slice;
        const size_t h1 = hi * to < end ? hi * to : end;
        const size_t h0 = t == n - 1 ? h1 : hi * from > lo * to ? hi * from : lo * to;
        _Alignas(16) unsigned char col[64 * 16]; /* k <= XP_PEEL_MAX */
        for (size_t i = hi; i-- > lo;) {
            const size_t d = i * to, len = d + from > end ? end - d : from;
            put(m, d, m + i * from, len, held, h0, h1);
            for (size_t q = 0; q < k; q++)
                memcpy(col + q * es, cols + (q * R + i) * es, es);
            if (k)
                put(m, d + from, col, k * es, held, h0, h1);
        }
#pragma omp barrier
        if (h1 > h0)
            memcpy(m + h0, held, h1 - h0);
    }
}

void xp_cpu_peel_cols(unsigned char *m, size_t R, size_t C, size_t kc, size_t es, unsigned char *ws, size_t slice,
                      int nt)
{
    const size_t keep = (C - kc) * es;
    /* Row i to i (C - kc), its last kc elements into slice 0 (R x kc); then those columns, kc x R, into the last kc
     * rows of the result. */
    rows_down(m, R, C * es, keep, R * C * es, ws, NULL, ws, slice, nt);
    xp_fast_pick_isa()->region[0][xp_elem_index(es)](ws, kc * es, R, kc, m + R * keep, R * es);
}

void xp_cpu_peel_rows_back(unsigned char *m, size_t R, size_t C, size_t kr, size_t es, unsigned char *ws, size_t slice,
                           int nt)
{
    const size_t in = (R - kr) * es, out = R * es;
    /* The kr x C peeled rows into slice 0; row j of the inner result to j R, with their column j after it. */
    memcpy(ws, m + C * in, kr * C * es);
    rows_up(m, C, in, out, C * out, ws, kr, es, ws, slice, nt);
}

void xp_cpu_widen_rows(unsigned char *m, size_t R, size_t C, size_t es, unsigned char *tail, unsigned char *ws,
                       size_t slice, int nt)
{
    const size_t in = C * es, end = R * in;
    /* The last row's part past the matrix first: its source is where the rows' moves up will write. */
    memcpy(tail, m + end - (R - 1) * es, (R - 1) * es);
    rows_up(m, R, in, in + es, end, NULL, 0, es, ws, slice, nt);
}

void xp_cpu_narrow_rows(unsigned char *m, size_t R, size_t C, size_t es, const unsigned char *tail, unsigned char *ws,
                        size_t slice, int nt)
{
    rows_down(m, R, (C + 1) * es, C * es, R * C * es, NULL, tail, ws, slice, nt);
}
