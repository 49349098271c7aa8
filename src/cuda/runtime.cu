/* runtime.cu: device probing, pointer classification and stream sync for the core (C ABI). */
#include "xp_cuda_util.cuh"

static int probe_once(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        cudaGetLastError();
        return XPOSE_ERR_NO_DEVICE;
    }
    return XPOSE_OK;
}

extern "C" int xp_cuda_probe(void)
{
    static const int status = probe_once(); /* C++ guarantees a thread-safe one-time initialisation */
    return status;
}

extern "C" int xp_cuda_is_device_ptr(const void *p)
{
    cudaPointerAttributes a;
    if (!p || cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

/* XPOSE_OK where a kernel on device dev may dereference p, else XPOSE_ERR_POINTER. */
static int reachable(int dev, const void *p)
{
    cudaPointerAttributes a;
    int ok = 0;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return XPOSE_ERR_POINTER;
    }
    switch (a.type) {
    case cudaMemoryTypeManaged: return XPOSE_OK;
    case cudaMemoryTypeDevice:
        /* Another device's memory: reachable where peer access is possible (the caller must have enabled it). */
        if (a.device == dev || (cudaDeviceCanAccessPeer(&ok, dev, a.device) == cudaSuccess && ok))
            return XPOSE_OK;
        break;
    case cudaMemoryTypeHost:
        /* Pinned memory the kernel can use at the same address (mapped, under unified addressing). */
        if (a.devicePointer == p)
            return XPOSE_OK;
        break;
    default:
        /* Pageable memory: only on systems where the device reads it (HMM, ATS). */
        if (cudaDeviceGetAttribute(&ok, cudaDevAttrPageableMemoryAccess, dev) == cudaSuccess && ok)
            return XPOSE_OK;
        break;
    }
    cudaGetLastError();
    return XPOSE_ERR_POINTER;
}

extern "C" int xp_cuda_check_ptrs(const void *a, const void *b)
{
    int dev = 0, st = XPOSE_OK;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        return XPOSE_ERR_POINTER;
    }
    if (a)
        st = reachable(dev, a);
    if (st == XPOSE_OK && b)
        st = reachable(dev, b);
    return st;
}

extern "C" int xp_cuda_sync(void *stream) { return xp_cuda_status_of(cudaStreamSynchronize((cudaStream_t)stream)); }

extern "C" int xp_cuda_alloc(size_t bytes, void *stream, void **p)
{
    *p = NULL;
    if (cudaMallocAsync(p, bytes, (cudaStream_t)stream) != cudaSuccess || !*p) {
        cudaGetLastError();
        *p = NULL;
        return XPOSE_ERR_NO_MEMORY;
    }
    return XPOSE_OK;
}

extern "C" void xp_cuda_free(void *p, void *stream)
{
    if (p && cudaFreeAsync(p, (cudaStream_t)stream) != cudaSuccess)
        cudaGetLastError();
}
