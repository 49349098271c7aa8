/* info.c: `xpose list` (every variant, its parameters, whether it runs here) and `xpose info`. */
#include <string.h>
#include <unistd.h>
#include "cli.h"

static const char *family_name(xpose_family f)
{
    return f == XPOSE_FAMILY_COPY      ? "copy"
           : f == XPOSE_FAMILY_REDUCE  ? "reduce"
           : f == XPOSE_FAMILY_INPLACE ? "inplace"
                                       : "transpose";
}

static void elem_list(unsigned mask, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int k = 0; k < 5; k++)
        if (mask & (1u << k)) {
            size_t len = strlen(buf);
            snprintf(buf + len, n - len, "%s%d", len ? "," : "", 1 << k);
        }
    if (!buf[0])
        snprintf(buf, n, "-");
}

int cmd_list(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            puts("usage: xpose list\nLists every variant: name/params, backend, family, element sizes, whether it "
                 "can run here, and what it changes.");
            return 0;
        }
        fprintf(stderr, "xpose: unknown option '%s' for list\n", argv[i]);
        return CLI_EXIT_USAGE;
    }
    printf("%-22s %-5s %-9s %-11s %-22s %s\n", "variant", "where", "family", "elem", "runs here", "what it does");
    for (int i = 0; i < xpose_variant_count(); i++) {
        xpose_variant_info v;
        char id[64], el[24];
        xpose_variant_get(i, &v);
        variant_id(&v, id, sizeof id);
        elem_list(v.elem_sizes, el, sizeof el);
        printf("%-22s %-5s %-9s %-11s %-22s %s\n", id, v.backend == XPOSE_BACKEND_CUDA ? "cuda" : "cpu",
               family_name(v.family), el, v.available ? "yes" : v.why_not, v.about);
    }
    return 0;
}

int cmd_info(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            puts("usage: xpose info\nPrints the xpose version, the CPU, its cache sizes and thread count, and the GPU "
                 "and driver "
                 "if any.");
            return 0;
        }
        fprintf(stderr, "xpose: unknown option '%s' for info\n", argv[i]);
        return CLI_EXIT_USAGE;
    }
    char cpu[256], gpu[512];
    cpu_model(cpu, sizeof cpu);
    gpu_describe(gpu, sizeof gpu);
    printf("xpose %s\n", xpose_version());
    printf("cpu: %s, %ld cores online, %d threads for CPU variants\n", cpu, sysconf(_SC_NPROCESSORS_ONLN),
           xpose_get_threads());
    cpu_caches cc;
    cpu_caches_read(&cc);
    printf("cpu caches: L1d %zu KiB, L2 %zu KiB, L3 %zu KiB (from %s)\n", cc.l1d >> 10, cc.l2 >> 10, cc.l3 >> 10,
           cc.source);
    printf("gpu: %s\n", gpu);
    int openblas = xpose_variant_find("cpu-openblas");
    xpose_variant_info v;
    printf("openblas peer: %s\n",
           openblas >= 0 && xpose_variant_get(openblas, &v) == XPOSE_OK && v.available ? "yes" : "not built");
    return 0;
}
