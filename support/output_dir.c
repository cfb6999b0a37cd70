/* An output folder checked before work goes into it: output_dir.h. */
#include "output_dir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "output_file.h"

/* mkdir -p: each missing folder on the way, none removed again (an empty folder costs nothing and
 * a later run uses it). */
static int make_folders(const char *dir, char *err, size_t errlen)
{
    char buf[4096];
    if (strlen(dir) >= sizeof buf) {
        snprintf(err, errlen, "%s: the folder path is longer than %zu bytes", dir, sizeof buf - 1);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p;
        *p = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "%s: cannot create the folder %s: %s", dir, buf, strerror(errno));
            return -1;
        }
        if (!c) return 0;
        *p = c;
    }
}

int bb_output_dir_check(const char *dir, bool create, const char *const *files, char *err, size_t errlen)
{
    if (!dir || !*dir) {
        snprintf(err, errlen, "an output folder is empty");
        return -1;
    }
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT || !create) {
            snprintf(err, errlen, "%s: cannot write in it: %s", dir,
                     errno == ENOENT ? "the folder does not exist" : strerror(errno));
            return -1;
        }
        if (make_folders(dir, err, errlen)) return -1;
        if (stat(dir, &st) != 0) {
            snprintf(err, errlen, "%s: cannot create the folder: %s", dir, strerror(errno));
            return -1;
        }
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is not a folder; an output folder is needed here", dir);
        return -1;
    }
    /* each file tried as output_file.h will write it; with no files named, a probe name */
    static const char *const probe[] = {".bitbench-write-check", NULL};
    for (const char *const *f = files && files[0] ? files : probe; *f; f++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, *f);
        if (bb_output_check(path, err, errlen)) return -1;
    }
    return 0;
}
