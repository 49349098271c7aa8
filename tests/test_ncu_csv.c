/* test_ncu_csv.c: the reader of `ncu --csv --page raw` output behind `xpose explain --ncu` (cli/ncu_csv.c), on a
 * sample in ncu's format (tests/ncu_sample.csv: the program's and ncu's own lines first, metric columns sorted by
 * name, a unit line, values with thousands separators, two launches) and on hand-made variations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ncu_csv.h"

static int fails, checks;
#define CHECK(c)                                                                                                       \
    do {                                                                                                               \
        checks++;                                                                                                      \
        if (!(c)) {                                                                                                    \
            fails++;                                                                                                   \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                                               \
        }                                                                                                              \
    } while (0)

static int near(double a, double b) { return a > b * (1 - 1e-12) && a < b * (1 + 1e-12); }

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = 0;
    fclose(f);
    return buf;
}

/* A CSV of one launch whose metrics are in ncu_metric_names' order, with the given units and values. */
static void make(char *buf, size_t n, const char *const units[NCU_NMETRICS], const char *const vals[NCU_NMETRICS],
                 const char *eol)
{
    size_t len = (size_t)snprintf(buf, n, "\"ID\",\"Process ID\",\"Process Name\",\"Kernel Name\"");
    for (int m = 0; m < NCU_NMETRICS; m++)
        len += (size_t)snprintf(buf + len, n - len, ",\"%s\"", ncu_metric_names[m]);
    len += (size_t)snprintf(buf + len, n - len, "%s\"\",\"\",\"\",\"\"", eol);
    for (int m = 0; m < NCU_NMETRICS; m++)
        len += (size_t)snprintf(buf + len, n - len, ",\"%s\"", units[m]);
    len += (size_t)snprintf(buf + len, n - len,
                            "%s\"3\",\"77\",\"xpose\",\"void xp_tile_kernel<float, 32, 8, 2>"
                            "(xp_mat<float>) \"\"q\"\"\"",
                            eol);
    for (int m = 0; m < NCU_NMETRICS; m++)
        len += (size_t)snprintf(buf + len, n - len, ",\"%s\"", vals[m]);
    snprintf(buf + len, n - len, "%s", eol);
}

int main(int argc, char **argv)
{
    ncu_result r;
    char why[256], line[256];
    static char buf[1 << 14];

    /* The sample: the first launch's row, every metric found by name whatever the column order. */
    char *sample = read_all(argc > 1 ? argv[1] : "ncu_sample.csv");
    CHECK(sample != NULL);
    if (sample) {
        CHECK(ncu_parse_csv(sample, &r, why, sizeof why) == 0);
        CHECK(r.v[NCU_LD_SECT] == 33554432.0);
        CHECK(r.v[NCU_LD_REQ] == 8388608.0);
        CHECK(r.v[NCU_ST_SECT] == 134217728.0);
        CHECK(r.v[NCU_ST_REQ] == 8388608.0);
        CHECK(r.v[NCU_SLD_WAVE] == 0 && r.v[NCU_SST_WAVE] == 0 && r.v[NCU_SLD_CONF] == 0 && r.v[NCU_SST_CONF] == 0);
        CHECK(r.v[NCU_DRAM_RD] == 1073776640.0);
        CHECK(r.v[NCU_DRAM_WR] == 1073751296.0);
        CHECK(!strcmp(r.kernel, "void naive_kernel<float, false>(xp_mat<float>)"));
        free(sample);
    }

    /* Units with prefixes (ncu's default printing, decimal), CRLF line ends, a quote inside a quoted field. */
    const char *units[NCU_NMETRICS] = {"Msector", "Krequest", "sector", "request", "",      "",
                                       "",        "",         "",       "",        "Gbyte", "Mbyte"};
    const char *vals[NCU_NMETRICS] = {"33.55", "8,388.61", "33,554,432", "8388608",   "16,777,216", "16,777,216",
                                      "0",     "1,234",    "8,388,608",  "8,388,609", "1.07",       "1,073.75"};
    make(buf, sizeof buf, units, vals, "\r\n");
    CHECK(ncu_parse_csv(buf, &r, why, sizeof why) == 0);
    CHECK(near(r.v[NCU_LD_SECT], 33.55e6));
    CHECK(near(r.v[NCU_LD_REQ], 8388.61e3));
    CHECK(r.v[NCU_ST_SECT] == 33554432.0);
    CHECK(r.v[NCU_SLD_WAVE] == 16777216.0);
    CHECK(r.v[NCU_SST_CONF] == 1234.0);
    CHECK(r.v[NCU_SLD_WAVE_SASS] == 8388608.0 && r.v[NCU_SST_WAVE_SASS] == 8388609.0);
    CHECK(near(r.v[NCU_DRAM_RD], 1.07e9));
    CHECK(near(r.v[NCU_DRAM_WR], 1073.75e6));
    CHECK(!strcmp(r.kernel, "void xp_tile_kernel<float, 32, 8, 2>(xp_mat<float>) \"q\""));

    /* A metric ncu could not collect, one missing, no header, a header and no launch. */
    vals[4] = "n/a";
    make(buf, sizeof buf, units, vals, "\n");
    CHECK(ncu_parse_csv(buf, &r, why, sizeof why) == -1 && strstr(why, ncu_metric_names[4]) && strstr(why, "n/a"));
    vals[4] = "0";
    make(buf, sizeof buf, units, vals, "\n");
    char *col = strstr(buf, "dram__bytes_write.sum");
    CHECK(col != NULL);
    if (col)
        col[0] = 'X';
    CHECK(ncu_parse_csv(buf, &r, why, sizeof why) == -1 && strstr(why, "dram__bytes_write.sum"));
    CHECK(ncu_parse_csv("==PROF== Disconnected from process 1\n==WARNING== No kernels were profiled.\n", &r, why,
                        sizeof why) == -1);
    make(buf, sizeof buf, units, vals, "\n");
    *strstr(buf, "\"3\",\"77\"") = 0;
    CHECK(ncu_parse_csv(buf, &r, why, sizeof why) == -1 && strstr(why, "no kernel row"));
    CHECK(ncu_parse_csv("", &r, why, sizeof why) == -1);

    /* The raw page's width: hundreds of attribute columns before the metrics (the smsp__ ones sort last). */
    {
        static char wide[1 << 16];
        size_t len = (size_t)snprintf(wide, sizeof wide, "\"ID\",\"Process ID\",\"Kernel Name\"");
        for (int k = 0; k < 600; k++)
            len += (size_t)snprintf(wide + len, sizeof wide - len, ",\"device__attribute_%d\"", k);
        for (int m = 0; m < NCU_NMETRICS; m++)
            len += (size_t)snprintf(wide + len, sizeof wide - len, ",\"%s\"", ncu_metric_names[m]);
        len += (size_t)snprintf(wide + len, sizeof wide - len, "\n\"0\",\"1\",\"k\"");
        for (int k = 0; k < 600; k++)
            len += (size_t)snprintf(wide + len, sizeof wide - len, ",\"7\"");
        for (int m = 0; m < NCU_NMETRICS; m++)
            len += (size_t)snprintf(wide + len, sizeof wide - len, ",\"%d\"", m + 1);
        snprintf(wide + len, sizeof wide - len, "\n");
        CHECK(ncu_parse_csv(wide, &r, why, sizeof why) == 0 && r.v[NCU_SST_WAVE_SASS] == NCU_SST_WAVE_SASS + 1);
    }

    /* What is reported when ncu fails: its ==ERROR== line, else the last line it printed. */
    const char *perm = "==PROF== Connected to process 9 (/x/xpose)\n"
                       "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
                       "Performance Counters on the target device 0.\n"
                       "==PROF== Disconnected from process 9\n";
    CHECK(ncu_error_line(perm, line, sizeof line) == 1 && !strncmp(line, "==ERROR== ERR_NVGPUCTRPERM", 26));
    CHECK(ncu_error_line("first\n  \nbad option '--x'\r\n\n", line, sizeof line) == 1 &&
          !strcmp(line, "bad option '--x'"));
    CHECK(ncu_error_line("\n \n", line, sizeof line) == 0);
    CHECK(ncu_error_line("==ERROR== a long line", line, 8) == 1 && !strcmp(line, "==ERROR"));

    printf("test_ncu_csv: %d checks, %d failed\n", checks, fails);
    return fails != 0;
}
