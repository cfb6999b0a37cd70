/* Strings as shell words (shell_word.h). */
#include "io/shell_word.h"

#include <string.h>

void bb_shell_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    }
    fputc('\'', f);
}

void bb_shell_word(FILE *f, const char *s)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-";
    size_t n = strlen(s);
    if (n && strspn(s, plain) == n) fputs(s, f);
    else bb_shell_quote(f, s);
}

void bb_shell_path(FILE *f, const char *path)
{
    if (path[0] == '-') fputs("./", f);
    bb_shell_word(f, path);
}
