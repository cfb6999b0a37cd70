#include "run/source_diff.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bb_git_commit.h" /* generated at build time: BB_GIT_COMMIT */

#ifndef BB_SOURCE_DIR
#define BB_SOURCE_DIR ""
#endif

extern char **environ;

const char *bb_build_commit(void) { return BB_GIT_COMMIT; }
const char *bb_build_source_dir(void) { return BB_SOURCE_DIR; }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Run git with args after "git -C src" and the safety options; its stdout into *out (at most max
 * bytes kept; *over set when it wrote more).  Returns git's exit status, or -1 with why. */
static int run_git(const char *src, const char *const *args, size_t max, char **out, size_t *len, bool *over,
                   char *why, size_t whylen)
{
    const char *argv[24] = {"git", "-C", src, "-c", "core.fsmonitor=false", "--no-pager"};
    int argc = 6;
    for (int i = 0; args[i] && argc < 23; i++) argv[argc++] = args[i];
    argv[argc] = NULL;
    *out = NULL;
    *len = 0;
    *over = false;
    int fds[2];
    if (pipe(fds)) {
        snprintf(why, whylen, "cannot run git: pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    pid_t pid;
    int rc = posix_spawnp(&pid, "git", &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc) {
        close(fds[0]);
        snprintf(why, whylen, "cannot run git: %s%s", strerror(rc), rc == ENOENT ? " (no git on PATH)" : "");
        return -1;
    }
    size_t cap = 0;
    char *buf = NULL;
    bool timed_out = false, oom = false;
    double end = now_s() + BB_SOURCE_DIFF_SECONDS;
    for (;;) {
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        double left = end - now_s();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        int pr = poll(&p, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        char chunk[65536];
        ssize_t n = read(fds[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (*len + (size_t)n > max) { /* more than the bound: stop reading, end git */
            *over = true;
            break;
        }
        if (*len + (size_t)n + 1 > cap) {
            size_t c = cap ? cap : 65536;
            while (c < *len + (size_t)n + 1) c *= 2;
            char *g = realloc(buf, c);
            if (!g) {
                oom = true;
                break;
            }
            buf = g;
            cap = c;
        }
        memcpy(buf + *len, chunk, (size_t)n);
        *len += (size_t)n;
    }
    close(fds[0]);
    if (timed_out || *over || oom) kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (buf) buf[*len] = 0;
    *out = buf;
    if (timed_out || oom) {
        snprintf(why, whylen, "git %s %s", args[0], timed_out ? "took longer than 60 s" : "ran out of memory");
        return -1;
    }
    if (*over) return 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int bb_source_diff(const char *commit, const char *src, char **text, size_t *len, char *why, size_t whylen)
{
    *text = NULL;
    *len = 0;
    size_t cl = strlen(commit);
    if (cl < 6 || strcmp(commit + cl - 6, "-dirty")) {
        snprintf(why, whylen, "the build (commit %s) is not from changed files: there is no diff", commit);
        return -1;
    }
    char base[64];
    snprintf(base, sizeof base, "%.*s", (int)(cl - 6), commit);
    struct stat sb;
    char dotgit[4200];
    snprintf(dotgit, sizeof dotgit, "%s/.git", src);
    if (!src[0] || stat(src, &sb) != 0 || !S_ISDIR(sb.st_mode) || stat(dotgit, &sb) != 0) {
        snprintf(why, whylen, "the source tree the build came from (%s) is not a git work tree on this machine",
                 src[0] ? src : "unknown");
        return -1;
    }
    char *head;
    size_t hl;
    bool over;
    const char *rev[] = {"rev-parse", "HEAD", NULL};
    int rc = run_git(src, rev, 256, &head, &hl, &over, why, whylen);
    if (rc == 0 && head && !over && strncmp(head, base, strlen(base))) {
        head[strcspn(head, "\n")] = 0;
        snprintf(why, whylen, "the source tree %s is now at commit %.12s, not the build's %s: its diff would not be "
                 "this build's", src, head, base);
        rc = -1;
    } else if (rc > 0 || (rc == 0 && (!head || over))) {
        snprintf(why, whylen, "git rev-parse HEAD failed in %s", src);
        rc = -1;
    }
    if (rc) {
        free(head);
        return -1;
    }
    free(head);
    const char *diff[] = {"diff", "--no-ext-diff", "--no-textconv", "--no-color", "HEAD", NULL};
    char *out;
    rc = run_git(src, diff, BB_SOURCE_DIFF_MAX_BYTES, &out, len, &over, why, whylen);
    if (rc == 0 && over) {
        snprintf(why, whylen, "git diff HEAD in %s is larger than %zu MiB: not kept", src,
                 BB_SOURCE_DIFF_MAX_BYTES >> 20);
        rc = -1;
    } else if (rc > 0) {
        snprintf(why, whylen, "git diff HEAD in %s failed (exit status %d)", src, rc);
        rc = -1;
    } else if (rc == 0 && !out) {
        snprintf(why, whylen, "git diff HEAD in %s is empty: the changes the build saw are gone", src);
        rc = -1;
    }
    if (rc) {
        free(out);
        *len = 0;
        return -1;
    }
    *text = out;
    return 0;
}
