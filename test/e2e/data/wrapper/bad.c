/* test/e2e/wrapper.sh runs this under real valgrind: one invalid read and
 * one block definitely lost, the two kinds of report the logs are checked
 * for. */
#include <stdlib.h>

int main(void)
{
    int *p = malloc(4 * sizeof *p);
    volatile int x;

    if (!p)
        return 1;
    x = p[4];
    p = NULL;
    return x & 0;
}
