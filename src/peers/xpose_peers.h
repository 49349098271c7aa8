/* xpose_peers.h: what a program (the CLI, the tests) calls to add the benchmark-only peer rows to xpose's registry. */
#ifndef XPOSE_PEERS_H
#define XPOSE_PEERS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Adds cublas-geam and cpu-openblas (listed as unavailable where their library was not built) to the registry of
 * the libxpose.a this program links. Call once, before any other xpose call and before threads start. Returns 0,
 * or a negative xpose status if the rows were added before. */
int xp_peers_register(void);

#ifdef __cplusplus
}
#endif
#endif
