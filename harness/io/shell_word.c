/* Strings as shell words (shell_word.h). */
#include "io/shell_word.h"

#include <stdlib.h>
#include <string.h>

#include "support/term_text.h"

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

/* Whether a terminal shows s as it is: bb_term_text changes nothing. */
static int shown_as_is(const char *s)
{
    char *shown = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&shown, &len);
    if (!m) return 0; /* cannot tell: the escaped form is safe either way */
    bb_term_fputs(s, m);
    int same = fclose(m) == 0 && strcmp(shown, s) == 0;
    free(shown);
    return same;
}

void bb_shell_path_shown(FILE *f, const char *path)
{
    if (shown_as_is(path)) {
        bb_shell_path(f, path);
        return;
    }
    if (path[0] == '-') fputs("./", f);
    fputs("$'", f);
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '\'' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p >= 0x20 && *p < 0x7f) fputc(*p, f);
        else fprintf(f, "\\x%02x", *p);
    }
    fputc('\'', f);
}
