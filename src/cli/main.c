/* placeholder until the CLI lands */
#include <stdio.h>
#include "weir.h"
int main(void)
{
    printf("weir %s\n", WEIR_VERSION);
    return 0;
}
