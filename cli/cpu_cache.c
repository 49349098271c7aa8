/* cpu_cache.c: the CPU's cache sizes, from the kernel's sysfs where it has them (sysconf's are often wrong on VMs). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

/* One line of a sysfs file, without its newline; 0 where it cannot be read. */
static int read_line(const char *dir, const char *name, char *buf, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(buf, (int)n, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

/* "48K", "2048K", "32M" (sysfs' size files) in bytes; 0 where unreadable. */
static size_t parse_cache_size(const char *s)
{
    char unit = '\0';
    unsigned long long v;
    if (sscanf(s, "%llu%c", &v, &unit) < 1)
        return 0;
    return (size_t)v * (unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : unit == 'G' ? 1024 * 1024 * 1024 : 1);
}

/* cpu0's caches as the kernel lists them (index0, index1, ...): data and unified ones per level, summed where a
 * level has more than one. sysconf reads the CPUID leaves, which a hypervisor may fill with the host's figures
 * (a 256 MiB L3 on VMs whose lscpu says 32 MiB), so the kernel's are taken first. */
static int read_sysfs(size_t size[4])
{
    int found = 0;
    for (int i = 0; i < 16; i++) {
        char dir[128], level[16], type[32], sz[32];
        snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu0/cache/index%d", i);
        if (!read_line(dir, "level", level, sizeof level) || !read_line(dir, "type", type, sizeof type) ||
            !read_line(dir, "size", sz, sizeof sz))
            break;
        int l = level[0] - '0';
        if (l < 1 || l > 3 || !strcmp(type, "Instruction"))
            continue;
        size[l] += parse_cache_size(sz);
        found = 1;
    }
    return found;
}

void cpu_caches_read(cpu_caches *c)
{
    static cpu_caches cached; /* the bench asks once per run; the files do not change */
    if (!cached.source) {
        size_t size[4] = {0, 0, 0, 0};
        cached.source = "sysfs";
        if (!read_sysfs(size)) {
            long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
            long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
            size[1] = l1 > 0 ? (size_t)l1 : 0;
            size[2] = l2 > 0 ? (size_t)l2 : 0;
            size[3] = l3 > 0 ? (size_t)l3 : 0;
            cached.source = "sysconf";
        }
        cached.l1d = size[1];
        cached.l2 = size[2];
        cached.l3 = size[3];
    }
    *c = cached;
}
