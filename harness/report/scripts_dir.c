/* bitbench's own scripts folder, never the working directory's (scripts_dir.h). */
#include "report/scripts_dir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef BB_SOURCE_DIR
#define BB_SOURCE_DIR ""
#endif

/* realpath of dir/scripts into out when it is a folder; 0 or -1 */
static int resolve(const char *dir, char *out, size_t len)
{
    char path[PATH_MAX + 16], real[PATH_MAX];
    snprintf(path, sizeof path, "%.4000s/scripts", dir);
    if (!realpath(path, real) || strlen(real) >= len) return -1;
    memcpy(out, real, strlen(real) + 1);
    return 0;
}

int bb_scripts_dir(char *out, size_t len, char *err, size_t errlen)
{
    const char *src = getenv("BITBENCH_SOURCE_DIR");
    if (src && *src) {
        if (resolve(src, out, len) == 0) return 0;
        snprintf(err, errlen, "the scripts folder %.3000s/scripts: %s (BITBENCH_SOURCE_DIR names the source tree)",
                 src, strerror(errno));
        return -1;
    }
    char exe[PATH_MAX], up[PATH_MAX + 4] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) *slash = 0;
        snprintf(up, sizeof up, "%s/..", exe);
        if (resolve(up, out, len) == 0) return 0;
    }
    if (BB_SOURCE_DIR[0] && resolve(BB_SOURCE_DIR, out, len) == 0) return 0;
    snprintf(err, errlen, "no scripts folder beside this executable (%.1500s/scripts) nor in the source tree it "
             "was built from (%.1500s/scripts); set BITBENCH_SOURCE_DIR to the source tree",
             up[0] ? up : "/proc/self/exe/..", BB_SOURCE_DIR[0] ? BB_SOURCE_DIR : "unknown");
    return -1;
}
