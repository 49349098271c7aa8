/* explain_ncu.c: `xpose explain --ncu`: runs Nsight Compute on this very program (xpose bench, one variant, one
 * rep) and reads back the counters the model predicts. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "explain.h"
#include "explain_ncu.h"

int ncu_find(char *path, size_t n)
{
    const char *env = getenv("XPOSE_NCU"); /* an ncu elsewhere than on PATH */
    if (env && *env) {
        snprintf(path, n, "%s", env);
        return access(path, X_OK) == 0;
    }
    const char *pe = getenv("PATH");
    if (!pe)
        return 0;
    while (*pe) {
        size_t len = strcspn(pe, ":");
        struct stat st;
        snprintf(path, n, "%.*s/ncu", (int)len, len ? pe : ".");
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
            return 1;
        pe += len + (pe[len] == ':');
    }
    return 0;
}

static char *slurp(int fd)
{
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    ssize_t got;
    if (!buf || lseek(fd, 0, SEEK_SET) < 0) {
        free(buf);
        return NULL;
    }
    while ((got = read(fd, buf + len, cap - len - 1)) > 0) {
        len += (size_t)got;
        if (cap - len < 2) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
    }
    buf[len] = 0;
    return buf;
}

int ncu_measure(const char *ncu, const char *variant, ex_family fam, const ex_shape *s, ncu_result *out, char *why,
                size_t wl)
{
    char exe[4096];
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (el <= 0) {
        snprintf(why, wl, "cannot resolve /proc/self/exe: %s", strerror(errno));
        return 2;
    }
    exe[el] = 0;
    char metrics[1024] = "", rows[32], cols[32], es[32], batch[32], lds[32], ldd[32];
    for (int m = 0; m < NCU_NMETRICS; m++)
        snprintf(metrics + strlen(metrics), sizeof metrics - strlen(metrics), "%s%s", m ? "," : "",
                 ncu_metric_names[m]);
    snprintf(rows, sizeof rows, "%zu", s->rows);
    snprintf(cols, sizeof cols, "%zu", s->cols);
    snprintf(es, sizeof es, "%zu", s->es);
    snprintf(batch, sizeof batch, "%zu", s->batch);
    snprintf(lds, sizeof lds, "%zu", s->lds);
    snprintf(ldd, sizeof ldd, "%zu", s->ldd);
    /* The bench's other launches (the L2 flush is a reduction kernel, the poison a memset, memcpy a copy) do not
     * match the name; its verification run launches the variant's kernel first, as the timed rep does. */
    const char *kernel = fam == EX_TILE ? "regex:xp_tile_kernel" : "regex:naive_kernel";
    const char *argv[] = {ncu,
                          "--csv",
                          "--page",
                          "raw",
                          "--print-units",
                          "base",
                          "--clock-control",
                          "none",
                          "--kernel-name-base",
                          "function",
                          "--kernel-name",
                          kernel,
                          "--launch-skip",
                          "0",
                          "--launch-count",
                          "1",
                          "--metrics",
                          metrics,
                          exe,
                          "bench",
                          "--backend",
                          "cuda",
                          "--variants",
                          variant,
                          "--rows",
                          rows,
                          "--cols",
                          cols,
                          "--elem-size",
                          es,
                          "--batch",
                          batch,
                          "--ld-src",
                          lds,
                          "--ld-dst",
                          ldd,
                          "--reps",
                          "1",
                          "--by-row",
                          "--format",
                          "csv",
                          NULL};
    const char *tmpdir = getenv("TMPDIR");
    char tpath[4096];
    snprintf(tpath, sizeof tpath, "%s/xpose-ncu-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int fd = mkstemp(tpath);
    if (fd < 0) {
        snprintf(why, wl, "cannot create a temporary file for ncu's output: %s", strerror(errno));
        return 2;
    }
    unlink(tpath); /* the descriptor keeps it until closed */
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, wl, "fork: %s", strerror(errno));
        close(fd);
        return 2;
    }
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        execv(ncu, (char *const *)argv);
        fprintf(stderr, "==ERROR== cannot run %s: %s\n", ncu, strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            snprintf(why, wl, "waitpid: %s", strerror(errno));
            close(fd);
            return 2;
        }
    char *text = slurp(fd);
    close(fd);
    if (!text) {
        snprintf(why, wl, "cannot read ncu's output back");
        return 2;
    }
    int rc = 0;
    char line[400], perr[200];
    /* ncu passes the program's exit status on: a row that parses, with no ==ERROR==, stands even so. */
    int parsed = ncu_parse_csv(text, out, perr, sizeof perr) == 0;
    if (!parsed && (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || strstr(text, "==ERROR=="))) {
        if (!ncu_error_line(text, line, sizeof line))
            snprintf(line, sizeof line, "(no output)");
        if (WIFEXITED(status))
            snprintf(why, wl, "ncu exited %d: %s", WEXITSTATUS(status), line);
        else
            snprintf(why, wl, "ncu killed by signal %d: %s", WIFSIGNALED(status) ? WTERMSIG(status) : 0, line);
        /* What will fail again for every variant: no counter permission, ncu that cannot start. */
        rc = strstr(text, "ERR_NVGPUCTRPERM") || (WIFEXITED(status) && WEXITSTATUS(status) == 127) ? 2 : 1;
    } else if (strstr(text, "==ERROR==")) {
        ncu_error_line(text, line, sizeof line);
        snprintf(why, wl, "%s", line);
        rc = 1;
    } else if (!parsed) {
        if (ncu_error_line(text, line, sizeof line))
            snprintf(why, wl, "%s; ncu's last line: %s", perr, line);
        else
            snprintf(why, wl, "%s", perr);
        rc = 1;
    }
    free(text);
    return rc;
}
