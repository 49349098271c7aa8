/* explain_plan.c: `xpose explain fast`: the production transpose's plan for a call (src/cuda/fast_plan.c) on this GPU
 * or on a named card's facts, and the rule that chose it; nothing runs on a GPU. */
#include <string.h>
#include "cli.h"
#include "explain.h"
#include "../src/cuda/fast.h"
#include "../src/cuda/fast_geometry.h"
#include "../src/cuda/fast_plan.h"
#include "../src/core/xp_permute.h"

int explain_card_names(char *buf, size_t n)
{
    size_t used = 0;
    for (size_t i = 0; i < xp_fast_card_count && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? "|" : "", xp_fast_cards[i].name);
    return 0;
}

/* The facts of card `card` (NULL: this GPU where there is one, else the H200's); 0, or CLI_EXIT_USAGE. */
static int facts_for(const char *card, xp_fast_facts *d, char *about, size_t n)
{
    if (!card) {
        char name[128];
        if (gpu_facts(name, sizeof name, &d->major, &d->sms, &d->l2_bytes)) {
            snprintf(about, n, "%s (this GPU: sm_%d0, %u SMs, %zu MiB L2)", name, d->major, d->sms, d->l2_bytes >> 20);
            return 0;
        }
        card = "h200";
    }
    for (size_t i = 0; i < xp_fast_card_count; i++)
        if (!strcmp(card, xp_fast_cards[i].name)) {
            *d = xp_fast_cards[i].facts;
            snprintf(about, n, "%s", xp_fast_cards[i].about);
            return 0;
        }
    char names[128];
    explain_card_names(names, sizeof names);
    fprintf(stderr, "xpose explain: unknown --card '%s' (one of %s)\n", card, names);
    return CLI_EXIT_USAGE;
}

int explain_fast(const char *id, const ex_shape *s, size_t src_off, size_t dst_off, const char *card, int format)
{
    const out_format fmt = (out_format)format;
    int i = xpose_variant_find(id);
    xpose_variant_info v;
    if (i < 0 || xpose_variant_get(i, &v) != XPOSE_OK || strcmp(v.name, "fast") != 0) {
        fprintf(stderr, "xpose explain: no fast row '%s' (xpose list shows them)\n", id);
        return CLI_EXIT_USAGE;
    }
    const xp_variant *row = xp_variant_row(i);
    xp_fast_facts d;
    char about[256];
    int st = facts_for(card, &d, about, sizeof about);
    if (st)
        return st;
    xpose_layout lay = {s->rows, s->cols, s->es, s->lds, s->ldd, s->batch, s->ss, s->sd};
    xp_call c;
    memset(&c, 0, sizeof c);
    if ((st = xp_layout_check(&lay, &c.s)) != XPOSE_OK) {
        fprintf(stderr, "xpose explain: %s\n", xpose_strerror(st));
        return CLI_EXIT_USAGE;
    }
    /* Only the pointers' alignment matters to the plan: cudaMalloc's 256 bytes, plus the offsets asked for. */
    c.src = (const void *)(uintptr_t)(((uintptr_t)1 << 40) + src_off);
    c.dst = (void *)(uintptr_t)(((uintptr_t)1 << 41) + dst_off);
    c.p0 = row->p0;
    c.p1 = row->p1;
    xp_fast_plan p;
    if ((st = xp_fast_plan_make(&c, &d, &p)) != XPOSE_OK) {
        fprintf(stderr, "xpose explain: %s plans no kernel for this call: %s\n", id, xpose_strerror(st));
        return 1;
    }
    char vid[96];
    variant_id(&v, vid, sizeof vid);
    const int copy = p.path == XP_FAST_PATH_COPY || p.path == XP_FAST_PATH_COPY_2D;
    if (fmt == FMT_JSON) {
        printf("{\"results\": [{\"variant\": \"%s\", \"rows\": %zu, \"cols\": %zu, \"elem_size\": %zu, \"batch\": %zu, "
               "\"card\": \"%s\", "
               "\"path\": \"%s\", \"rule\": \"%s\", \"tile_rows\": %u, \"tile_cols\": %u, \"window_rows\": %u, "
               "\"tiles\": %zu, \"grid\": [%u, %u], \"one_tile_a_block\": %u, \"cluster\": %u, \"blocks_per_sm\": %u, "
               "\"smem_bytes\": %zu, \"band\": %u, \"walks\": %u, \"skew_stride\": %u, \"halo\": %u, \"tall\": %u, "
               "\"vector_rows\": %d, \"copy_bytes\": %zu}]}\n",
               vid, s->rows, s->cols, s->es, s->batch, about, xp_fast_path_name(p.path), p.rule, p.tile_r, p.tile_c,
               p.extra, p.tiles, p.grid_x, p.grid_y, p.direct, p.cluster, p.blocks_per_sm, p.smem, p.band,
               1u << p.walks_log2, p.skew_stride, p.halo, p.tall, p.vec, p.copy_bytes);
        return 0;
    }
    if (fmt == FMT_CSV || fmt == FMT_MD) {
        const char *sep = fmt == FMT_CSV ? "," : " | ", *lead = fmt == FMT_CSV ? "" : "| ",
                   *tail = fmt == FMT_CSV ? "" : " |";
        printf(
            "%svariant%spath%srule%stile%swindow_rows%stiles%sgrid%scluster%sblocks_per_sm%ssmem_bytes%sband%swalks%s"
            "skew_stride%s\n",
            lead, sep, sep, sep, sep, sep, sep, sep, sep, sep, sep, sep, sep, tail);
        if (fmt == FMT_MD)
            printf("|---|---|---|---|--:|--:|---|--:|--:|--:|--:|--:|--:|\n");
        printf("%s%s%s%s%s%s%s%ux%u%s%u%s%zu%s%ux%u%s%u%s%u%s%zu%s%u%s%u%s%u%s\n", lead, vid, sep,
               xp_fast_path_name(p.path), sep, p.rule, sep, p.tile_r, p.tile_c, sep, p.extra, sep, p.tiles, sep,
               p.grid_x, p.grid_y, sep, p.cluster, sep, p.blocks_per_sm, sep, p.smem, sep, p.band, sep,
               1u << p.walks_log2, sep, p.skew_stride, tail);
        return 0;
    }
    printf("%s on %zu x %zu, %zu-byte elements%s, planned for %s\n", vid, s->rows, s->cols, s->es,
           s->batch > 1 ? " (batch)" : "", about);
    printf("  path         %s\n  rule         %s (docs/tuning.md)\n", xp_fast_path_name(p.path), p.rule);
    if (p.path == XP_FAST_PATH_NARROW) {
        xp_perm perm;
        char what[256] = "described where the CUDA backend is built";
        if (xp_fast_narrow_perm(&c, &perm) == XPOSE_OK)
            xp_cuda_permute_describe(&perm, what, sizeof what);
        printf("  kernels      the permutation kernels: %s\n", what);
        return 0;
    }
    if (copy) {
        printf("  copy         %zu bytes%s, no kernel\n", p.copy_bytes,
               p.path == XP_FAST_PATH_COPY_2D ? " a member (cudaMemcpy2DAsync)" : " (cudaMemcpyAsync)");
        return 0;
    }
    printf("  tile         %u x %u elements", p.tile_r, p.tile_c);
    if (p.extra)
        printf(", windows reaching %u rows past it", p.extra);
    if (p.path == XP_FAST_PATH_SHIFT)
        printf(" (halo %u%s)", p.halo, p.tall ? ", tall" : "");
    if (p.path == XP_FAST_PATH_SKEW)
        printf(" (shared-memory row stride %u bytes)", p.skew_stride);
    printf("\n  tiles        %zu x %zu a matrix, %zu in all; rows %s on 16-byte vectors\n", p.tiles_r, p.tiles_c,
           p.tiles, p.vec ? "all" : "not all");
    if (p.direct)
        printf("  grid         %u x %u, one tile a block", p.grid_x, p.grid_y);
    else
        printf("  grid         %u blocks over numbered tiles", p.grid_x);
    printf("%s\n", p.cluster > 1 ? "" : ", no clusters");
    if (p.cluster > 1)
        printf("  clusters     %u blocks along x%s\n", p.cluster, p.whole ? ", meeting before they store" : "");
    printf("  blocks       %u threads, %zu bytes of shared memory, built for %u blocks per SM\n", FAST_THREADS, p.smem,
           p.blocks_per_sm);
    printf("  order        %s, %u column walk%s\n",
           p.band == 0   ? "row by row"
           : p.band == 1 ? "down single tile columns"
                         : "bands of tile columns",
           1u << p.walks_log2, p.walks_log2 ? "s" : "");
    return 0;
}
