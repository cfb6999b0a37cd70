/* support/input_file.h and support/output_file.h: readers refuse what is not a regular file or is
 * too large, without blocking; writers replace a target only when the new file is whole and never
 * touch a target that is not a regular file. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "support/input_file.h"
#include "support/output_file.h"

static char dir[256];

static void test_input(void)
{
    char err[512], path[512], fifo[512];
    snprintf(path, sizeof path, "%s/text", dir);
    write_text(path, "hello");
    size_t len = 0;
    char *s = bb_input_read_all(path, "text", 100, &len, err, sizeof err);
    CHECK(s && len == 5 && strcmp(s, "hello") == 0, "read %s", s ? s : err);
    free(s);
    s = bb_input_read_all(path, "text", 4, &len, err, sizeof err);
    CHECK(!s && strstr(err, "more than the 4 bytes"), "size bound: %s", err);
    free(s);

    /* A FIFO with no writer: open() would wait forever without O_NONBLOCK. */
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
    FILE *f = bb_input_open(fifo, "model", BB_INPUT_ANY_SIZE, NULL, err, sizeof err);
    CHECK(!f && strstr(err, "a FIFO, not a regular file") && strstr(err, "model"), "fifo: %s", err);
    if (f) fclose(f);
    f = bb_input_open("/dev/zero", "text", BB_INPUT_ANY_SIZE, NULL, err, sizeof err);
    CHECK(!f && strstr(err, "a character device"), "/dev/zero: %s", err);
    if (f) fclose(f);
    f = bb_input_open(dir, "text", BB_INPUT_ANY_SIZE, NULL, err, sizeof err);
    CHECK(!f && strstr(err, "a directory"), "dir: %s", err);
    if (f) fclose(f);
    f = bb_input_open("/nonexistent/x", "text", BB_INPUT_ANY_SIZE, NULL, err, sizeof err);
    CHECK(!f && strstr(err, "cannot open"), "missing: %s", err);
    if (f) fclose(f);
}

static int count_entries(void)
{
    char cmd[512];
    int n = 0;
    snprintf(cmd, sizeof cmd, "%s", dir);
    DIR *d = opendir(cmd);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))) n++;
    if (d) closedir(d);
    return n;
}

static void test_output(void)
{
    char err[512], path[512];
    snprintf(path, sizeof path, "%s/out.csv", dir);
    write_text(path, "old");
    chmod(path, 0640);
    int before = count_entries();

    /* Aborted: the old file stays, no temporary is left. */
    bb_output_file o;
    FILE *f = bb_output_begin(&o, path, err, sizeof err);
    CHECK(f != NULL, "begin: %s", err);
    if (f) fputs("half", f);
    bb_output_abort(&o);
    char *s = slurp(path);
    CHECK(s && strcmp(s, "old") == 0, "after abort: %s", s ? s : "(none)");
    free(s);
    CHECK(count_entries() == before, "a temporary file was left: %d entries, %d before", count_entries(), before);

    /* Committed: the new content, the old mode. */
    f = bb_output_begin(&o, path, err, sizeof err);
    CHECK(f != NULL, "begin: %s", err);
    if (f) fputs("new", f);
    CHECK(bb_output_commit(&o, err, sizeof err) == 0, "commit: %s", err);
    s = slurp(path);
    CHECK(s && strcmp(s, "new") == 0, "after commit: %s", s ? s : "(none)");
    free(s);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640, "mode %o", (unsigned)st.st_mode & 0777);
    CHECK(count_entries() == before, "entries %d, %d before", count_entries(), before);

    /* Targets that are not regular files are refused before anything is written. */
    const char *bad[] = {"/dev/null", "/dev/full", dir};
    for (int i = 0; i < 3; i++) {
        CHECK(bb_output_check(bad[i], err, sizeof err) != 0 && strstr(err, "only as regular files"), "%s: %s",
              bad[i], err);
        CHECK(bb_output_begin(&o, bad[i], err, sizeof err) == NULL, "%s accepted", bad[i]);
    }
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    CHECK(bb_output_check(fifo, err, sizeof err) != 0 && strstr(err, "a FIFO"), "fifo: %s", err);
    struct stat fst;
    CHECK(stat("/dev/null", &fst) == 0 && S_ISCHR(fst.st_mode), "/dev/null is still a device");

    /* A missing folder is said before any work. */
    char missing[600];
    snprintf(missing, sizeof missing, "%s/no/such/out.csv", dir);
    CHECK(bb_output_check(missing, err, sizeof err) != 0 && strstr(err, "does not exist"), "missing: %s", err);
    CHECK(bb_output_check(path, err, sizeof err) == 0, "check of a writable file: %s", err);
    CHECK(count_entries() == before, "the check left a file");
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/bb_file_safety_XXXXXX");
    if (!mkdtemp(dir)) return 1;
    test_input();
    test_output();
    char p[600];
    snprintf(p, sizeof p, "%s/text", dir), unlink(p);
    snprintf(p, sizeof p, "%s/fifo", dir), unlink(p);
    snprintf(p, sizeof p, "%s/out.csv", dir), unlink(p);
    rmdir(dir);
    return check_summary("test_file_safety");
}
