/* A temporary folder of bitbench's own: temp_dir.h. */
#include "temp_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bb_temp_dir(const char *what, char *path, size_t len, char *err, size_t errlen)
{
    const char *base = getenv("TMPDIR");
    /* a relative TMPDIR would name a different place after a chdir; POSIX says "absolute" */
    if (!base || base[0] != '/') base = "/tmp";
    size_t n = strlen(base);
    while (n > 1 && base[n - 1] == '/') n--;
    int w = snprintf(path, len, "%.*s/bitbench-%s-XXXXXX", (int)n, base, what);
    if (w < 0 || (size_t)w >= len) {
        snprintf(err, errlen, "TMPDIR %s: the path is too long for a temporary folder (%zu bytes at most)", base,
                 len > 30 ? len - 30 : 0);
        return -1;
    }
    if (!mkdtemp(path)) {
        snprintf(err, errlen, "cannot create a temporary folder in %.*s (TMPDIR): %s", (int)n, base, strerror(errno));
        return -1;
    }
    return 0;
}
