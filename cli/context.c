/* context.c: the circumstances of a bench run that its JSON records: build, date, CPU, GPU, command line, seed. */
#include <string.h>
#include <time.h>
#include "cli.h"

void cpu_model(char *buf, size_t n)
{
    snprintf(buf, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            const char *s = strchr(line, ':') + 1;
            size_t k = 0;
            for (; *s && *s != '\n' && k + 1 < n; s++)
                if (*s != ' ' || (k && buf[k - 1] != ' ')) /* runs of spaces, as some models pad them, to one */
                    buf[k++] = *s;
            while (k && buf[k - 1] == ' ')
                k--;
            buf[k] = 0;
            break;
        }
    fclose(f);
}

/* Appends s to buf (of n bytes, holding len), in single quotes where a shell would otherwise split or expand it, so
 * that the line can be pasted back; what does not fit is cut. */
static size_t append_arg(char *buf, size_t n, size_t len, const char *s)
{
    int plain = *s != '\0';
    for (const char *c = s; *c; c++)
        plain &= strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%", *c) != NULL;
    if (len >= n)
        return len;
    if (plain)
        return len + (size_t)snprintf(buf + len, n - len, " %s", s);
    len += (size_t)snprintf(buf + len, n - len, " '");
    for (; *s && len < n; s++) /* a quote inside: close, an escaped quote, reopen */
        len += (size_t)snprintf(buf + len, n - len, *s == '\'' ? "'\\''" : "%c", *s);
    return len < n ? len + (size_t)snprintf(buf + len, n - len, "'") : len;
}

void context_init(run_context *c, const bench_opts *o)
{
    memset(c, 0, sizeof *c);
    build_context(c);
    time_t now = time(NULL);
    struct tm utc;
    if (gmtime_r(&now, &utc))
        strftime(c->date, sizeof c->date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    cpu_model(c->cpu, sizeof c->cpu);
    gpu_identity(&c->gpu);
    size_t len = (size_t)snprintf(c->command, sizeof c->command, "xpose");
    for (int i = 0; i < o->argc; i++)
        len = append_arg(c->command, sizeof c->command, len, o->argv[i]);
    c->seed = o->seed;
}
