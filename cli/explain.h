/* explain.h: `xpose explain`'s CPU model of the GPU ladder kernels: their accesses, thread by thread, totals. */
#ifndef XPOSE_EXPLAIN_H
#define XPOSE_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

/* The kernel families the model has an access description for (src/cuda/ladder_naive.cu, ladder_tile.cuh). */
typedef enum { EX_NAIVE, EX_NAIVE_WRITE, EX_TILE } ex_family;
/* Shared-memory layouts of the tile kernel, as xp_tile_at in ladder_tile.cuh. */
typedef enum { EX_PLAIN, EX_SWIZZLE, EX_PAD } ex_layout;
/* What one memory instruction of one thread does: global load/store (byte address from its buffer's start, which
 * cudaMalloc aligns to 256 bytes) or shared load/store (byte offset in the block's tile). */
typedef enum { EX_GLD, EX_GST, EX_SLD, EX_SST } ex_kind;

typedef struct ex_access {
    ex_kind kind;
    int active; /* 0: this thread's guard skips it (the slot keeps lanes of a warp aligned) */
    unsigned size;
    uint64_t addr;
} ex_access;

/* The call, in elements, as xp_layout_check resolves it (dense defaults filled in). */
typedef struct ex_shape {
    size_t rows, cols, es, batch, lds, ldd, ss, sd;
} ex_shape;

typedef struct ex_kernel {
    ex_family fam;
    ex_layout layout;        /* EX_TILE only */
    int tile, side;          /* EX_TILE: TILE and SIDE */
    unsigned bdx, bdy;       /* threads per block */
    size_t tiles_x, tiles_y; /* what the kernel's x and y axes cover */
    unsigned gx, gy, gz;     /* the launch's grid, capped as xp_launch caps it */
    size_t smem;             /* dynamic shared memory per block, bytes */
} ex_kernel;

#define EX_MAX_SLOTS 16 /* memory instructions per thread: 4 * TILE / SIDE at most (64 / 16) */

/* Totals of one call (or of one block class). ways: the worst conflict degree of any shared instruction. */
typedef struct ex_stats {
    uint64_t gld_req, gld_sect, gld_bytes, gst_req, gst_sect, gst_bytes;
    uint64_t sld_req, sld_wave, sst_req, sst_wave;
    unsigned sld_ways, sst_ways;
    uint64_t tiles;
} ex_stats;

/* Sets up k for the family and parameters p0, p1 (the registry row's) on shape s: 0, or -1 where the CUDA side
 * instantiated no kernel for them. */
int ex_kernel_init(ex_kernel *k, ex_family fam, ex_layout layout, int p0, int p1, const ex_shape *s);
/* The access description: thread (tx, ty) of the block working on tile (bx, by) of member z writes its memory
 * instructions, in program order, into out; returns how many (the same for every thread of a kernel). */
int ex_describe(const ex_kernel *k, const ex_shape *s, size_t bx, size_t by, size_t z, int tx, int ty, ex_access *out);
/* Enumerates every tile of the call; exhaustive 0 computes each block class once (blocks whose addresses are the
 * same pattern shifted by a multiple of 32 bytes, with the same edge guards), 1 every block. 0, or -1 out of memory. */
int ex_run(const ex_kernel *k, const ex_shape *s, int exhaustive, ex_stats *out);
/* Bytes of the distinct 32-byte sectors of source and destination the call touches (each once). */
uint64_t ex_dram_bytes(const ex_shape *s);

/* explain_plan.c: `xpose explain fast[/params]`: the production kernel's plan for the call on `card`'s facts (NULL:
 * this GPU, else an H200's), in format fmt (cli.h's out_format, passed as int). 0, or a CLI exit status. */
int explain_fast(const char *id, const ex_shape *s, size_t src_off, size_t dst_off, const char *card, int fmt);
/* The card names --card takes, "h200|h100|...". */
int explain_card_names(char *buf, size_t n);

#endif
