/* ncu_csv.h: reading `ncu --csv --page raw` output: the metrics `xpose explain --ncu` compares with its model. */
#ifndef XPOSE_NCU_CSV_H
#define XPOSE_NCU_CSV_H

#include <stddef.h>

/* The metrics asked for (sm_90 names), in this order. */
enum {
    NCU_LD_SECT,
    NCU_LD_REQ,
    NCU_ST_SECT,
    NCU_ST_REQ,
    NCU_SLD_WAVE,
    NCU_SST_WAVE,
    NCU_SLD_CONF,
    NCU_SST_CONF,
    NCU_SLD_WAVE_SASS, /* wavefronts each instruction's addresses need (SASS-derived): what the model counts */
    NCU_SST_WAVE_SASS,
    NCU_DRAM_RD,
    NCU_DRAM_WR,
    NCU_NMETRICS
};
extern const char *const ncu_metric_names[NCU_NMETRICS];

typedef struct ncu_result {
    double v[NCU_NMETRICS]; /* in base units: sectors, requests, wavefronts, conflicts, bytes */
    char kernel[160];       /* the "Kernel Name" of the row read */
} ncu_result;

/* Reads the first kernel launch's row of ncu's raw CSV page out of text: other lines (the program's own output,
 * ==PROF== lines) may come before it. The header line starts "ID","Process ID"; a unit line may follow; values may
 * hold thousands separators and a unit prefix (Kbyte, Mbyte...). 0, or -1 with why set. */
int ncu_parse_csv(const char *text, ncu_result *out, char *why, size_t wl);
/* The first line of text holding "==ERROR==" (else the last non-empty line) into buf: what to report when ncu
 * fails. 0 where text has no non-empty line. */
int ncu_error_line(const char *text, char *buf, size_t n);

#endif
