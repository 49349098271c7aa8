/* gpu_mem.h: device memory for the GPU suites, as a t_mem (allocation, copies and poison checked). */
#ifndef XPOSE_GPU_MEM_H
#define XPOSE_GPU_MEM_H

#include "testing.h"

extern const t_mem t_dev_mem;

#endif
