/* What the fuzz targets share: the input as a file for readers that take a path, and a bound on
 * the Lua each input may run.
 *
 * Most readers open a path (they map or stream real files), so the input is written to one
 * memfd, reused across inputs, and passed as /proc/self/fd/N: no disk traffic, nothing left
 * behind, and the reader's own open/stat/mmap code runs as it does on a real file. */
#ifndef BB_FUZZ_INPUT_H
#define BB_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The path of a file holding exactly data[0, size); exits on failure (no input could run). */
static inline const char *fuzz_input_path(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("bitbench-fuzz", 0);
        if (fd < 0) {
            perror("memfd_create");
            exit(1);
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror("fuzz input memfd");
        exit(1);
    }
    return path;
}

/* data[0, size) as a NUL-terminated string (malloc'd; embedded NULs stay, ending it early). */
static inline char *fuzz_input_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) exit(1);
    if (size > 0) memcpy(s, data, size);
    s[size] = 0;
    return s;
}

#endif
