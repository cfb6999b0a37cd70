/* Writing a file so that nothing is lost: output_file.h. */
#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_file.h"

/* The file a path finally names (following symbolic links, so that a link to a results file is
 * kept and its target replaced), or the path itself when it does not exist yet. */
static int resolve_target(const char *path, char *out, size_t outlen, char *err, size_t errlen)
{
    if (!path || !*path) {
        snprintf(err, errlen, "an output path is empty");
        return -1;
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "%s: is %s; bitbench writes its outputs only as regular files (nothing was written)",
                     path, bb_file_kind((unsigned)st.st_mode));
            return -1;
        }
        char real[PATH_MAX];
        if (!realpath(path, real)) {
            snprintf(err, errlen, "%s: cannot resolve it: %s", path, strerror(errno));
            return -1;
        }
        path = real;
        if (strlen(path) >= outlen) goto toolong;
        memcpy(out, path, strlen(path) + 1);
        return 0;
    }
    if (errno != ENOENT) {
        snprintf(err, errlen, "%s: cannot write it: %s", path, strerror(errno));
        return -1;
    }
    if (strlen(path) >= outlen) goto toolong;
    memcpy(out, path, strlen(path) + 1);
    return 0;
toolong:
    snprintf(err, errlen, "an output path is longer than %zu bytes", outlen - 1);
    return -1;
}

/* Creates a new temporary file beside target (never one that exists: O_EXCL). */
static int open_temporary(const char *target, char *tmp, size_t tmplen, char *err, size_t errlen)
{
    static unsigned counter;
    char dirbuf[4096], basebuf[4096];
    snprintf(dirbuf, sizeof dirbuf, "%s", target);
    snprintf(basebuf, sizeof basebuf, "%s", target);
    const char *dir = dirname(dirbuf), *base = basename(basebuf);
    for (int tries = 0; tries < 100; tries++) {
        int n = snprintf(tmp, tmplen, "%s/.%s.tmp-%ld-%u", dir, base, (long)getpid(), counter++);
        if (n < 0 || (size_t)n >= tmplen) {
            snprintf(err, errlen, "%s: the path is too long for a temporary file beside it", target);
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd >= 0) return fd;
        if (errno == EEXIST) continue;
        int open_errno = errno;
        struct stat st;
        if (stat(dir, &st) != 0)
            snprintf(err, errlen, "%s: cannot write it: the folder %s does not exist", target, dir);
        else if (!S_ISDIR(st.st_mode))
            snprintf(err, errlen, "%s: cannot write it: %s is not a folder", target, dir);
        else if (open_errno == ENOENT) /* the folder is there and refuses new names: /proc, /sys */
            snprintf(err, errlen, "%s: cannot write it: the folder %s takes no new files (a virtual file system?)",
                     target, dir);
        else
            snprintf(err, errlen, "%s: cannot create a file in its folder %s: %s", target, dir, strerror(open_errno));
        return -1;
    }
    snprintf(err, errlen, "%s: cannot create a temporary file beside it", target);
    return -1;
}

int bb_output_check(const char *path, char *err, size_t errlen)
{
    char target[4096], tmp[4200];
    if (resolve_target(path, target, sizeof target, err, errlen)) return -1;
    int fd = open_temporary(target, tmp, sizeof tmp, err, errlen);
    if (fd < 0) return -1;
    close(fd);
    unlink(tmp); /* ours: created just now with O_EXCL */
    return 0;
}

FILE *bb_output_begin(bb_output_file *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (resolve_target(path, o->path, sizeof o->path, err, errlen)) return NULL;
    int fd = open_temporary(o->path, o->tmp, sizeof o->tmp, err, errlen);
    if (fd < 0) return NULL;
    struct stat st;
    if (stat(o->path, &st) == 0) (void)fchmod(fd, st.st_mode & 07777);
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        snprintf(err, errlen, "%s: cannot write it: %s", o->path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        return NULL;
    }
    return o->f;
}

int bb_output_commit(bb_output_file *o, char *err, size_t errlen)
{
    if (!o->f) {
        snprintf(err, errlen, "%s: not open for writing", o->path);
        return -1;
    }
    int bad = fflush(o->f) != 0 || ferror(o->f);
    int saved = errno;
    if (!bad && fsync(fileno(o->f)) != 0 && errno != EINVAL && errno != EROFS) {
        bad = 1;
        saved = errno;
    }
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    o->f = NULL;
    if (bad) {
        snprintf(err, errlen, "%s: cannot write it: %s (the previous file, if any, is unchanged)", o->path,
                 strerror(saved ? saved : EIO));
        unlink(o->tmp);
        return -1;
    }
    if (rename(o->tmp, o->path) != 0) {
        snprintf(err, errlen, "%s: cannot replace it: %s (the previous file, if any, is unchanged)", o->path,
                 strerror(errno));
        unlink(o->tmp);
        return -1;
    }
    return 0;
}

void bb_output_abort(bb_output_file *o)
{
    if (o->f) fclose(o->f);
    o->f = NULL;
    if (o->tmp[0]) unlink(o->tmp);
    o->tmp[0] = 0;
}
