/* Places bitbench chose, refused when they are symbolic links (not_a_link.h). */
#include "support/not_a_link.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/term_text.h"

int bb_not_a_link(const char *path, const char *what, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) return 0;
    char to[512], shown_to[600], shown[600];
    ssize_t n = readlink(path, to, sizeof to - 1);
    to[n > 0 ? n : 0] = 0;
    snprintf(err, errlen, "%s, %s, is a symbolic link (to %s): not written through; remove it, or name another place",
             bb_term_text(path, shown, sizeof shown), what, bb_term_text(to, shown_to, sizeof shown_to));
    return -1;
}
