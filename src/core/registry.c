/* registry.c: joins the backends' variant tables into one registry, and answers look-ups over it. */
#include <string.h>
#include "xp_internal.h"

/* Each backend publishes one table; adding a family of variants is one line here plus its table. */
extern const xp_variant_table xp_cpu_table;          /* src/cpu/cpu_variants.c: naive, blocked, memcpy */
extern const xp_variant_table xp_cpu_fast_table;     /* src/cpu/cpu_fast_variants.c: cpu-fast */
extern const xp_variant_table xp_cpu_reduce_table;   /* src/cpu/reduce_variants.c */
extern const xp_variant_table xp_cuda_ladder_table;  /* src/cuda/ladder_variants.c: the seeds' GPU steps */
extern const xp_variant_table xp_cuda_fast_table;    /* src/cuda/fast_variants.c: the production kernel */
extern const xp_variant_table xp_cuda_table;         /* src/cuda/cuda_variants.c: memcpy */
extern const xp_variant_table xp_cuda_reduce_table;  /* src/cuda/reduce_variants.c */
extern const xp_variant_table xp_cpu_inplace_table;  /* src/cpu/cpu_inplace_variants.c: in-place transposes */
extern const xp_variant_table xp_cuda_inplace_table; /* src/cuda/inplace_variants.c */

/* The library's own tables, then room for the tables a program adds (the CLI's peers): the last slots. */
#define XP_OWN_TABLES 9
#define XP_MAX_TABLES (XP_OWN_TABLES + 2)
static const xp_variant_table *tables[XP_MAX_TABLES] = {
    &xp_cpu_table,  &xp_cpu_fast_table,    &xp_cpu_reduce_table,  &xp_cuda_ladder_table,  &xp_cuda_fast_table,
    &xp_cuda_table, &xp_cuda_reduce_table, &xp_cpu_inplace_table, &xp_cuda_inplace_table,
};
static size_t ntables = XP_OWN_TABLES;

int xp_registry_add(const xp_variant_table *t)
{
    if (!t || ntables == XP_MAX_TABLES)
        return XPOSE_ERR_INVALID;
    for (size_t k = XP_OWN_TABLES; k < ntables; k++)
        if (tables[k] == t)
            return XPOSE_ERR_INVALID;
    tables[ntables++] = t;
    return XPOSE_OK;
}

int xp_variant_total(void)
{
    size_t n = 0;
    for (size_t t = 0; t < ntables; t++)
        n += tables[t]->count;
    return (int)n;
}

const xp_variant *xp_variant_row(int i)
{
    if (i < 0)
        return NULL;
    size_t k = (size_t)i;
    for (size_t t = 0; t < ntables; t++) {
        if (k < tables[t]->count)
            return &tables[t]->rows[k];
        k -= tables[t]->count;
    }
    return NULL;
}

/* "name/params" matches one row; a bare "name" matches the first row of that name. */
static int row_matches(const xp_variant *v, const char *id)
{
    size_t n = strlen(v->name);
    if (strncmp(id, v->name, n) != 0)
        return 0;
    if (id[n] == '\0')
        return 1;
    return id[n] == '/' && strcmp(id + n + 1, v->params) == 0;
}

int xpose_variant_find(const char *id)
{
    if (!id)
        return XPOSE_ERR_NULL;
    int total = xp_variant_total();
    for (int i = 0; i < total; i++)
        if (row_matches(xp_variant_row(i), id))
            return i;
    return XPOSE_ERR_UNKNOWN_VARIANT;
}

const xp_variant *xp_variant_lookup(const char *id, int *status)
{
    int i = xpose_variant_find(id);
    *status = i < 0 ? i : XPOSE_OK;
    return i < 0 ? NULL : xp_variant_row(i);
}

int xpose_variant_count(void) { return xp_variant_total(); }

int xpose_variant_get(int i, xpose_variant_info *info)
{
    const xp_variant *v = xp_variant_row(i);
    if (!v || !info)
        return XPOSE_ERR_INVALID;
    info->name = v->name;
    info->params = v->params;
    info->about = v->about;
    info->backend = v->backend;
    info->family = v->family;
    info->elem_sizes = v->family == XPOSE_FAMILY_REDUCE ? 0u : v->elem_sizes;
    info->available = 1;
    info->why_not = "";
    info->threaded = v->backend == XPOSE_BACKEND_CPU && !v->one_thread;
    int built = v->family == XPOSE_FAMILY_REDUCE    ? v->reduce != NULL
                : v->family == XPOSE_FAMILY_INPLACE ? v->inplace != NULL
                                                    : v->transpose != NULL;
    int st = v->backend == XPOSE_BACKEND_CUDA ? xp_cuda_probe() : XPOSE_OK;
    if (st != XPOSE_OK) {
        info->available = 0;
        info->why_not = st == XPOSE_ERR_NOT_BUILT ? "CUDA backend not built" : "no CUDA device";
    } else if (!built) {
        info->available = 0;
        info->why_not = "optional library not found at build time";
    }
    return XPOSE_OK;
}

int xpose_cuda_status(void) { return xp_cuda_probe(); }
