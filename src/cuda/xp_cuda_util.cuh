/* xp_cuda_util.cuh: error mapping and launch geometry helpers shared by the .cu files. */
#ifndef XP_CUDA_UTIL_CUH
#define XP_CUDA_UTIL_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include "xp_cuda.h"

/* A 16-byte element as one vector, so loads and stores of it are single 128-bit instructions. */
typedef uint4 xp_v16;

/* The element type that moves ES bytes as one access. */
template <int ES> struct XpElem;
template <> struct XpElem<1> {
    typedef uint8_t type;
};
template <> struct XpElem<2> {
    typedef uint16_t type;
};
template <> struct XpElem<4> {
    typedef uint32_t type;
};
template <> struct XpElem<8> {
    typedef uint64_t type;
};
template <> struct XpElem<16> {
    typedef uint4 type;
};

/* 16 bytes as one vector (u) or as their elements of type T (e): how a thread builds, splits or partly
 * loads and stores a 16-byte access. */
template <class T> union XpLanes {
    uint4 u;
    T e[16 / sizeof(T)];
};

/* XPOSE_OK, or XPOSE_ERR_CUDA (clearing the sticky-free error) when the last launch failed. */
static inline int xp_cuda_launch_status(void) { return cudaGetLastError() == cudaSuccess ? XPOSE_OK : XPOSE_ERR_CUDA; }

static inline int xp_cuda_status_of(cudaError_t e)
{
    if (e == cudaSuccess)
        return XPOSE_OK;
    return e == cudaErrorMemoryAllocation ? XPOSE_ERR_NO_MEMORY : XPOSE_ERR_CUDA;
}

static inline cudaStream_t xp_stream(const xp_call *c) { return (cudaStream_t)c->stream; }

/* Multiprocessor count and compute capability major of the current device, cached per device
 * (reduce_scratch.cu); 0 when there is no device. */
int xr_device_sms(int *major);
/* The same and the L2 size in bytes, under one look-up; all 0 when there is no device. */
void xr_device_facts(int *major, int *sms, size_t *l2_bytes);

/* Calls body<T>() with the element type of the call's element size. */
#define XP_DISPATCH_ELEM(es, BODY)                                                                                     \
    do {                                                                                                               \
        switch (es) {                                                                                                  \
        case 1: {                                                                                                      \
            typedef uint8_t T;                                                                                         \
            BODY;                                                                                                      \
        } break;                                                                                                       \
        case 2: {                                                                                                      \
            typedef uint16_t T;                                                                                        \
            BODY;                                                                                                      \
        } break;                                                                                                       \
        case 4: {                                                                                                      \
            typedef uint32_t T;                                                                                        \
            BODY;                                                                                                      \
        } break;                                                                                                       \
        case 8: {                                                                                                      \
            typedef uint64_t T;                                                                                        \
            BODY;                                                                                                      \
        } break;                                                                                                       \
        default: {                                                                                                     \
            typedef xp_v16 T;                                                                                          \
            BODY;                                                                                                      \
        } break;                                                                                                       \
        }                                                                                                              \
    } while (0)

#endif
