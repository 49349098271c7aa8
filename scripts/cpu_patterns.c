/* cpu_patterns.c: what one core's memory does with a copy's access patterns and with a byte transpose's, no shuffles.
 *
 * Build and run (x86-64, SSE2 only): gcc -O2 -o /tmp/cpu_patterns scripts/cpu_patterns.c && /tmp/cpu_patterns [N]
 *
 * An N x N byte matrix (default 8192, 64 MiB) is read and written in 64-byte lines, cold (a read of 80 MiB before each
 * run), one thread, the median of 5 runs. Rows: reads in order; streaming (non-temporal) stores in order; the copy
 * of both; then a byte transpose's lines: 64 x 64-byte blocks, a block reading one line of each of 64 source rows
 * (asking for the line 256 bytes on, as cpu-fast's blocks do) and storing one line into each of 64 destination rows,
 * blocks across the source rows (reads) or down them (stores in order along destination rows); reads alone, stores
 * alone, both. "added" is the time of the two alone, summed: a row near it overlaps nothing. Last, reads alone of 16 or
 * 64 rows at a time, along whole rows or 1 KiB of them (a tile's width); then the pattern of a band ring (AVX2's bands
 * in cpu-fast, without the shuffles): R rows x W bytes a tile, read 16 rows at a time along W, each 16-byte piece
 * stored into its column's slot of a ring in cache, then R bytes of each of the W destination rows streamed out; and
 * a line ring: 16 rows x W bytes read a line at a time, each line stored whole into the ring (as a 16 x 64 transpose's
 * registers would be, 4 destination rows' 16-byte pieces a line), then each destination line gathered from the 4
 * ring lines of its 64 source rows and streamed out (16-byte pieces instead of a lane shuffle). */
#define _POSIX_C_SOURCE 199309L
#include <emmintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t N = 8192;
static unsigned char *A, *B, *F;
#define FLUSH ((size_t)80 << 20)
#define AHEAD 256

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void flush(void)
{
    volatile unsigned char sink = 0;
    for (size_t i = 0; i < FLUSH; i += 64)
        sink ^= F[i];
    (void)sink;
}

static __m128i load_line(const unsigned char *p)
{
    const __m128i *q = (const __m128i *)p;
    return _mm_xor_si128(_mm_xor_si128(_mm_load_si128(q), _mm_load_si128(q + 1)),
                         _mm_xor_si128(_mm_load_si128(q + 2), _mm_load_si128(q + 3)));
}

static void stream_line(unsigned char *p, __m128i v)
{
    __m128i *q = (__m128i *)p;
    _mm_stream_si128(q, v), _mm_stream_si128(q + 1, v), _mm_stream_si128(q + 2, v), _mm_stream_si128(q + 3, v);
}

static volatile int sink; /* read by nothing, but its stores keep the loads */

static void seq(int rd, int wr)
{
    __m128i acc = _mm_setzero_si128();
    for (size_t i = 0; i < N * N; i += 64) {
        if (rd)
            acc = _mm_xor_si128(acc, load_line(A + i));
        if (wr)
            stream_line(B + i, acc);
    }
    _mm_sfence();
    sink = _mm_cvtsi128_si32(acc);
}

/* down: blocks down the source rows, so each destination row's lines are stored in order */
static void blocks(int rd, int wr, int down)
{
    __m128i acc = _mm_setzero_si128();
    for (size_t outer = 0; outer < N; outer += 64)
        for (size_t inner = 0; inner < N; inner += 64) {
            const size_t i = down ? inner : outer, j = down ? outer : inner; /* source rows i.., bytes j.. */
            for (size_t k = 0; k < 64; k++) {
                if (rd) {
                    const unsigned char *s = A + (i + k) * N + j;
                    __builtin_prefetch(s + AHEAD, 0, 2);
                    acc = _mm_xor_si128(acc, load_line(s));
                }
                if (wr)
                    stream_line(B + (j + k) * N + i, acc);
            }
        }
    _mm_sfence();
    sink = _mm_cvtsi128_si32(acc);
}

/* Reads only, rows r at a time: a line of each of the r rows in turn, then the next line along, w bytes of the rows
 * before the next r rows (w = N: whole rows), asking for the line 256 bytes on: how many row streams at once, and how
 * long a run along each, the core reads at full speed. */
static void row_reads(size_t r, size_t w)
{
    __m128i acc = _mm_setzero_si128();
    for (size_t jb = 0; jb < N; jb += w)
        for (size_t i = 0; i < N; i += r)
            for (size_t j = jb; j < jb + w; j += 64)
                for (size_t k = 0; k < r; k++) {
                    const unsigned char *s = A + (i + k) * N + j;
                    __builtin_prefetch(s + AHEAD, 0, 2);
                    acc = _mm_xor_si128(acc, load_line(s));
                }
    sink = _mm_cvtsi128_si32(acc);
}

static unsigned char *RING;
#define RING_BYTES ((size_t)4 << 20)

/* A band ring's traffic: tiles of r source rows by w bytes; a column's slot holds its r bytes (256 more apart, as
 * cpu-fast's, so the slots do not share cache sets). */
static void ring(size_t r, size_t w)
{
    const size_t slot = r + 256;
    for (size_t jb = 0; jb < N; jb += w)
        for (size_t i0 = 0; i0 < N; i0 += r) {
            for (size_t s0 = 0; s0 < r; s0 += 16)
                for (size_t j = 0; j < w; j += 64)
                    for (size_t k = 0; k < 16; k++) {
                        const __m128i *q = (const __m128i *)(A + (i0 + s0 + k) * N + jb + j);
                        __builtin_prefetch((const unsigned char *)q + AHEAD, 0, 2);
                        for (size_t p = 0; p < 4; p++) /* 16 columns' piece: a 16 x 16 transpose's output */
                            _mm_store_si128((__m128i *)(RING + (j + 16 * p + k) * slot + s0), _mm_load_si128(q + p));
                    }
            for (size_t c = 0; c < w; c++)
                for (size_t l = 0; l < r; l += 64) {
                    const __m128i *q = (const __m128i *)(RING + c * slot + l);
                    __m128i *d = (__m128i *)(B + (jb + c) * N + i0 + l);
                    for (int p = 0; p < 4; p++)
                        _mm_stream_si128(d + p, _mm_load_si128(q + p));
                }
        }
    _mm_sfence();
}

/* The line ring's traffic: tiles of r source rows by w bytes (r x w bytes of ring, whole lines). */
static void line_ring(size_t r, size_t w)
{
    const size_t P = r / 16; /* passes of 16 rows; ring line (c, m, p): 64-byte chunk c, register m, pass p */
    for (size_t jb = 0; jb < N; jb += w)
        for (size_t i0 = 0; i0 < N; i0 += r) {
            for (size_t p = 0; p < P; p++)
                for (size_t c = 0; c < w / 64; c++)
                    for (size_t m = 0; m < 16; m++) {
                        const __m128i *q = (const __m128i *)(A + (i0 + 16 * p + m) * N + jb + 64 * c);
                        __m128i *d = (__m128i *)(RING + ((c * 16 + m) * P + p) * 64);
                        __builtin_prefetch((const unsigned char *)q + AHEAD, 0, 2);
                        for (int k = 0; k < 4; k++)
                            _mm_store_si128(d + k, _mm_load_si128(q + k));
                    }
            for (size_t c = 0; c < w / 64; c++)
                for (size_t m = 0; m < 16; m++)
                    for (size_t l = 0; l < 4; l++)
                        for (size_t g = 0; g < P / 4; g++) {
                            const __m128i *q = (const __m128i *)(RING + ((c * 16 + m) * P + 4 * g) * 64);
                            __m128i *d = (__m128i *)(B + (jb + 64 * c + 16 * l + m) * N + i0 + 64 * g);
                            for (int k = 0; k < 4; k++)
                                _mm_stream_si128(d + k, _mm_load_si128(q + 4 * k + l));
                        }
        }
    _mm_sfence();
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double timed(int what)
{
    double t[5];
    for (int r = 0; r < 5; r++) {
        flush();
        const double t0 = now();
        switch (what) {
        case 0: seq(1, 0); break;
        case 1: seq(0, 1); break;
        case 2: seq(1, 1); break;
        case 9: row_reads(16, N); break;
        case 10: row_reads(64, N); break;
        case 11: row_reads(16, 1024); break;
        case 12: row_reads(64, 1024); break;
        case 13: ring(64, 4096); break;
        case 14: ring(256, 1024); break;
        case 15: line_ring(64, 4096); break;
        case 16: line_ring(128, 2048); break;
        default: blocks((what - 3) % 3 != 1, (what - 3) % 3 != 0, what >= 6); break;
        }
        t[r] = now() - t0;
    }
    qsort(t, 5, sizeof t[0], cmp);
    return t[2] * 1e3;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        N = (size_t)atol(argv[1]) / 1024 * 1024;
    if (N < 1024) {
        fprintf(stderr, "cpu_patterns: N must be at least 1024\n");
        return 2;
    }
    A = aligned_alloc(4096, N * N), B = aligned_alloc(4096, N * N), F = malloc(FLUSH);
    RING = aligned_alloc(4096, RING_BYTES);
    if (!A || !B || !F || !RING) {
        fprintf(stderr, "cpu_patterns: out of memory\n");
        return 1;
    }
    memset(A, 1, N * N), memset(B, 2, N * N), memset(F, 3, FLUSH), memset(RING, 4, RING_BYTES);
    static const char *const names[] = {"reads in order",
                                        "streaming stores in order",
                                        "copy (both)",
                                        "transpose reads, across",
                                        "transpose stores, across",
                                        "transpose both, across",
                                        "transpose reads, down",
                                        "transpose stores, down",
                                        "transpose both, down",
                                        "reads, 16 rows, whole rows",
                                        "reads, 64 rows, whole rows",
                                        "reads, 16 rows, 1 KiB",
                                        "reads, 64 rows, 1 KiB",
                                        "band ring, 64 x 4096",
                                        "band ring, 256 x 1024",
                                        "line ring, 64 x 4096",
                                        "line ring, 128 x 2048"};
    double ms[17];
    printf("%zu x %zu bytes, one thread, cold, median of 5\n%-28s %9s %8s %8s\n", N, N, "pattern", "ms", "GB/s",
           "added");
    for (int w = 0; w < 17; w++) {
        ms[w] = timed(w);
        const int both = w == 2 || w == 5 || w == 8;
        printf("%-28s %9.2f %8.1f", names[w], ms[w], (double)N * N / ms[w] / 1e6);
        if (both)
            printf(" %7.0f%%", 100 * ms[w] / (ms[w - 2] + ms[w - 1]));
        printf("\n");
    }
    free(A), free(B), free(F), free(RING);
    return 0;
}
