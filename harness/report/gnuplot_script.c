/* gnuplot scripts and data labels in which strings stay strings (gnuplot_script.h). */
#include "report/gnuplot_script.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void bb_gp_script_init(bb_gp_script *s) { memset(s, 0, sizeof *s); }

void bb_gp_script_free(bb_gp_script *s)
{
    free(s->text);
    memset(s, 0, sizeof *s);
}

static void put_bytes(bb_gp_script *s, const char *p, size_t n)
{
    if (s->failed) return;
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap < s->len + n + 1) cap *= 2;
        char *t = realloc(s->text, cap);
        if (!t) {
            s->failed = true;
            return;
        }
        s->text = t;
        s->cap = cap;
    }
    memcpy(s->text + s->len, p, n);
    s->len += n;
    s->text[s->len] = 0;
}

static void put_str(bb_gp_script *s, const char *p) { put_bytes(s, p, strlen(p)); }

static void put_fmt(bb_gp_script *s, const char *fmt, ...)
{
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) s->failed = true;
    else put_bytes(s, buf, (size_t)n);
}

/* The length of the well-formed UTF-8 sequence at p (1 to 4), 0 when p does not start one
 * (a stray continuation byte, an overlong form, a surrogate, a code point above U+10FFFF, a cut
 * sequence). */
static size_t utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80) return 1;
    size_t n;
    unsigned cp;
    if (p[0] >= 0xC2 && p[0] <= 0xDF) n = 2, cp = p[0] & 0x1F;
    else if (p[0] >= 0xE0 && p[0] <= 0xEF) n = 3, cp = p[0] & 0x0F;
    else if (p[0] >= 0xF0 && p[0] <= 0xF4) n = 4, cp = p[0] & 0x07;
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0; /* also stops at the terminating NUL */
        cp = cp << 6 | (p[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* The text of value with control characters (C0, DEL and C1) as spaces and bytes that are not
 * UTF-8 as '?'; in_data: for a double-quoted data field ('"' -> ''', '\' -> '/'), else for a
 * single-quoted script literal (''' doubled). */
static void put_text(bb_gp_script *s, const char *value, bool in_data)
{
    const unsigned char *p = (const unsigned char *)value;
    while (*p) {
        size_t n = utf8_len(p);
        if (n == 0) {
            put_str(s, "?");
            p++;
        } else if (n == 1) {
            char c = (char)*p;
            if (*p < 0x20 || *p == 0x7F) c = ' ';
            else if (in_data && c == '"') c = '\'';
            else if (in_data && c == '\\') c = '/';
            else if (!in_data && c == '\'') put_str(s, "'"); /* the first of two */
            put_bytes(s, &c, 1);
            p++;
        } else {
            if (n == 2 && p[0] == 0xC2 && p[1] < 0xA0) put_str(s, " "); /* U+0080..U+009F */
            else put_bytes(s, (const char *)p, n);
            p += n;
        }
    }
}

static bool is_identifier(const char *name)
{
    if (!name || !(*name == '_' || (*name >= 'A' && *name <= 'Z') || (*name >= 'a' && *name <= 'z'))) return false;
    for (const char *p = name + 1; *p; p++)
        if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            return false;
    return true;
}

/* "name = " after checking name; false (and the script failed) for a name that is not ours. */
static bool put_name(bb_gp_script *s, const char *name)
{
    if (!is_identifier(name)) {
        s->failed = true;
        return false;
    }
    put_str(s, name);
    put_str(s, " = ");
    return true;
}

void bb_gp_set_text(bb_gp_script *s, const char *name, const char *value)
{
    if (!put_name(s, name)) return;
    put_str(s, "'");
    put_text(s, value ? value : "", false);
    put_str(s, "'\n");
}

static int path_ok(const char *path, char *err, size_t errlen)
{
    if (!path || path[0] != '/') {
        snprintf(err, errlen, "gnuplot is given absolute paths only, not '%s'", path ? path : "");
        return -1;
    }
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        if (*p < 0x20 || *p == 0x7F) {
            snprintf(err, errlen, "path '%.*s...' holds a control character (byte %d); gnuplot cannot be given it",
                     (int)((const char *)p - path), path, *p);
            return -1;
        }
    return 0;
}

/* A path verbatim in a single-quoted literal: only its quotes doubled (path_ok ruled out the
 * rest). */
static void put_path(bb_gp_script *s, const char *path)
{
    put_str(s, "'");
    for (const char *p = path; *p; p++) put_bytes(s, *p == '\'' ? "''" : p, *p == '\'' ? 2 : 1);
    put_str(s, "'\n");
}

int bb_gp_set_path(bb_gp_script *s, const char *name, const char *path, char *err, size_t errlen)
{
    if (path_ok(path, err, errlen)) return -1;
    if (put_name(s, name)) put_path(s, path);
    return 0;
}

int bb_gp_load(bb_gp_script *s, const char *path, char *err, size_t errlen)
{
    if (path_ok(path, err, errlen)) return -1;
    put_str(s, "load ");
    put_path(s, path);
    return 0;
}

void bb_gp_set_number(bb_gp_script *s, const char *name, double value)
{
    if (!put_name(s, name)) return;
    /* %.17g prints an integral value without a point: gnuplot would then divide as integers */
    if (isfinite(value)) put_fmt(s, "%.17e\n", value);
    else put_str(s, "NaN\n");
}

void bb_gp_set_int(bb_gp_script *s, const char *name, long value)
{
    if (put_name(s, name)) put_fmt(s, "%ld\n", value);
}

void bb_gp_append(bb_gp_script *s, const bb_gp_script *from)
{
    if (from->failed) s->failed = true;
    else if (from->len) put_bytes(s, from->text, from->len);
}

int bb_gp_script_write(const bb_gp_script *s, const char *path, char *err, size_t errlen)
{
    if (s->failed) {
        snprintf(err, errlen, "%s: the gnuplot script could not be built (out of memory)", path);
        return -1;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t n = s->len ? fwrite(s->text, 1, s->len, f) : 0;
    int bad = n != s->len || ferror(f);
    if (fclose(f) || bad) {
        snprintf(err, errlen, "%s: write error", path);
        return -1;
    }
    return 0;
}

int bb_gp_data_label(const char *s, char **out)
{
    bb_gp_script b;
    bb_gp_script_init(&b);
    put_str(&b, "\"");
    put_text(&b, s ? s : "", true);
    put_str(&b, "\"");
    if (b.failed) {
        bb_gp_script_free(&b);
        *out = NULL;
        return -1;
    }
    *out = b.text;
    return 0;
}

int bb_gp_write_data_label(FILE *f, const char *s)
{
    char *label;
    if (bb_gp_data_label(s, &label)) return -1;
    int rc = fputs(label, f) < 0 ? -1 : 0;
    free(label);
    return rc;
}
