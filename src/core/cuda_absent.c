/* cuda_absent.c: what the core sees of CUDA when the CUDA backend is not built. */
#include "xp_internal.h"

int xp_cuda_probe(void) { return XPOSE_ERR_NOT_BUILT; }
int xp_cuda_is_device_ptr(const void *p) { (void)p; return 0; }
int xp_cuda_sync(void *stream) { (void)stream; return XPOSE_OK; }
