/* build_info.c: what this binary was built from and with (CMake passes it in), for --version and the bench's JSON. */
#include "cli.h"

/* Defaults for a compile outside CMake's build, which passes each of these. */
#ifndef XPOSE_BUILD_TYPE
#define XPOSE_BUILD_TYPE "unknown"
#endif
#ifndef XPOSE_GIT_COMMIT
#define XPOSE_GIT_COMMIT "unknown"
#endif
#ifndef XPOSE_CUDA_ARCHS
#define XPOSE_CUDA_ARCHS "none"
#endif
#ifndef XPOSE_BUILD_OPENMP
#define XPOSE_BUILD_OPENMP 0
#endif
#ifndef XPOSE_BUILD_OPENBLAS
#define XPOSE_BUILD_OPENBLAS 0
#endif
#ifdef XPOSE_HAVE_CUDA
#define BUILD_CUDA 1
#else
#define BUILD_CUDA 0
#endif

static const char *yes_no(int v) { return v ? "yes" : "no"; }

void build_context(run_context *c)
{
    c->version = xpose_version();
    c->commit = XPOSE_GIT_COMMIT;
    c->build_type = XPOSE_BUILD_TYPE;
    c->cuda_archs = XPOSE_CUDA_ARCHS;
    c->openmp = XPOSE_BUILD_OPENMP;
}

/* The first line starts "xpose VERSION " (scripts match it); the peers are what the bench can time beside xpose. */
void print_version(FILE *f)
{
    fprintf(f,
            "xpose %s (ABI %d)\ncommit: %s\nbuild: %s, CUDA backend %s, CUDA architectures %s, OpenMP %s\n"
            "peers: cpu-openblas %s, cublas-geam %s\n",
            xpose_version(), XPOSE_ABI_VERSION, XPOSE_GIT_COMMIT, XPOSE_BUILD_TYPE, yes_no(BUILD_CUDA),
            XPOSE_CUDA_ARCHS, yes_no(XPOSE_BUILD_OPENMP), yes_no(XPOSE_BUILD_OPENBLAS), yes_no(BUILD_CUDA));
}
