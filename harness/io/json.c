#include "io/json.h"

#include <math.h>
#include <string.h>

void bb_json_init(bb_json *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
}

void bb_json_write_escaped(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default:
            if (*p < 0x20) fprintf(f, "\\u%04x", *p);
            else fputc(*p, f); /* UTF-8 passes through */
        }
    }
    fputc('"', f);
}

/* Comma, newline and indentation before an item, then its key. */
static void item(bb_json *j, const char *key)
{
    if (j->depth > 0) {
        if (j->has_items[j->depth]) fputc(',', j->f);
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++) fputs("  ", j->f);
        j->has_items[j->depth] = true;
    }
    if (key) {
        bb_json_write_escaped(j->f, key);
        fputs(": ", j->f);
    }
}

static void open_level(bb_json *j, const char *key, char c)
{
    item(j, key);
    fputc(c, j->f);
    if (j->depth + 1 < BB_JSON_MAX_DEPTH) j->depth++;
    j->has_items[j->depth] = false;
}

static void close_level(bb_json *j, char c)
{
    bool had = j->has_items[j->depth];
    if (j->depth > 0) j->depth--;
    if (had) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++) fputs("  ", j->f);
    }
    fputc(c, j->f);
}

void bb_json_object_begin(bb_json *j, const char *key) { open_level(j, key, '{'); }
void bb_json_object_end(bb_json *j) { close_level(j, '}'); }
void bb_json_array_begin(bb_json *j, const char *key) { open_level(j, key, '['); }
void bb_json_array_end(bb_json *j) { close_level(j, ']'); }

void bb_json_string(bb_json *j, const char *key, const char *v)
{
    item(j, key);
    if (v) bb_json_write_escaped(j->f, v);
    else fputs("null", j->f);
}

void bb_json_number(bb_json *j, const char *key, double v)
{
    item(j, key);
    if (isfinite(v)) fprintf(j->f, "%.17g", v);
    else fputs("null", j->f);
}

void bb_json_int(bb_json *j, const char *key, long long v)
{
    item(j, key);
    fprintf(j->f, "%lld", v);
}

void bb_json_bool(bb_json *j, const char *key, bool v)
{
    item(j, key);
    fputs(v ? "true" : "false", j->f);
}

void bb_json_null(bb_json *j, const char *key)
{
    item(j, key);
    fputs("null", j->f);
}

void bb_json_finish(bb_json *j) { fputc('\n', j->f); }
