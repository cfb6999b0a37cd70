/* Files for tests: where the shared goldens are, write a text file, read one whole, remove a
 * scratch directory. */
#ifndef BB_TEST_FILES_H
#define BB_TEST_FILES_H

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Write text to path; exits the test on failure (nothing after it could work). */
/* The test data directory (docs/getting-started.md, "Test data"): BITBENCH_SHARED_DIR, else the
 * folder shared beside the source tree (BITBENCH_SOURCE_DIR, set by ctest). */
static inline void shared_dir(char *buf, size_t len)
{
    const char *sh = getenv("BITBENCH_SHARED_DIR"), *src = getenv("BITBENCH_SOURCE_DIR");
    if (sh) snprintf(buf, len, "%s", sh);
    else snprintf(buf, len, "%s/../shared", src ? src : ".");
}

static inline void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

/* The whole file, NUL-terminated and malloc'd; NULL when unreadable. */
static inline char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)len + 1);
    size_t got = s ? fread(s, 1, (size_t)len, f) : 0;
    if (s) s[got] = 0;
    fclose(f);
    return s;
}

/* The ids of a "KEY: 1 2 3" line of a golden ids file (llama2.c's and llama.cpp's greedy runs in
 * the test data directory: prompt_ids, generated_ids), at most cap of them.  Returns their count,
 * or -1 when the file cannot be read or has no such line. */
static inline int golden_ids(const char *path, const char *key, int *ids, int cap)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    static char line[1 << 16];
    int n = -1;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, key, strlen(key)) != 0 || !colon) continue;
        n = 0;
        for (char *tok = strtok(colon + 1, " \n"); tok && n < cap; tok = strtok(NULL, " \n")) ids[n++] = atoi(tok);
        break;
    }
    fclose(f);
    return n;
}

static inline int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* rm -rf of a directory this test made under /tmp: depth first, symbolic links removed, never
 * followed; no shell (a name holding a quote would be a command). */
static inline void remove_tree(const char *dir)
{
    if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
        fprintf(stderr, "could not remove %s: %s\n", dir, strerror(errno));
}

#endif
