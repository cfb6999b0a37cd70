#include "test_delay.h"

#include <stdlib.h>
#include <string.h>

#include "support/timer.h"

double bb_test_delay_for(const char *kernel)
{
    const char *v = getenv("BITBENCH_TEST_DELAY_KERNEL"), *colon = v ? strrchr(v, ':') : NULL;
    if (!colon || (size_t)(colon - v) != strlen(kernel) || strncmp(v, kernel, (size_t)(colon - v))) return 0;
    double s = strtod(colon + 1, NULL);
    return s > 0 && s < 10 ? s : 0;
}

void bb_test_delay_spin(double seconds)
{
    double end = bb_now() + seconds;
    while (bb_now() < end) {
    }
}
