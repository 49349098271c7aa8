/* reduce_scratch.cu: stream-ordered scratch for the GPU reductions (one memory pool per device) and the
 * cached device facts their grids are sized from. */
#include <mutex>
#include "reduce_ops.cuh"

#define XR_MAX_DEVICES 64

/* Pools and facts are made once per device under this lock and live as long as the process. */
static std::mutex dev_lock;
static struct {
    int state; /* 0: not looked at yet, 1: has a pool, -1: no pool support */
    cudaMemPool_t pool;
    int sms, major, l2;
} devs[XR_MAX_DEVICES];

/* Our own pool, not the device's default one, so its settings touch nothing of the caller's: it keeps up
 * to 32 MiB between calls (a call's partials then cost no allocation), and never makes one stream wait on
 * another's work to reuse memory. */
static int make_pool(int dev, cudaMemPool_t *pool)
{
    int ok = 0;
    if (cudaDeviceGetAttribute(&ok, cudaDevAttrMemoryPoolsSupported, dev) != cudaSuccess || !ok)
        return 0;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    if (cudaMemPoolCreate(pool, &props) != cudaSuccess)
        return 0;
    uint64_t keep = (uint64_t)32 << 20;
    int no = 0;
    cudaMemPoolSetAttribute(*pool, cudaMemPoolAttrReleaseThreshold, &keep);
    cudaMemPoolSetAttribute(*pool, cudaMemPoolReuseAllowInternalDependencies, &no);
    return 1;
}

/* The current device's index in devs, its entry filled on first sight; 0 when there is no device. */
static int current_device(int *dev)
{
    if (cudaGetDevice(dev) != cudaSuccess || *dev < 0 || *dev >= XR_MAX_DEVICES)
        return 0;
    std::lock_guard<std::mutex> guard(dev_lock);
    if (devs[*dev].state == 0) {
        cudaDeviceGetAttribute(&devs[*dev].sms, cudaDevAttrMultiProcessorCount, *dev);
        cudaDeviceGetAttribute(&devs[*dev].major, cudaDevAttrComputeCapabilityMajor, *dev);
        cudaDeviceGetAttribute(&devs[*dev].l2, cudaDevAttrL2CacheSize, *dev);
        devs[*dev].state = make_pool(*dev, &devs[*dev].pool) ? 1 : -1;
        cudaGetLastError(); /* a failed probe must not linger as the next launch's error */
    }
    return 1;
}

int xr_device_sms(int *major)
{
    int dev;
    if (!current_device(&dev))
        return 0;
    *major = devs[dev].major;
    return devs[dev].sms;
}

void xr_device_facts(int *major, int *sms, size_t *l2_bytes)
{
    int dev;
    *major = *sms = 0;
    *l2_bytes = 0;
    if (!current_device(&dev))
        return;
    *major = devs[dev].major;
    *sms = devs[dev].sms;
    *l2_bytes = devs[dev].l2 > 0 ? (size_t)devs[dev].l2 : 0;
}

int xr_scratch_get(size_t bytes, cudaStream_t s, xr_scratch *sc)
{
    int dev;
    sc->p = NULL;
    sc->pooled = 0;
    if (!current_device(&dev))
        return XPOSE_ERR_CUDA;
    cudaError_t e;
    if (devs[dev].state == 1) {
        sc->pooled = 1;
        e = cudaMallocFromPoolAsync(&sc->p, bytes, devs[dev].pool, s);
    } else {
        e = cudaMalloc(&sc->p, bytes);
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        sc->p = NULL;
        return e == cudaErrorMemoryAllocation ? XPOSE_ERR_NO_MEMORY : XPOSE_ERR_CUDA;
    }
    return XPOSE_OK;
}

int xr_scratch_put(xr_scratch *sc, cudaStream_t s, int st)
{
    if (!sc->p)
        return st;
    cudaError_t e;
    if (sc->pooled) {
        e = cudaFreeAsync(sc->p, s);
    } else {
        e = cudaStreamSynchronize(s);
        cudaError_t f = cudaFree(sc->p);
        e = e != cudaSuccess ? e : f;
    }
    sc->p = NULL;
    return st != XPOSE_OK ? st : xp_cuda_status_of(e);
}
