/* xp_inplace_math.h: the index arithmetic of the in-place transposes, one definition for the CPU code, the CUDA
 * kernels and the tests: the passes of the rectangular decomposition and a 32-bit division by invariant integers. */
#ifndef XP_INPLACE_MATH_H
#define XP_INPLACE_MATH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define XP_HD static inline __host__ __device__
#else
#define XP_HD static inline
#endif

/* n / d and n % d for every 32-bit n by a multiply and two shifts (Granlund and Montgomery 1994, figure 4.1):
 * the kernels divide every element's index, and a hardware division costs some twenty instructions. */
typedef struct xp_fdiv {
    uint32_t d, m, s1, s2;
} xp_fdiv;

/* d >= 1. */
XP_HD xp_fdiv xp_fdiv_make(uint32_t d)
{
    uint32_t l = 0;
    while (l < 32 && ((uint64_t)1 << l) < d)
        l++; /* ceil(log2 d) */
    xp_fdiv f;
    f.d = d;
    f.m = (uint32_t)(((uint64_t)1 << 32) * (((uint64_t)1 << l) - d) / d + 1);
    f.s1 = l < 1 ? l : 1;
    f.s2 = l > 1 ? l - 1 : 0;
    return f;
}

XP_HD uint32_t xp_fdiv_div(xp_fdiv f, uint32_t n)
{
#ifdef __CUDA_ARCH__
    uint32_t t = __umulhi(f.m, n);
#else
    uint32_t t = (uint32_t)(((uint64_t)f.m * n) >> 32);
#endif
    return (t + ((n - t) >> f.s1)) >> f.s2;
}

XP_HD uint32_t xp_fdiv_mod(xp_fdiv f, uint32_t n) { return n - xp_fdiv_div(f, n) * f.d; }

/* x y mod m for x, y < m < 2^31 by Barrett's reduction (inv = (2^64 - 1) / m): the kernels that walk the cycles of
 * a permutation take one a member, and a 64-bit remainder costs some sixty instructions. */
typedef struct xp_bmod {
    uint64_t m, inv;
} xp_bmod;

XP_HD xp_bmod xp_bmod_make(uint64_t m)
{
    xp_bmod b;
    b.m = m;
    b.inv = ~(uint64_t)0 / m;
    return b;
}

XP_HD uint64_t xp_bmod_mul(xp_bmod b, uint64_t x, uint64_t y)
{
    const uint64_t p = x * y;
#ifdef __CUDA_ARCH__
    uint64_t r = p - __umul64hi(p, b.inv) * b.m;
    while (r >= b.m)
        r -= b.m;
    return r;
#else
    return p % b.m;
#endif
}

/* Trailing zero bits of x > 0. */
XP_HD int xp_ctz(uint64_t x)
{
#ifdef __CUDA_ARCH__
    return __ffsll((long long)x) - 1;
#else
    return __builtin_ctzll(x);
#endif
}

/* gcd(a, b) by shifts and subtractions (Stein): the CPU's peel planner takes hundreds a call (4051 x 8101 float: 291 us
 * by Euclid's divisions and a whole plan a candidate, 19 us so). gcd(a, 0) = a. */
XP_HD size_t xp_gcd(size_t a, size_t b)
{
    if (!a || !b)
        return a | b;
    const int k = xp_ctz(a | b);
    a >>= xp_ctz(a);
    while (b) {
        b >>= xp_ctz(b);
        if (a > b) {
            const size_t t = a;
            a = b, b = t;
        }
        b -= a;
    }
    return a << k;
}

/* x^-1 mod m for gcd(x, m) = 1, m > 1 (extended Euclid). */
XP_HD uint64_t xp_mod_inverse(uint64_t x, uint64_t m)
{
    int64_t r0 = (int64_t)m, r1 = (int64_t)(x % m), t0 = 0, t1 = 1;
    while (r1) {
        const int64_t q = r0 / r1, r2 = r0 - q * r1, t2 = t0 - q * t1;
        r0 = r1, r1 = r2, t0 = t1, t1 = t2;
    }
    return (uint64_t)(t0 < 0 ? t0 + (int64_t)m : t0);
}

/* The rectangular in-place transpose of Catanzaro, Keller and Garland ("A Decomposition for In-place Matrix
 * Transposition", PPoPP 2014), in the form docs/variants.md derives. Its passes work on a view of the buffer as R rows
 * of C elements; each pass permutes elements within rows (a row pass) or within columns (a column pass), so one row,
 * or one strip of columns, is all that ever needs holding aside. Forward: the view holds an R x C matrix and ends
 * holding its C x R transpose. Inverse: the same passes undone in reverse order, so the view holds a C x R matrix and
 * ends holding its R x C transpose. xp_ckg_plan picks the form whose columns are the matrix's shorter side: columns
 * are the passes' expensive groups (strided, held whole in fast memory). */
typedef struct xp_ckg {
    size_t R, C;    /* the view */
    size_t c, a, b; /* gcd(R, C), R / c, C / c */
    int inverse;
} xp_ckg;

enum { XP_CKG_AUTO = 0, XP_CKG_FORWARD = 1, XP_CKG_INVERSE = 2 };

/* The plan that transposes a rows x cols matrix; form: XP_CKG_AUTO, or one form (a lab row's choice). */
XP_HD xp_ckg xp_ckg_plan(size_t rows, size_t cols, int form)
{
    xp_ckg k;
    k.inverse = form == XP_CKG_AUTO ? rows > cols : form == XP_CKG_INVERSE;
    k.R = k.inverse ? cols : rows;
    k.C = k.inverse ? rows : cols;
    k.c = xp_gcd(k.R, k.C);
    k.a = k.R / k.c;
    k.b = k.C / k.c;
    return k;
}

/* What a pass does to each group: in `gather` mode out(i, j) = in(f(i, j)), else (scatter) out(f(i, j)) = in(i, j),
 * where f moves an element along its column (ROT, PERM: f gives the row) or its row (SHUF: f gives the column). */
enum { XP_CKG_ROT = 0, XP_CKG_SHUF = 1, XP_CKG_PERM = 2 };

typedef struct xp_ckg_pass {
    int fn;     /* XP_CKG_ROT, _SHUF or _PERM; SHUF is the row pass */
    int gather; /* 1: gather, 0: scatter */
} xp_ckg_pass;

/* The passes in order, into out[0 .. 3); returns their count (2 where gcd(R, C) is 1: the first rotation is then
 * the identity). Forward: rotate columns, shuffle rows, permute columns; inverse: each undone, in reverse order. */
XP_HD int xp_ckg_passes(const xp_ckg *k, xp_ckg_pass out[3])
{
    int n = 0;
    if (!k->inverse && k->c > 1)
        out[n].fn = XP_CKG_ROT, out[n++].gather = 1;
    out[n].fn = k->inverse ? XP_CKG_PERM : XP_CKG_SHUF, out[n++].gather = 0;
    out[n].fn = k->inverse ? XP_CKG_SHUF : XP_CKG_PERM, out[n++].gather = 1;
    if (k->inverse && k->c > 1)
        out[n].fn = XP_CKG_ROT, out[n++].gather = 0;
    return n;
}

/* The rotation: row (i + j / b) mod R of column j (j / b < c <= R). */
XP_HD size_t xp_ckg_rot(const xp_ckg *k, size_t i, size_t j)
{
    size_t r = i + j / k->b;
    return r >= k->R ? r - k->R : r;
}

/* The row shuffle: column (j R + (i + j / b) mod R) mod C of row i. */
XP_HD size_t xp_ckg_shuf(const xp_ckg *k, size_t i, size_t j)
{
    return (j * k->R % k->C + xp_ckg_rot(k, i, j) % k->C) % k->C;
}

/* The row-independent part of the column permutation: p(i) = (i C - i / a) mod R. */
XP_HD size_t xp_ckg_p(const xp_ckg *k, size_t i)
{
    size_t x = i * k->C % k->R, q = i / k->a; /* q < c <= R */
    return x >= q ? x - q : x + k->R - q;
}

/* The column permutation: row (p(i) + j) mod R of column j. */
XP_HD size_t xp_ckg_perm(const xp_ckg *k, size_t i, size_t j)
{
    size_t r = xp_ckg_p(k, i) + j % k->R;
    return r >= k->R ? r - k->R : r;
}

#endif
