/* The tables a run appends to: csv_append.h. */
#include "io/csv_append.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "support/output_file.h"

bool bb_csv_append_unstarted(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return errno == ENOENT;
    if (!S_ISREG(st.st_mode)) return false;
    if (st.st_size == 0) return true;
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    /* a header line is far shorter than this; a first line longer is no header of ours either,
     * and the reader refuses it */
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return n < sizeof buf && !memchr(buf, '\n', n);
}

FILE *bb_csv_append_start(const char *path, const char *header, char *err, size_t errlen)
{
    bb_output_file o;
    FILE *f = bb_output_begin(&o, path, err, errlen);
    if (!f) return NULL;
    fprintf(f, "%s\n", header);
    if (bb_output_commit(&o, err, errlen)) return NULL;
    if (!(f = fopen(path, "a"))) snprintf(err, errlen, "cannot append to %s: %s", path, strerror(errno));
    return f;
}
