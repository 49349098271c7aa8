/* explain.c: `xpose explain`: what each GPU ladder variant does to memory, from the CPU model in explain_model.c;
 * nothing runs on a GPU. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "explain.h"
#include "explain_ncu.h"

static void explain_usage(FILE *f)
{
    fputs(
        "usage: xpose explain VARIANT|--all [options]   the memory traffic a GPU ladder variant's warps make\n"
        "  --size N | --rows R --cols C   shape (default 16384 x 16384)\n"
        "  --type T | --elem-size B       element type, as in xpose bench, or size in bytes (default float)\n"
        "  --batch B                      matrices back to back (default 1)\n"
        "  --ld-src L --ld-dst L          leading dimensions in elements (default dense)\n"
        "  --bandwidth GBPS               memcpy's GB/s on the GPU: the time its DRAM bytes would take\n"
        "  --format table|json|csv|md     (default table)\n"
        "  --all                          every ladder variant, one table\n"
        "  --ncu                          also measure each variant under Nsight Compute (ncu on PATH, or XPOSE_NCU)\n"
        "                                 on this GPU and print model, measurement and difference side by side\n"
        "xpose explain fast[/PARAMS] [shape options]   the production kernel's plan: path, tiles, grid, clusters\n"
        "  --card h200|h100|a100|v100     plan for that card (default: this GPU, else the H200)\n"
        "  --src-offset B --dst-offset B  bytes the matrices start past a 256-byte boundary (default 0)\n",
        f);
}

/* The registry names the model has an access description for, and how their parameters map onto the kernels. */
static const struct {
    const char *name;
    ex_family fam;
    ex_layout layout;
    int square; /* params "T": TILE x TILE threads (SIDE = TILE) */
} families[] = {
    {"naive", EX_NAIVE, EX_PLAIN, 0},   {"naive-write", EX_NAIVE_WRITE, EX_PLAIN, 0},
    {"shared", EX_TILE, EX_PLAIN, 1},   {"shared-swizzle", EX_TILE, EX_SWIZZLE, 1},
    {"shared-pad", EX_TILE, EX_PAD, 1}, {"unrolled", EX_TILE, EX_SWIZZLE, 0},
    {"tiled64", EX_TILE, EX_PAD, 0},
};

typedef struct ex_row {
    char id[64];
    ex_kernel k;
    ex_stats st;
    uint64_t dram;
    double secs;  /* the model's own run time */
    int measured; /* --ncu: 1 with meas, -1 failed (why in meas_why), 0 not asked */
    ncu_result meas;
    char meas_why[320];
} ex_row;

static int family_of(const char *name)
{
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
        if (!strcmp(families[f].name, name))
            return (int)f;
    return -1;
}

/* Sets up the row for registry entry i: 0; 1 where the model has no description for it (why in why); 2 where the
 * element size is not one it takes. */
static int row_for(int i, const ex_shape *s, ex_row *row, char *why, size_t wl)
{
    xpose_variant_info v;
    if (xpose_variant_get(i, &v) != XPOSE_OK)
        return 1;
    variant_id(&v, row->id, sizeof row->id);
    int f = family_of(v.name);
    if (v.backend != XPOSE_BACKEND_CUDA || v.family != XPOSE_FAMILY_TRANSPOSE || f < 0) {
        snprintf(why, wl, "no access description for %s (the model covers the GPU ladder: naive ... tiled64)", row->id);
        return 1;
    }
    int bit = 0;
    while (((size_t)1 << bit) < s->es)
        bit++;
    if (((size_t)1 << bit) != s->es || !(v.elem_sizes & (1u << bit))) {
        snprintf(why, wl, "%s does not take %zu-byte elements", row->id, s->es);
        return 2;
    }
    int p0 = 0, p1 = 0;
    if (sscanf(v.params, "%dx%d", &p0, &p1) < 1)
        p0 = 0;
    if (families[f].square)
        p1 = p0;
    if (ex_kernel_init(&row->k, families[f].fam, families[f].layout, p0, p1, s)) {
        snprintf(why, wl, "no kernel of %s for parameters '%s'", v.name, v.params);
        return 1;
    }
    return 0;
}

static double per(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0; }
static double eff(uint64_t bytes, uint64_t sect) { return sect ? (double)bytes / ((double)sect * 32) : 0; }

static const char *ways(char *buf, size_t n, uint64_t req, unsigned w)
{
    if (!req)
        return "-";
    snprintf(buf, n, "%u", w);
    return buf;
}

/* --ncu: what the model and ncu both count. */
enum {
    Q_LD_SECT,
    Q_ST_SECT,
    Q_LD_REQ,
    Q_ST_REQ,
    Q_SLD_WAVE,
    Q_SST_WAVE,
    Q_SLD_WAVE_SASS,
    Q_SST_WAVE_SASS,
    Q_SLD_CONF,
    Q_SST_CONF,
    Q_DRAM,
    NQ
};
static const char *const q_names[NQ] = {"load_sectors",
                                        "store_sectors",
                                        "load_requests",
                                        "store_requests",
                                        "smem_load_wavefronts",
                                        "smem_store_wavefronts",
                                        "smem_load_wavefronts_sass",
                                        "smem_store_wavefronts_sass",
                                        "smem_load_bank_conflicts",
                                        "smem_store_bank_conflicts",
                                        "dram_bytes"};

/* Model and measurement of quantity q: a bank conflict is a wavefront past the first of a request. */
static void q_values(const ex_row *x, int q, double *model, double *meas)
{
    const ex_stats *t = &x->st;
    const double *v = x->meas.v;
    switch (q) {
    case Q_LD_SECT: *model = (double)t->gld_sect, *meas = v[NCU_LD_SECT]; break;
    case Q_ST_SECT: *model = (double)t->gst_sect, *meas = v[NCU_ST_SECT]; break;
    case Q_LD_REQ: *model = (double)t->gld_req, *meas = v[NCU_LD_REQ]; break;
    case Q_ST_REQ: *model = (double)t->gst_req, *meas = v[NCU_ST_REQ]; break;
    case Q_SLD_WAVE: *model = (double)t->sld_wave, *meas = v[NCU_SLD_WAVE]; break;
    case Q_SST_WAVE: *model = (double)t->sst_wave, *meas = v[NCU_SST_WAVE]; break;
    case Q_SLD_WAVE_SASS: *model = (double)t->sld_wave, *meas = v[NCU_SLD_WAVE_SASS]; break;
    case Q_SST_WAVE_SASS: *model = (double)t->sst_wave, *meas = v[NCU_SST_WAVE_SASS]; break;
    case Q_SLD_CONF: *model = (double)(t->sld_wave - t->sld_req), *meas = v[NCU_SLD_CONF]; break;
    case Q_SST_CONF: *model = (double)(t->sst_wave - t->sst_req), *meas = v[NCU_SST_CONF]; break;
    default: *model = (double)x->dram, *meas = v[NCU_DRAM_RD] + v[NCU_DRAM_WR]; break;
    }
}

/* (measured - model) / model in percent into buf ("-" where the model counts none and ncu some; JSON: null). */
static const char *diff_pct(char *buf, size_t n, double model, double meas, int json)
{
    if (model == 0 && meas == 0)
        snprintf(buf, n, "%s", json ? "0" : "0.0");
    else if (model == 0)
        snprintf(buf, n, "%s", json ? "null" : "-");
    else
        snprintf(buf, n, json ? "%.4f" : "%+.1f", (meas - model) / model * 100);
    return buf;
}

static void json_string(const char *str)
{
    putchar('"');
    for (; *str; str++)
        if (*str == '"' || *str == '\\')
            printf("\\%c", *str);
        else if ((unsigned char)*str < 0x20)
            printf("\\u%04x", (unsigned char)*str);
        else
            putchar(*str);
    putchar('"');
}

static void json_ncu(const ex_row *x)
{
    if (x->measured == 0)
        return;
    printf(",\n     \"ncu\": {");
    if (x->measured < 0) {
        printf("\"error\": ");
        json_string(x->meas_why);
        printf("}");
        return;
    }
    printf("\"kernel\": ");
    json_string(x->meas.kernel);
    char b[48];
    double model, meas;
    for (int q = 0; q < NQ; q++) {
        q_values(x, q, &model, &meas);
        printf(", \"%s\": %.0f", q_names[q], meas);
    }
    printf(", \"dram_read_bytes\": %.0f, \"dram_write_bytes\": %.0f,\n      \"diff_pct\": {", x->meas.v[NCU_DRAM_RD],
           x->meas.v[NCU_DRAM_WR]);
    for (int q = 0; q < NQ; q++) {
        q_values(x, q, &model, &meas);
        printf("%s\"%s\": %s", q ? ", " : "", q_names[q], diff_pct(b, sizeof b, model, meas, 1));
    }
    printf("}}");
}

/* --ncu in table and md formats: a second table, a line per variant and quantity (those both count none left
 * out), and each failed measurement's reason. */
static void print_compare(const ex_row *rows, int n, out_format fmt)
{
    if (fmt == FMT_MD)
        printf("\n| variant | quantity | model | ncu | diff %% |\n|---|---|--:|--:|--:|\n");
    else
        printf("\nmodel vs ncu (diff: (ncu - model) / model)\n%-18s %-26s %14s %14s %8s\n", "variant", "quantity",
               "model", "ncu", "diff %");
    for (int r = 0; r < n; r++) {
        const ex_row *x = &rows[r];
        if (x->measured < 0) {
            if (fmt == FMT_MD)
                printf("| %s | ncu failed: %s | | | |\n", x->id, x->meas_why);
            else
                printf("%-18s ncu failed: %s\n", x->id, x->meas_why);
            continue;
        }
        for (int q = 0; q < NQ; q++) {
            double model, meas;
            char b[48];
            q_values(x, q, &model, &meas);
            if (model == 0 && meas == 0)
                continue;
            if (fmt == FMT_MD)
                printf("| %s | %s | %.0f | %.0f | %s |\n", x->id, q_names[q], model, meas,
                       diff_pct(b, sizeof b, model, meas, 0));
            else
                printf("%-18s %-26s %14.0f %14.0f %8s\n", x->id, q_names[q], model, meas,
                       diff_pct(b, sizeof b, model, meas, 0));
        }
    }
}

static void print_rows(const ex_row *rows, int n, out_format fmt, double gbps, const ex_shape *s, int with_ncu)
{
    const char *head[] = {"variant",
                          "grid",
                          "block",
                          "smem_B",
                          "ld_req",
                          "ld_sectors",
                          "ld_sect/req",
                          "ld_sect/block",
                          "ld_eff",
                          "st_req",
                          "st_sectors",
                          "st_sect/req",
                          "st_sect/block",
                          "st_eff",
                          "sh_ld_wavefronts",
                          "sh_ld_ways",
                          "sh_st_wavefronts",
                          "sh_st_ways",
                          "dram_bytes",
                          "predicted_ms"};
    const int nh = (int)(sizeof head / sizeof head[0]);
    if (fmt == FMT_JSON) {
        printf("{\n  \"shape\": {\"rows\": %zu, \"cols\": %zu, \"elem_size\": %zu, \"batch\": %zu, \"ld_src\": %zu, "
               "\"ld_dst\": %zu},\n  \"bandwidth_gbps\": ",
               s->rows, s->cols, s->es, s->batch, s->lds, s->ldd);
        if (gbps > 0)
            printf("%g,\n", gbps);
        else
            printf("null,\n");
        printf("  \"results\": [");
    } else if (fmt == FMT_CSV) {
        for (int h = 0; h < nh; h++)
            printf("%s%s", head[h], h + 1 < nh || with_ncu ? "," : "\n");
        for (int q = 0; with_ncu && q < NQ; q++) /* --ncu: the measurement and difference of each quantity */
            printf("ncu_%s,diff_pct_%s%s", q_names[q], q_names[q], q + 1 < NQ ? "," : ",ncu_error\n");
    } else if (fmt == FMT_MD) {
        for (int h = 0; h < nh; h++)
            printf("| %s ", head[h]);
        printf("|\n");
        for (int h = 0; h < nh; h++)
            printf("|---");
        printf("|\n");
    } else {
        printf("%-18s %-14s %-6s %6s %10s %11s %5s %8s %5s %10s %11s %5s %8s %5s %6s %4s %6s %4s %12s %9s\n", "variant",
               "grid", "block", "smem B", "ld req", "ld sectors", "/req", "/block", "eff", "st req", "st sectors",
               "/req", "/block", "eff", "sld wf", "ways", "sst wf", "ways", "DRAM bytes", "pred ms");
    }
    for (int r = 0; r < n; r++) {
        const ex_row *x = &rows[r];
        const ex_stats *t = &x->st;
        const uint64_t blocks = (uint64_t)x->k.gx * x->k.gy * x->k.gz;
        char grid[48], block[24], lw[12], sw[12], ms[24];
        snprintf(grid, sizeof grid, "%ux%ux%u", x->k.gx, x->k.gy, x->k.gz);
        snprintf(block, sizeof block, "%ux%u", x->k.bdx, x->k.bdy);
        const char *lways = ways(lw, sizeof lw, t->sld_req, t->sld_ways),
                   *sways = ways(sw, sizeof sw, t->sst_req, t->sst_ways);
        const double pred = gbps > 0 ? (double)x->dram / (gbps * 1e9) * 1e3 : -1;
        if (pred >= 0)
            snprintf(ms, sizeof ms, "%.3f", pred);
        else
            snprintf(ms, sizeof ms, "-");
        if (fmt == FMT_JSON) {
            printf("%s\n    {\"variant\": \"%s\", \"grid\": [%u, %u, %u], \"block\": [%u, %u], \"smem_bytes\": %zu, "
                   "\"tiles\": %llu,\n     \"load_requests\": %llu, \"load_sectors\": %llu, "
                   "\"load_sectors_per_request\": %.4f, \"load_sectors_per_block\": %.4f, \"load_efficiency\": %.6f,\n"
                   "     \"store_requests\": %llu, \"store_sectors\": %llu, \"store_sectors_per_request\": %.4f, "
                   "\"store_sectors_per_block\": %.4f, \"store_efficiency\": %.6f,\n",
                   r ? "," : "", x->id, x->k.gx, x->k.gy, x->k.gz, x->k.bdx, x->k.bdy, x->k.smem,
                   (unsigned long long)t->tiles, (unsigned long long)t->gld_req, (unsigned long long)t->gld_sect,
                   per(t->gld_sect, t->gld_req), per(t->gld_sect, blocks), eff(t->gld_bytes, t->gld_sect),
                   (unsigned long long)t->gst_req, (unsigned long long)t->gst_sect, per(t->gst_sect, t->gst_req),
                   per(t->gst_sect, blocks), eff(t->gst_bytes, t->gst_sect));
            printf(
                "     \"smem_load_requests\": %llu, \"smem_load_wavefronts\": %llu, \"smem_load_conflict_ways\": %s, "
                "\"smem_store_requests\": %llu, \"smem_store_wavefronts\": %llu, \"smem_store_conflict_ways\": %s,\n"
                "     \"dram_bytes\": %llu, \"predicted_ms\": %s, \"model_seconds\": %.3f",
                (unsigned long long)t->sld_req, (unsigned long long)t->sld_wave, t->sld_req ? lways : "null",
                (unsigned long long)t->sst_req, (unsigned long long)t->sst_wave, t->sst_req ? sways : "null",
                (unsigned long long)x->dram, pred >= 0 ? ms : "null", x->secs);
            json_ncu(x);
            printf("}");
            continue;
        }
        char cells[20][48];
        snprintf(cells[0], 48, "%s", x->id);
        snprintf(cells[1], 48, "%s", grid);
        snprintf(cells[2], 48, "%s", block);
        snprintf(cells[3], 48, "%zu", x->k.smem);
        snprintf(cells[4], 48, "%llu", (unsigned long long)t->gld_req);
        snprintf(cells[5], 48, "%llu", (unsigned long long)t->gld_sect);
        snprintf(cells[6], 48, "%.2f", per(t->gld_sect, t->gld_req));
        snprintf(cells[7], 48, "%.1f", per(t->gld_sect, blocks));
        snprintf(cells[8], 48, "%.3f", eff(t->gld_bytes, t->gld_sect));
        snprintf(cells[9], 48, "%llu", (unsigned long long)t->gst_req);
        snprintf(cells[10], 48, "%llu", (unsigned long long)t->gst_sect);
        snprintf(cells[11], 48, "%.2f", per(t->gst_sect, t->gst_req));
        snprintf(cells[12], 48, "%.1f", per(t->gst_sect, blocks));
        snprintf(cells[13], 48, "%.3f", eff(t->gst_bytes, t->gst_sect));
        snprintf(cells[14], 48, t->sld_req ? "%.2f" : "-", per(t->sld_wave, t->sld_req));
        snprintf(cells[15], 48, "%s", lways);
        snprintf(cells[16], 48, t->sst_req ? "%.2f" : "-", per(t->sst_wave, t->sst_req));
        snprintf(cells[17], 48, "%s", sways);
        snprintf(cells[18], 48, "%llu", (unsigned long long)x->dram);
        snprintf(cells[19], 48, "%s", ms);
        if (fmt == FMT_CSV && with_ncu) {
            for (int h = 0; h < nh; h++)
                printf("%s,", cells[h]);
            for (int q = 0; q < NQ; q++) {
                double model, meas;
                char b[48];
                q_values(x, q, &model, &meas);
                if (x->measured > 0)
                    printf("%.0f,%s,", meas, diff_pct(b, sizeof b, model, meas, 1));
                else
                    printf(",,");
            }
            if (x->measured < 0) { /* a CSV field: quoted, quotes doubled */
                putchar('"');
                for (const char *c = x->meas_why; *c; c++)
                    printf(*c == '"' ? "\"\"" : "%c", *c);
                putchar('"');
            }
            putchar('\n');
            continue;
        }
        if (fmt == FMT_CSV || fmt == FMT_MD) {
            for (int h = 0; h < nh; h++)
                printf(fmt == FMT_CSV ? "%s%s" : "| %s %s", cells[h], fmt == FMT_CSV ? (h + 1 < nh ? "," : "\n") : "");
            if (fmt == FMT_MD)
                printf("|\n");
            continue;
        }
        printf("%-18s %-14s %-6s %6s %10s %11s %5s %8s %5s %10s %11s %5s %8s %5s %6s %4s %6s %4s %12s %9s\n", cells[0],
               cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7], cells[8], cells[9], cells[10],
               cells[11], cells[12], cells[13], cells[14], cells[15], cells[16], cells[17], cells[18], cells[19]);
    }
    if (fmt == FMT_JSON)
        printf("\n  ]\n}\n");
    if (with_ncu && (fmt == FMT_TABLE || fmt == FMT_MD))
        print_compare(rows, n, fmt);
    else if (fmt == FMT_TABLE && gbps <= 0)
        printf("(no GPU bandwidth given: --bandwidth GBPS, memcpy's, turns DRAM bytes into a predicted time)\n");
}

static double secs_now(void) { return now_ms() / 1e3; }

static int model(ex_row *row, const ex_shape *s, int exhaustive)
{
    double t0 = secs_now();
    if (ex_run(&row->k, s, exhaustive, &row->st)) {
        fprintf(stderr, "xpose explain: out of memory\n");
        return 1;
    }
    row->dram = ex_dram_bytes(s);
    row->secs = secs_now() - t0;
    return 0;
}

enum {
    OPT_ROWS = 256,
    OPT_COLS,
    OPT_SIZE,
    OPT_TYPE,
    OPT_ES,
    OPT_BATCH,
    OPT_LDS,
    OPT_LDD,
    OPT_BW,
    OPT_FMT,
    OPT_ALL,
    OPT_EXH,
    OPT_NCU,
    OPT_CARD,
    OPT_SRC_OFF,
    OPT_DST_OFF
};

/* --ncu: each row measured under ncu, one child run each; progress on stderr. Stops at a failure that every
 * variant would meet (no counter permission). 0, or 1 where any measurement failed. */
static int measure(ex_row *rows, int n, const char *ncu, const ex_shape *s)
{
    int failed = 0;
    for (int r = 0; r < n; r++) {
        ex_row *x = &rows[r];
        fprintf(stderr, "xpose explain: ncu %d/%d: %s\n", r + 1, n, x->id);
        int st = ncu_measure(ncu, x->id, x->k.fam, s, &x->meas, x->meas_why, sizeof x->meas_why);
        x->measured = st ? -1 : 1;
        if (st) {
            failed = 1;
            fprintf(stderr, "xpose explain: ncu failed for %s: %s\n", x->id, x->meas_why);
        }
        for (int k = r + 1; st == 2 && k < n; k++) {
            rows[k].measured = -1;
            snprintf(rows[k].meas_why, sizeof rows[k].meas_why, "not run: %s", x->meas_why);
        }
        if (st == 2)
            break;
    }
    return failed;
}

static int positive(const char *what, const char *s, size_t *out)
{
    int st = parse_size(what, s, out);
    if (!st && *out == 0) {
        fprintf(stderr, "xpose explain: %s must be at least 1\n", what);
        st = CLI_EXIT_USAGE;
    }
    return st;
}

int cmd_explain(int argc, char **argv)
{
    static const struct option opts[] = {{"rows", required_argument, 0, OPT_ROWS},
                                         {"cols", required_argument, 0, OPT_COLS},
                                         {"size", required_argument, 0, OPT_SIZE},
                                         {"type", required_argument, 0, OPT_TYPE},
                                         {"elem-size", required_argument, 0, OPT_ES},
                                         {"batch", required_argument, 0, OPT_BATCH},
                                         {"ld-src", required_argument, 0, OPT_LDS},
                                         {"ld-dst", required_argument, 0, OPT_LDD},
                                         {"bandwidth", required_argument, 0, OPT_BW},
                                         {"format", required_argument, 0, OPT_FMT},
                                         {"all", no_argument, 0, OPT_ALL},
                                         {"exhaustive", no_argument, 0, OPT_EXH},
                                         {"ncu", no_argument, 0, OPT_NCU},
                                         {"card", required_argument, 0, OPT_CARD},
                                         {"src-offset", required_argument, 0, OPT_SRC_OFF},
                                         {"dst-offset", required_argument, 0, OPT_DST_OFF},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    ex_shape s = {16384, 16384, 4, 1, 0, 0, 0, 0};
    size_t v, src_off = 0, dst_off = 0;
    const char *card = NULL;
    double gbps = 0;
    out_format fmt = FMT_TABLE;
    int c, st = 0, all = 0, exhaustive = 0, use_ncu = 0;
    optind = 0; /* argv[0] is the first option: getopt_long skips it */
    opterr = 0;
    char **args = argv - 1; /* getopt wants a program name first */
    while (st == 0 && (c = getopt_long(argc + 1, args, "h", opts, NULL)) != -1) {
        switch (c) {
        case OPT_ROWS: st = positive("--rows", optarg, &s.rows); break;
        case OPT_COLS: st = positive("--cols", optarg, &s.cols); break;
        case OPT_SIZE: st = positive("--size", optarg, &v), s.rows = s.cols = v; break;
        case OPT_TYPE: st = parse_type(optarg, &s.es); break;
        case OPT_ES:
            st = parse_size("--elem-size", optarg, &s.es);
            if (!st && s.es != 1 && s.es != 2 && s.es != 4 && s.es != 8 && s.es != 16) {
                fprintf(stderr, "xpose explain: --elem-size takes 1, 2, 4, 8 or 16, got '%s'\n", optarg);
                st = CLI_EXIT_USAGE;
            }
            break;
        case OPT_BATCH: st = positive("--batch", optarg, &s.batch); break;
        case OPT_LDS: st = positive("--ld-src", optarg, &s.lds); break;
        case OPT_LDD: st = positive("--ld-dst", optarg, &s.ldd); break;
        case OPT_BW: {
            char *end;
            gbps = strtod(optarg, &end);
            if (end == optarg || *end || !(gbps > 0 && gbps < 1e6)) {
                fprintf(stderr, "xpose explain: --bandwidth needs GB/s above 0, got '%s'\n", optarg);
                st = CLI_EXIT_USAGE;
            }
            break;
        }
        case OPT_FMT: st = parse_format(optarg, &fmt); break;
        case OPT_ALL: all = 1; break;
        case OPT_EXH: exhaustive = 1; break; /* every block, no classes: for the tests */
        case OPT_NCU: use_ncu = 1; break;
        case OPT_CARD: card = optarg; break;
        case OPT_SRC_OFF: st = parse_size("--src-offset", optarg, &src_off); break;
        case OPT_DST_OFF: st = parse_size("--dst-offset", optarg, &dst_off); break;
        case 'h': explain_usage(stdout); return 0;
        default:
            fprintf(stderr, "xpose explain: unknown or incomplete option '%s' (try xpose explain --help)\n",
                    args[optind - 1]);
            return CLI_EXIT_USAGE;
        }
    }
    if (st)
        return st;
    const char *name = optind <= argc ? args[optind] : NULL;
    if ((name && all) || (!name && !all) || (name && optind + 1 <= argc)) {
        fprintf(stderr, "xpose explain: name one variant, or --all (try xpose explain --help)\n");
        return CLI_EXIT_USAGE;
    }
    /* The library's defaults and checks (xp_layout_check): dense leading dimensions, members back to back. */
    s.lds = s.lds ? s.lds : s.cols;
    s.ldd = s.ldd ? s.ldd : s.rows;
    if (s.lds < s.cols || s.ldd < s.rows) {
        fprintf(stderr, "xpose explain: --ld-src must be at least the columns and --ld-dst the rows\n");
        return CLI_EXIT_USAGE;
    }
    if (s.rows > ((size_t)1 << 31) || s.cols > ((size_t)1 << 31) || s.lds > ((size_t)1 << 40) / s.rows ||
        s.ldd > ((size_t)1 << 40) / s.cols || s.batch > ((size_t)1 << 44) / (s.rows * s.lds + s.cols * s.ldd)) {
        fprintf(stderr, "xpose explain: the call is too large to model (over 2^44 elements)\n");
        return CLI_EXIT_USAGE;
    }
    s.ss = s.rows * s.lds;
    s.sd = s.cols * s.ldd;
    if (name && (!strcmp(name, "fast") || !strncmp(name, "fast/", 5))) {
        if (use_ncu || all) {
            fprintf(stderr, "xpose explain: fast has a plan, not an access model: no --ncu or --all with it\n");
            return CLI_EXIT_USAGE;
        }
        if (src_off % s.es || dst_off % s.es) {
            fprintf(stderr, "xpose explain: --src-offset and --dst-offset must be whole elements\n");
            return CLI_EXIT_USAGE;
        }
        return explain_fast(name, &s, src_off, dst_off, card, (int)fmt);
    }
    char ncu[4096], gwhy[200];
    if (use_ncu && !ncu_find(ncu, sizeof ncu)) {
        fprintf(stderr, "xpose explain: --ncu needs Nsight Compute: no ncu on PATH (or XPOSE_NCU)\n");
        return CLI_EXIT_USAGE;
    }
    /* XPOSE_EXPLAIN_NO_GPU_CHECK: for test_explain.sh, which runs a stand-in ncu where there is no GPU. */
    if (use_ncu && !getenv("XPOSE_EXPLAIN_NO_GPU_CHECK") && !gpu_ready(gwhy, sizeof gwhy)) {
        fprintf(stderr, "xpose explain: --ncu needs a CUDA GPU: %s\n", gwhy);
        return CLI_EXIT_USAGE;
    }

    int count = xpose_variant_count(), n = 0;
    ex_row *rows = calloc((size_t)count, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "xpose explain: out of memory\n");
        return 1;
    }
    char why[160];
    if (!all) {
        int i = xpose_variant_find(name);
        if (i < 0) {
            fprintf(stderr, "xpose explain: no variant '%s' (xpose list shows them)\n", name);
            free(rows);
            return CLI_EXIT_USAGE;
        }
        if (row_for(i, &s, &rows[0], why, sizeof why)) {
            fprintf(stderr, "xpose explain: %s\n", why);
            free(rows);
            return CLI_EXIT_USAGE;
        }
        st = model(&rows[n++], &s, exhaustive);
    } else {
        FILE *notes = fmt == FMT_TABLE || fmt == FMT_MD ? stdout : stderr;
        int skipped = 0;
        for (int i = 0; i < count && st == 0; i++) {
            xpose_variant_info info;
            if (xpose_variant_get(i, &info) != XPOSE_OK || info.backend != XPOSE_BACKEND_CUDA ||
                info.family != XPOSE_FAMILY_TRANSPOSE)
                continue; /* CPU variants, copies and reductions: not kernels of the ladder */
            int r = row_for(i, &s, &rows[n], why, sizeof why);
            if (r == 0)
                st = model(&rows[n++], &s, exhaustive);
            else if (r == 2 || family_of(info.name) >= 0)
                fprintf(notes, "note: %s\n", why);
            else
                skipped++;
        }
        if (st == 0 && use_ncu)
            st = measure(rows, n, ncu, &s);
        print_rows(rows, n, fmt, gbps, &s, use_ncu);
        if (skipped)
            fprintf(notes,
                    "note: %d GPU transpose variants (fast, the library peers) have no access description yet; "
                    "`xpose explain fast` prints fast's plan\n",
                    skipped);
        free(rows);
        return st;
    }
    if (st == 0) {
        if (use_ncu)
            st = measure(rows, n, ncu, &s);
        print_rows(rows, n, fmt, gbps, &s, use_ncu);
    }
    free(rows);
    return st;
}
