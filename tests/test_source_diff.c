/* The source diff of a -dirty build (harness/run/source_diff.h), in a git repository made here: a
 * changed tree gives `git diff HEAD`; a clean build, a tree at another commit, a folder that is not
 * a work tree and a diff past the bound give no diff and one line saying why.  Skipped with a
 * message where there is no git. */
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "run/source_diff.h"

extern char **environ;

/* Run git with argv (after "git -C dir"), stdout to out (may be NULL: /dev/null).  Returns its exit
 * status, -1 when it could not run. */
static int git(const char *dir, const char *const *args, char *out, size_t outlen)
{
    const char *argv[16] = {"git", "-C", dir};
    int n = 3;
    for (int i = 0; args[i] && n < 15; i++) argv[n++] = args[i];
    argv[n] = NULL;
    int fds[2];
    if (pipe(fds)) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1 /* O_WRONLY */, 0);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int rc = posix_spawnp(&pid, "git", &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    size_t len = 0;
    ssize_t r;
    char buf[4096];
    while (rc == 0 && (r = read(fds[0], buf, sizeof buf)) > 0)
        if (out && len + (size_t)r < outlen) {
            memcpy(out + len, buf, (size_t)r);
            len += (size_t)r;
        }
    close(fds[0]);
    if (out && outlen) out[len < outlen ? len : outlen - 1] = 0;
    if (rc) return -1;
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void write_file(const char *path, const char *text, size_t repeat)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    for (size_t i = 0; i < repeat; i++) fputs(text, f);
    fclose(f);
}

int main(void)
{
    char dir[] = "/tmp/bb_source_diff_XXXXXX";
    if (!mkdtemp(dir)) return 1;
    const char *init[] = {"init", "-q", NULL};
    if (git(dir, init, NULL, 0) != 0) {
        printf("test_source_diff: skipped: git cannot run here (not installed?)\n");
        return 0;
    }
    const char *cfg1[] = {"config", "user.email", "t@example.com", NULL}, *cfg2[] = {"config", "user.name", "t", NULL};
    git(dir, cfg1, NULL, 0);
    git(dir, cfg2, NULL, 0);
    char path[256], big[256];
    snprintf(path, sizeof path, "%s/a.c", dir);
    snprintf(big, sizeof big, "%s/big.txt", dir);
    write_file(path, "int a;\n", 1);
    const char *add[] = {"add", "a.c", NULL}, *commit[] = {"commit", "-q", "-m", "one", NULL};
    git(dir, add, NULL, 0);
    git(dir, commit, NULL, 0);
    char head[128] = "";
    const char *rev[] = {"rev-parse", "--short", "HEAD", NULL};
    git(dir, rev, head, sizeof head);
    head[strcspn(head, "\n")] = 0;
    char dirty[160], why[1200];
    snprintf(dirty, sizeof dirty, "%s-dirty", head);
    char *text;
    size_t len;

    /* a clean build has no diff to take */
    CHECK(bb_source_diff(head, dir, &text, &len, why, sizeof why) == -1 && strstr(why, "not from changed files"),
          "clean: %s", why);
    /* a changed tree: its diff */
    write_file(path, "int a;\nint b;\n", 1);
    int rc = bb_source_diff(dirty, dir, &text, &len, why, sizeof why);
    CHECK(rc == 0 && text && strstr(text, "diff --git a/a.c b/a.c") && strstr(text, "\n+int b;\n") && len == strlen(text),
          "dirty: rc %d, %s", rc, rc ? why : text);
    free(rc == 0 ? text : NULL);
    /* the tree at another commit than the build's: not this build's diff */
    CHECK(bb_source_diff("0123456-dirty", dir, &text, &len, why, sizeof why) == -1 && strstr(why, "not the build's 0123456"),
          "other commit: %s", why);
    /* no work tree there */
    CHECK(bb_source_diff(dirty, "/nonexistent/src", &text, &len, why, sizeof why) == -1 &&
              strstr(why, "/nonexistent/src) is not a git work tree"),
          "no tree: %s", why);
    /* a diff past the bound is not kept */
    const char *addbig[] = {"add", "-N", "big.txt", NULL};
    write_file(big, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
               BB_SOURCE_DIFF_MAX_BYTES / 65 + 10);
    git(dir, addbig, NULL, 0);
    CHECK(bb_source_diff(dirty, dir, &text, &len, why, sizeof why) == -1 && strstr(why, "larger than 4 MiB"),
          "too large: %s", why);

    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return check_summary("test_source_diff");
}
