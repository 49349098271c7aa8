/* fast.cu: the production GPU transpose (`fast`): asks the planner (fast_plan.c) which path, tiles, grid and
 * clusters a call takes, and launches that kernel (fast_kernels.cuh; tile order: fast_order.cuh). */
#include "fast.h"

#include "fast_kernels.cuh"
#include "fast_plan.h"
#include "../core/xp_permute.h"

/* Launches plan p: `kernel` over numbered tiles of geometry G, or `direct` (one tile a block on the 2-D grid) where
 * the plan takes the 2-D grid. */
template <class G> static int run(const xp_fast_plan &p, const xp_call *c, void (*kernel)(const FastArgs),
                                  void (*direct)(const TileArgs) = 0)
{
    static_assert(G::ES >= 1, "a tile geometry");
    const xp_shape *s = &c->s;
    FastArgs a;
    a.src = (const char *)c->src;
    a.dst = (char *)c->dst;
    a.rows = s->rows, a.cols = s->cols, a.lds = s->lds, a.ldd = s->ldd, a.ss = s->ss, a.sd = s->sd;
    a.band = p.band;
    a.vec = p.vec;
    a.tiles_r = p.tiles_r, a.tiles_c = p.tiles_c, a.tiles = p.tiles;
    a.walks_log2 = p.walks_log2;
    if (p.tiles == 0)
        return XPOSE_OK;
    if (p.tile_r != G::TR || p.tile_c != G::TC || (p.direct && !direct) || !set_divisors(a))
        return XPOSE_ERR_UNSUPPORTED; /* a plan this launcher has no kernel for */
    const void *fn = p.direct ? (const void *)direct : (const void *)kernel;
    if (p.smem > 48 * 1024 &&
        cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p.smem) != cudaSuccess)
        return XPOSE_ERR_CUDA;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(p.grid_x, p.grid_y);
    cfg.blockDim = dim3(FAST_THREADS);
    cfg.dynamicSmemBytes = p.smem;
    cfg.stream = xp_stream(c);
    cudaLaunchAttribute at;
    if (p.cluster > 1) {
        at.id = cudaLaunchAttributeClusterDimension;
        at.val.clusterDim.x = p.cluster;
        at.val.clusterDim.y = 1;
        at.val.clusterDim.z = 1;
        cfg.attrs = &at;
        cfg.numAttrs = 1;
    }
    if ((p.direct ? cudaLaunchKernelEx(&cfg, direct, (const TileArgs &)a) : cudaLaunchKernelEx(&cfg, kernel, a)) !=
        cudaSuccess)
        return XPOSE_ERR_CUDA;
    return xp_cuda_launch_status();
}

/* The skewed kernel at the plan's shared-memory row stride (one instantiation per stride the planner's tables
 * hold). */
template <int ES, int RS> static int run_skew(const xp_fast_plan &p, const xp_call *c)
{
    return run<typename SkewGeo<ES>::G>(p, c, fast_skew_kernel<ES, RS>);
}

template <int ES> static int launch_skew(const xp_fast_plan &p, const xp_call *c)
{
    switch (p.skew_stride) {
    case 131:
        if constexpr (ES == 1)
            return run_skew<ES, 131>(p, c);
        break;
    case 135:
        if constexpr (ES == 1)
            return run_skew<ES, 135>(p, c);
        break;
    case 137:
        if constexpr (ES == 1)
            return run_skew<ES, 137>(p, c);
        break;
    case 145:
        if constexpr (ES == 1)
            return run_skew<ES, 145>(p, c);
        break;
    case 157:
        if constexpr (ES == 1)
            return run_skew<ES, 157>(p, c);
        break;
    case 165:
        if constexpr (ES == 1)
            return run_skew<ES, 165>(p, c);
        break;
    case 260:
        if constexpr (ES == 4)
            return run_skew<ES, 260>(p, c);
        break;
    case 262:
        if constexpr (ES == 2)
            return run_skew<ES, 262>(p, c);
        break;
    case 264:
        if constexpr (ES == 4 || ES == 8)
            return run_skew<ES, 264>(p, c);
        break;
    case 266:
        if constexpr (ES == 2)
            return run_skew<ES, 266>(p, c);
        break;
    case 268:
        if constexpr (ES == 4)
            return run_skew<ES, 268>(p, c);
        break;
    case 272:
        if constexpr (ES == 16)
            return run_skew<ES, 272>(p, c);
        break;
    case 274:
        if constexpr (ES == 2)
            return run_skew<ES, 274>(p, c);
        break;
    case 286:
        if constexpr (ES == 2)
            return run_skew<ES, 286>(p, c);
        break;
    case 290:
        if constexpr (ES == 2)
            return run_skew<ES, 290>(p, c);
        break;
    }
    return XPOSE_ERR_UNSUPPORTED;
}

/* 1-byte shifted tiles: windows of 0, 16 (short or tall tiles) or 32 rows. */
static int launch_shift(const xp_fast_plan &p, const xp_call *c)
{
    switch (p.halo) {
    case 0: return run<ShiftGeo<0>::G>(p, c, fast_shift_kernel<0, false>);
    case 16:
        return p.tall ? run<ShiftGeo<16, true>::G>(p, c, fast_shift_kernel<16, true>, fast_shift_direct<16, true>)
                      : run<ShiftGeo<16>::G>(p, c, fast_shift_kernel<16, false>, fast_shift_direct<16, false>);
    case 32: return run<ShiftGeo<32>::G>(p, c, fast_shift_kernel<32, false>, fast_shift_direct<32, false>);
    }
    return XPOSE_ERR_UNSUPPORTED;
}

template <int ES> static int launch(const xp_fast_plan &p, const xp_call *c)
{
    typedef Geo<ES> Fast;
    typedef Geo<ES, SmallTile<ES>::TR, SmallTile<ES>::TC> Small;
    enum { NB_SMALL = XP_SMALL_BLOCKS(ES), NB_LAB = XP_SMALL_LAB_BLOCKS(ES) };
    switch (p.path) {
    case XP_FAST_PATH_SKEW: return launch_skew<ES>(p, c);
    case XP_FAST_PATH_SMALL:
        return run<Small>(p, c, fast_kernel<Small, NB_SMALL, true>, fast_kernel_direct<Small, NB_SMALL>);
    case XP_FAST_PATH_SMALL_LAB: return run<Small>(p, c, fast_kernel<Small, NB_LAB, false>);
    case XP_FAST_PATH_PLAIN: return run<Fast>(p, c, fast_kernel<Fast>);
    default: break;
    }
    if constexpr (ES == 1) {
        switch (p.path) {
        case XP_FAST_PATH_SHIFT: return launch_shift(p, c);
        case XP_FAST_PATH_SECTOR: return run<SectorGeo::G>(p, c, fast_sector_kernel, fast_sector_direct);
        case XP_FAST_PATH_BYTE_PAIRS:
            return run<Fast>(p, c, fast_kernel<Fast>,
                             p.whole ? fast_kernel_direct<Fast, 4, true> : fast_kernel_direct<Fast, 4>);
        default: break;
        }
    }
    if constexpr (ES == 4 || ES == 16)
        if (p.path == XP_FAST_PATH_SPLIT)
            return run<Fast>(p, c, fast_kernel<Fast>, fast_kernel_split<Fast>);
    if constexpr (ES == 4)
        if (p.path == XP_FAST_PATH_ONE_WAVE)
            return run<Fast>(p, c, fast_kernel<Fast>, fast_kernel_direct<Fast, XP_ONE_WAVE_BLOCKS>);
    if constexpr (ES >= 4)
        if (p.path == XP_FAST_PATH_WIDE) {
            typedef Geo<ES, WideTile<ES>::TR, WideTile<ES>::TC> Wide;
            return run<Wide>(p, c, fast_kernel<Wide>);
        }
    if constexpr (ES >= 8) {
        typedef Geo<ES, DenseTile<ES>::TR, DenseTile<ES>::TC> Dense;
        enum { NB = DenseTile<ES>::BLOCKS };
        if (p.path == XP_FAST_PATH_SYNCED)
            return run<Dense>(p, c, fast_kernel<Dense, NB>, fast_kernel_direct<Dense, NB, true, true>);
        if (p.path == XP_FAST_PATH_DENSE)
            return run<Dense>(p, c, fast_kernel<Dense, NB>, fast_kernel_direct<Dense, NB>);
    } else if (p.path == XP_FAST_PATH_SYNCED) {
        return run<Fast>(p, c, fast_kernel<Fast, 4>, fast_kernel_direct<Fast, 4, true, true>);
    }
    return XPOSE_ERR_UNSUPPORTED;
}

static int run_copy(const xp_fast_plan &p, const xp_call *c)
{
    const xp_shape *s = &c->s;
    const cudaError_t e = p.path == XP_FAST_PATH_COPY
                              ? cudaMemcpyAsync(c->dst, c->src, p.copy_bytes, cudaMemcpyDeviceToDevice, xp_stream(c))
                              : cudaMemcpy2DAsync(c->dst, s->sd * s->es, c->src, s->ss * s->es, p.copy_bytes, s->batch,
                                                  cudaMemcpyDeviceToDevice, xp_stream(c));
    return xp_cuda_status_of(e);
}

/* A narrow matrix, run by the permutation kernels. */
static int run_narrow(const xp_call *c)
{
    xp_perm p;
    const int st = xp_fast_narrow_perm(c, &p);
    return st != XPOSE_OK ? st : xp_cuda_permute(&p, c->src, c->dst, c->stream);
}

extern "C" int xp_cuda_fast(const xp_call *c)
{
    xp_fast_facts d;
    int sms;
    xr_device_facts(&d.major, &sms, &d.l2_bytes);
    d.sms = (unsigned)sms;
    xp_fast_plan p;
    int st = xp_fast_plan_make(c, &d, &p);
    if (st != XPOSE_OK)
        return st;
    switch (p.path) {
    case XP_FAST_PATH_COPY:
    case XP_FAST_PATH_COPY_2D: return run_copy(p, c);
    case XP_FAST_PATH_NARROW: return run_narrow(c);
    default: break;
    }
    switch (c->s.es) {
    case 1: return launch<1>(p, c);
    case 2: return launch<2>(p, c);
    case 4: return launch<4>(p, c);
    case 8: return launch<8>(p, c);
    default: return launch<16>(p, c);
    }
}
