/* transpose_example.c: the README's API example: transpose a 3 x 4 float matrix on the CPU. */
#include <stdio.h>
#include "xpose.h"

int main(void)
{
    float a[3][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
    float t[4][3];
    xpose_layout lay = {.rows = 3, .cols = 4, .elem_size = sizeof(float)};

    int st = xpose_transpose(XPOSE_BACKEND_CPU, &lay, a, t);
    if (st != XPOSE_OK) {
        fprintf(stderr, "transpose failed: %s\n", xpose_strerror(st));
        return 1;
    }
    printf("t[3] = {%g, %g, %g}\n", t[3][0], t[3][1], t[3][2]); /* 4 8 12 */
    return 0;
}
