/* dist_probe.c: links libxpose_dist and calls it without a GPU: a NULL plan is XPOSE_ERR_NULL. */
#include <stdio.h>
#include "xpose_dist.h"

int main(void)
{
    int st = xpose_dist_execute(NULL, NULL, 0, NULL, 0, 0);
    printf("%s\n", st == XPOSE_ERR_NULL ? "dist ok" : "dist wrong status");
    return st == XPOSE_ERR_NULL ? 0 : 1;
}
