/* A minimal test vocabulary: CHECK counts failures and prints where; tests end with
 * check_summary(), which prints "N passed, N failed" and returns the exit status. */
#ifndef BB_CHECK_H
#define BB_CHECK_H

#include <stdio.h>

static int check_passed, check_failed;

/* Count one passed check where the failing branch reported its own details. */
#define PASS() (check_passed++)

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (cond) {                                                             \
            check_passed++;                                                     \
        } else {                                                                \
            check_failed++;                                                     \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

static inline int check_summary(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
