/* bench_select.h: the variants `xpose bench` runs (bench_select.c). */
#ifndef XPOSE_BENCH_SELECT_H
#define XPOSE_BENCH_SELECT_H

#include "cli.h"

/* The selected variants, as registry indices; `implicit` marks rows added only as references. */
typedef struct selection {
    int idx[512];
    int implicit[512];
    int n;
    int nref; /* the first nref are the references, put there by sel_put_first */
} selection;

/* Which bench a selection is for, where the functions below take `reduce`: 0 transposes (and copies), 1 reductions,
 * SEL_INPLACE in-place transposes (copies too, as references). */
enum { SEL_INPLACE = 2 };

/* Adds registry row i (ignored when negative or already there). */
void sel_add(selection *s, int i, int implicit);
/* Puts registry row i first (adding it where it is not there yet): the references run before the rows they are
 * related to. */
void sel_put_first(selection *s, int i, int implicit);
/* Whether any selected variant runs on backend b. */
int sel_has_backend(const selection *s, xpose_backend b);
/* Drops the variants that cannot run here (a peer whose library was not found at build time). */
void sel_drop_unavailable(selection *s);
/* Adds a comma-separated list of "name" or "name/params"; CLI_EXIT_USAGE, with a message, for an unknown name. */
int select_list(selection *s, const char *list);
/* CLI_EXIT_USAGE, with a message, where a selected variant is not of the bench's family (reduce: 1, a reduction;
 * 0: a transpose or a copy). */
int sel_check_family(const selection *s, int reduce);
/* For the variants the user named (not reference rows): CLI_EXIT_USAGE, with a message, where none of them takes
 * any of the element sizes es[0 .. nes); else 0, with a note in res for each one left out at an element size it
 * does not take. */
int sel_check_named(const selection *s, const size_t *es, int nes, bench_result *res);
/* Every variant of the bench's family (reduce: reductions; else transposes and copies) of the backends --backend
 * chooses (auto: the GPU's where one is, else the CPU's). */
void select_default(selection *s, const bench_opts *o, int gpu, int reduce);
/* Drops the variants that cannot run: of a backend --backend leaves out, GPU ones where no GPU can run, ones not
 * built here; notes each kind dropped. Where nothing is left: CLI_EXIT_USAGE, with one line saying why. */
int sel_runnable(selection *s, const bench_opts *o, const bench_env *env, bench_result *res);
/* --preset: the seeds' shapes and variant lists, for what the user did not set. */
int apply_preset(bench_opts *o, selection *s);

#endif
