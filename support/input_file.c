/* Opening a file someone else handed us: input_file.h. */
#include "input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *bb_file_kind(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    default: return "not a regular file";
    }
}

static const char *role(const char *what) { return what && *what ? what : "input"; }

int bb_input_check_fd(int fd, const char *path, const char *what, uint64_t max_bytes, uint64_t *size,
                      char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot read it: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: is %s, not a regular file; bitbench reads a %s only from a regular file", path,
                 bb_file_kind((unsigned)st.st_mode), role(what));
        return -1;
    }
    if ((uint64_t)st.st_size > max_bytes) {
        snprintf(err, errlen, "%s: %llu bytes, more than the %llu bytes a %s may have", path,
                 (unsigned long long)st.st_size, (unsigned long long)max_bytes, role(what));
        return -1;
    }
    if (size) *size = (uint64_t)st.st_size;
    return 0;
}

FILE *bb_input_open(const char *path, const char *what, uint64_t max_bytes, uint64_t *size, char *err,
                    size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open it: %s", path, strerror(errno));
        return NULL;
    }
    if (bb_input_check_fd(fd, path, what, max_bytes, size, err, errlen) != 0) {
        close(fd);
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open it: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

char *bb_input_read_all(const char *path, const char *what, uint64_t max_bytes, size_t *len, char *err,
                        size_t errlen)
{
    uint64_t size = 0;
    FILE *f = bb_input_open(path, what, max_bytes, &size, err, errlen);
    if (!f) return NULL;
    if (size > SIZE_MAX - 1) {
        snprintf(err, errlen, "%s: too large to read into memory (%llu bytes)", path, (unsigned long long)size);
        fclose(f);
        return NULL;
    }
    char *buf = malloc((size_t)size + 1);
    if (!buf) {
        snprintf(err, errlen, "%s: cannot allocate %llu bytes to read it", path, (unsigned long long)size);
        fclose(f);
        return NULL;
    }
    /* The file may grow between fstat and the read: read no more than it had (the bound holds). */
    size_t got = fread(buf, 1, (size_t)size, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s: read error", path);
        free(buf);
        return NULL;
    }
    buf[got] = 0;
    if (len) *len = got;
    return buf;
}
