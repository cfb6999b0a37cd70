/* Fuzz target: the gnuplot script writer (harness/report/gnuplot_script.c) that `bitbench plot` uses for
 * every string that reaches gnuplot -- titles with a foreign run.json's cpu_model, kernel and model
 * names in data files, the paths of its own files.
 *
 * The input is split at its NUL bytes into fields: text values (ttl, bars, y1), a path with and
 * without a leading '/', a data label, and the first 8 bytes as a double.  The rendered script is
 * then read back by gnuplot's own rules (below: commands end at a line break or a ';' outside a
 * string; inside '...' the only special character is the quote, written twice; outside a string
 * a backquote, '"', '@', '!', '$', '#', '|' or '<' would be gnuplot syntax that runs or expands
 * something) and must hold exactly the commands written, in order, each string one literal that
 * decodes to the value given -- unchanged when it was printable UTF-8, else printable UTF-8 (by
 * the C library's decoder, not ours) -- and a path only when it was absolute and free of control
 * characters.  The data label must be one double-quoted field with no '"' or '\' inside.  Any
 * difference aborts. */
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "report/gnuplot_script.h"

#define NFIELDS 7

static void fail(const char *what, const char *script)
{
    fprintf(stderr, "fuzz_gnuplot_script: %s\n--- script ---\n%s\n---\n", what, script ? script : "");
    abort();
}

/* Printable UTF-8 by the C library's decoder: well-formed, no C0, DEL or C1 control. */
static bool printable_utf8(const char *s, size_t n)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t i = 0;
    while (i < n) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, s + i, n - i, &st);
        if (k == (size_t)-1 || k == (size_t)-2 || k == 0) return false;
        if (wc < 0x20 || (wc >= 0x7F && wc < 0xA0) || (wc >= 0xD800 && wc <= 0xDFFF) || wc > 0x10FFFF) return false;
        i += k;
    }
    return true;
}

/* One command read back: name (empty for load), and either a literal or a number token. */
typedef struct {
    char name[32];
    bool is_load, is_literal;
    char *value; /* decoded literal or the number token, malloc'd */
} command;

/* Reads the script by gnuplot's quoting rules into cmds; aborts on anything a writer of ours
 * never produces. */
static int read_back(const char *script, command *cmds, int max)
{
    int n = 0;
    const char *p = script;
    while (*p) {
        if (n == max) fail("more commands than were written", script);
        command *c = &cmds[n++];
        memset(c, 0, sizeof *c);
        /* the name, or "load" */
        size_t len = 0;
        while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || (len && *p >= '0' && *p <= '9')) {
            if (len + 1 >= sizeof c->name) fail("a name too long", script);
            c->name[len++] = *p++;
        }
        if (!len) fail("a command that does not start with a name", script);
        if (!strcmp(c->name, "load")) {
            c->is_load = true;
            if (*p++ != ' ') fail("load without a space", script);
        } else if (strncmp(p, " = ", 3)) {
            fail("an assignment without ' = '", script);
        } else
            p += 3;
        if (*p == '\'') {
            /* a single-quoted literal: '' is one quote; it ends at a quote not followed by one */
            c->is_literal = true;
            size_t cap = strlen(p) + 1, m = 0;
            c->value = malloc(cap);
            if (!c->value) abort();
            for (p++;; p++) {
                if (!*p) fail("a string literal that does not end", script);
                if (*p == '\n' || *p == '\r') fail("a line break inside a string literal ends the command", script);
                if (*p == '\'' && p[1] == '\'') {
                    c->value[m++] = '\'';
                    p++;
                } else if (*p == '\'') {
                    p++;
                    break;
                } else
                    c->value[m++] = *p;
            }
            c->value[m] = 0;
        } else {
            /* a number token: only what a number is made of (no identifier, no operator that
             * could start another expression) */
            const char *start = p;
            while (*p && *p != '\n') {
                if (!strchr("0123456789.eE+-NaN", *p)) fail("a character outside a string literal that is not a number's", script);
                p++;
            }
            c->value = strndup(start, (size_t)(p - start));
            if (!c->value) abort();
        }
        if (*p != '\n') fail("text after a value on its line (a second command)", script);
        p++;
    }
    return n;
}

/* Checks a literal read back against the value written as text. */
static void check_text(const char *written, const char *read, const char *script)
{
    if (!printable_utf8(read, strlen(read))) fail("a text literal is not printable UTF-8", script);
    if (printable_utf8(written, strlen(written)) && strcmp(written, read))
        fail("a printable text did not come back unchanged", script);
    if (strlen(read) > strlen(written)) fail("a text literal is longer than its input", script);
}

static void check_label(const char *written, const char *label)
{
    size_t n = strlen(label);
    if (n < 2 || label[0] != '"' || label[n - 1] != '"') fail("a data label is not one double-quoted field", label);
    if (strpbrk(label + 1, "\"\\") != label + n - 1) fail("a data label holds '\"' or '\\' inside", label);
    if (!printable_utf8(label + 1, n - 2)) fail("a data label is not printable UTF-8", label);
    if (printable_utf8(written, strlen(written)) && !strpbrk(written, "\"\\") &&
        (strlen(written) != n - 2 || memcmp(written, label + 1, n - 2)))
        fail("a printable data label did not come back unchanged", label);
}

/* A command as written: name, kind (t text, p path, n number, i int, l load) and the value. */
typedef struct {
    const char *name, *value;
    char kind;
} written;

static bool has_control(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7F) return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool locale_set;
    if (!locale_set) {
        if (!setlocale(LC_CTYPE, "C.UTF-8")) {
            fprintf(stderr, "fuzz_gnuplot_script: no C.UTF-8 locale\n");
            abort();
        }
        locale_set = true;
    }
    /* the fields, split at NUL bytes */
    char *copy = malloc(size + 1);
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    copy[size] = 0;
    const char *field[NFIELDS];
    size_t at = 0;
    for (int i = 0; i < NFIELDS; i++) {
        field[i] = at <= size ? copy + at : "";
        if (at <= size) at += strlen(copy + at) + 1;
    }
    double number = NAN;
    if (size >= sizeof number) memcpy(&number, data, sizeof number);
    char *abs_path = malloc(strlen(field[3]) + 2);
    if (!abs_path) abort();
    abs_path[0] = '/';
    strcpy(abs_path + 1, field[3]);

    /* what is written, in order */
    bb_gp_script s;
    bb_gp_script_init(&s);
    char err[256];
    written want[8];
    int nwant = 0;
    bb_gp_set_text(&s, "ttl", field[0]);
    want[nwant++] = (written){"ttl", field[0], 't'};
    bb_gp_set_text(&s, "bars", field[1]);
    want[nwant++] = (written){"bars", field[1], 't'};
    bb_gp_set_number(&s, "dram", number);
    want[nwant++] = (written){"dram", NULL, 'n'};
    bool abs_ok = !has_control(abs_path);
    if ((bb_gp_set_path(&s, "points", abs_path, err, sizeof err) == 0) != abs_ok)
        fail(abs_ok ? "an absolute path without control characters was refused" : "a path with a control character was taken",
             s.text);
    if (abs_ok) want[nwant++] = (written){"points", abs_path, 'p'};
    bool rel_ok = field[3][0] == '/' && !has_control(field[3]);
    if ((bb_gp_load(&s, field[3], err, sizeof err) == 0) != rel_ok)
        fail(rel_ok ? "an absolute load path was refused" : "a relative or control-holding load path was taken", s.text);
    if (rel_ok) want[nwant++] = (written){"load", field[3], 'l'};
    bb_gp_set_int(&s, "nblocks", (long)size - 3);
    want[nwant++] = (written){"nblocks", NULL, 'i'};
    bb_gp_script other;
    bb_gp_script_init(&other);
    bb_gp_set_text(&other, "y1", field[2]);
    bb_gp_append(&s, &other);
    bb_gp_script_free(&other);
    want[nwant++] = (written){"y1", field[2], 't'};
    if (s.failed) fail("the script failed to build", s.text);

    command cmds[16];
    int n = read_back(s.text ? s.text : "", cmds, 16);
    if (n != nwant) fail("the number of commands read back differs from the number written", s.text);
    for (int i = 0; i < n; i++) {
        command *c = &cmds[i];
        if (want[i].kind == 'l' ? !c->is_load : strcmp(c->name, want[i].name)) fail("a command came back as another", s.text);
        switch (want[i].kind) {
        case 't':
            if (!c->is_literal) fail("a text is not a literal", s.text);
            check_text(want[i].value, c->value, s.text);
            break;
        case 'p':
        case 'l':
            if (!c->is_literal || strcmp(c->value, want[i].value)) fail("a path did not come back unchanged", s.text);
            break;
        case 'n': {
            if (c->is_literal) fail("a number is a literal", s.text);
            if (!isfinite(number)) {
                if (strcmp(c->value, "NaN")) fail("a number that is not finite is not NaN", s.text);
            } else {
                char *end;
                double back = strtod(c->value, &end);
                if (*end || (back != number && !(back == 0 && number == 0))) fail("a number did not come back", s.text);
            }
            break;
        }
        default: {
            char expect[32];
            snprintf(expect, sizeof expect, "%ld", (long)size - 3);
            if (c->is_literal || strcmp(c->value, expect)) fail("an int did not come back", s.text);
        }
        }
        free(c->value);
    }
    bb_gp_script_free(&s);

    char *label;
    if (bb_gp_data_label(field[4], &label) == 0) {
        check_label(field[4], label);
        free(label);
    }
    free(abs_path);
    free(copy);
    return 0;
}
