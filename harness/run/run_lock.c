/* Run directory locks (run_lock.h). */
#include "run/run_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* The locks this process holds: few (one run directory, or merge's output). */
#define MAX_HELD 8
static struct {
    char dir[1024];
    int fd;
} held[MAX_HELD];
static int nheld;

/* The pid the holder wrote, or 0 when the file has none (yet). */
static long holder_pid(int fd)
{
    char buf[32] = "";
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return 0;
    buf[n] = 0;
    return strtol(buf, NULL, 10);
}

int bb_run_dir_lock(const char *dir, char *note, size_t notelen, char *err, size_t errlen)
{
    char path[1100];
    if (note && notelen) note[0] = 0;
    snprintf(path, sizeof path, "%s/%s", dir, BB_RUN_LOCK_NAME);
    if (nheld == MAX_HELD) {
        snprintf(err, errlen, "%s: too many run directories locked by one process", dir);
        return -1;
    }
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create the lock file %s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) {
            long pid = holder_pid(fd);
            char who[48] = "another process";
            if (pid > 0) snprintf(who, sizeof who, "process %ld", pid);
            snprintf(err, errlen, "%s is being written by %s (it holds %s); wait for it to end or stop it, "
                                  "then run again", dir, who, path);
            close(fd);
            return -1;
        }
        if (note && notelen)
            snprintf(note, notelen, "cannot lock %s (%s): two writers of this directory would not be stopped",
                     path, strerror(errno));
        close(fd);
        return 0;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
        snprintf(err, errlen, "cannot write the lock file %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    snprintf(held[nheld].dir, sizeof held[nheld].dir, "%s", dir);
    held[nheld++].fd = fd;
    return 0;
}

void bb_run_dir_unlock(const char *dir)
{
    for (int i = 0; i < nheld; i++) {
        if (strcmp(held[i].dir, dir) != 0) continue;
        close(held[i].fd); /* closing the only descriptor of the open file releases the flock */
        held[i] = held[--nheld];
        return;
    }
}
