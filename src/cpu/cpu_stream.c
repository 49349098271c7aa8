/* cpu_stream.c: cpu-stream, a threaded copy with non-temporal stores: the CPU copy bound that cpu-fast's streaming
 * stores are measured against (glibc's memcpy reads each destination line before writing it). */
#include <stdlib.h>
#include <string.h>
#include "cpu_fast.h"
#if XP_FAST_X86
#include <immintrin.h>
#endif

#define XPS_CHUNK ((size_t)1 << 20) /* bytes per scheduled chunk, as cpu-memcpy's; a multiple of the line */

#if XP_FAST_X86
static void lines_sse2(unsigned char *d, const unsigned char *s, size_t n)
{
    for (size_t k = 0; k < n; k += XPF_LINE)
        for (size_t b = 0; b < XPF_LINE; b += 16)
            _mm_stream_si128((__m128i *)(d + k + b), _mm_loadu_si128((const __m128i *)(s + k + b)));
}

__attribute__((target("avx2"))) static void lines_avx2(unsigned char *d, const unsigned char *s, size_t n)
{
    for (size_t k = 0; k < n; k += XPF_LINE) {
        __m256i lo = _mm256_loadu_si256((const __m256i *)(s + k));
        __m256i hi = _mm256_loadu_si256((const __m256i *)(s + k + 32));
        _mm256_stream_si256((__m256i *)(d + k), lo);
        _mm256_stream_si256((__m256i *)(d + k + 32), hi);
    }
}

__attribute__((target("avx512f"))) static void lines_avx512(unsigned char *d, const unsigned char *s, size_t n)
{
    for (size_t k = 0; k < n; k += XPF_LINE)
        _mm512_stream_si512((void *)(d + k), _mm512_loadu_si512((const void *)(s + k)));
}

/* The widest set the CPU has, capped by XPOSE_CPU_ISA=scalar|avx2|avx512 as cpu-fast's is (scalar: SSE2 here, the
 * x86-64 baseline, since a copy without streaming stores is cpu-memcpy's). */
xp_stream_lines_fn xp_stream_lines_pick(void)
{
    int level = xp_cpu_isa_cap();
    __builtin_cpu_init();
    if (level >= 2 && __builtin_cpu_supports("avx512f"))
        return lines_avx512;
    if (level >= 1 && __builtin_cpu_supports("avx2"))
        return lines_avx2;
    return lines_sse2;
}

/* Copies [off, off + n) of the line-aligned body: whole lines streamed, the partial line at the end (the body's
 * last chunk only) with ordinary stores. */
static void copy_chunk(xp_stream_lines_fn lines, unsigned char *d, const unsigned char *s, size_t n)
{
    size_t whole = n & ~(size_t)(XPF_LINE - 1);
    lines(d, s, whole);
    memcpy(d + whole, s + whole, n - whole);
}

int xp_cpu_stream(const xp_call *c)
{
    const unsigned char *src = c->src;
    unsigned char *dst = c->dst;
    size_t bytes = c->s.batch * c->s.rows * c->s.cols * c->s.es;
    /* The head up to dst's first line boundary takes ordinary stores; every chunk after it starts on a line, so no
     * two threads write one line. */
    size_t head = -(uintptr_t)dst & (XPF_LINE - 1);
    head = head < bytes ? head : bytes;
    memcpy(dst, src, head);
    dst += head, src += head, bytes -= head;
    xp_stream_lines_fn lines = xp_stream_lines_pick();
    long long chunks = (long long)((bytes + XPS_CHUNK - 1) / XPS_CHUNK);
    if (bytes < XP_CPU_SERIAL_BYTES) {
        copy_chunk(lines, dst, src, bytes);
        _mm_sfence();
        return XPOSE_OK;
    }
#pragma omp parallel num_threads(xpose_get_threads())
    {
#pragma omp for schedule(static)
        for (long long k = 0; k < chunks; k++) {
            size_t off = (size_t)k * XPS_CHUNK, n = bytes - off < XPS_CHUNK ? bytes - off : XPS_CHUNK;
            copy_chunk(lines, dst + off, src + off, n);
        }
        _mm_sfence(); /* streaming stores are weakly ordered: each thread publishes its own before the call returns */
    }
    return XPOSE_OK;
}

void xp_stream_fence(void) { _mm_sfence(); }
#else
/* No streaming stores to ask for portably: the copy is cpu-memcpy's. */
int xp_cpu_stream(const xp_call *c) { return xp_cpu_memcpy(c); }
xp_stream_lines_fn xp_stream_lines_pick(void) { return NULL; }
void xp_stream_fence(void) {}
#endif
