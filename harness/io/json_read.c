#include "io/json_read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/input_file.h"

/* Nesting deeper than this is refused rather than recursed into. */
#define JSON_MAX_DEPTH 64

typedef struct {
    const char *s, *p;
    char *err;
    size_t errlen;
    bool failed;
} parser;

/* Record the first error; returns -1 so that callers can `return fail(...)`. */
static int fail(parser *ps, const char *what)
{
    if (!ps->failed) snprintf(ps->err, ps->errlen, "offset %ld: %s", (long)(ps->p - ps->s), what);
    ps->failed = true;
    return -1;
}

static void skip_ws(parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t put_utf8(char *out, unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A \u escape at p (after the backslash-u), a surrogate pair taken whole.  Returns the code
 * point and advances *p, or -1. */
static long unicode_escape(const char **p)
{
    int hi = hex4(*p);
    if (hi < 0) return -1;
    *p += 4;
    if (hi < 0xD800 || hi > 0xDFFF) return hi;
    if (hi > 0xDBFF || (*p)[0] != '\\' || (*p)[1] != 'u') return -1;
    int lo = hex4(*p + 2);
    if (lo < 0xDC00 || lo > 0xDFFF) return -1;
    *p += 6;
    return 0x10000 + ((long)(hi - 0xD800) << 10) + (lo - 0xDC00);
}

/* A string at ps->p (on the opening quote), decoded; NULL on error.  Decoding never lengthens
 * the text (\u escapes are 6 bytes for at most 4), so the quoted length bounds the result. */
static char *parse_string(parser *ps)
{
    const char *q = ++ps->p;
    while (*q && *q != '"') q += *q == '\\' && q[1] ? 2 : 1;
    char *out = malloc((size_t)(q - ps->p) + 1), *o = out;
    if (!out) {
        fail(ps, "out of memory");
        return NULL;
    }
    for (;;) {
        unsigned char c = (unsigned char)*ps->p;
        if (c == '"') break;
        if (c < 0x20) {
            fail(ps, c ? "a control character in a string" : "an unterminated string");
            free(out);
            return NULL;
        }
        ps->p++;
        if (c != '\\') {
            *o++ = (char)c;
            continue;
        }
        char e = *ps->p;
        if (!e) { /* a backslash that ends the text: stay on the terminator, parsing stops here */
            fail(ps, "an unterminated string");
            free(out);
            return NULL;
        }
        ps->p++;
        const char *plain = strchr("\"\\/bfnrt", e);
        if (e && plain) {
            *o++ = "\"\\/\b\f\n\r\t"[plain - "\"\\/bfnrt"];
        } else if (e == 'u') {
            long cp = unicode_escape(&ps->p);
            if (cp < 0) {
                fail(ps, "a bad \\u escape");
                free(out);
                return NULL;
            }
            o += put_utf8(o, (unsigned)cp);
        } else {
            fail(ps, "a bad escape in a string");
            free(out);
            return NULL;
        }
    }
    ps->p++;
    *o = 0;
    return out;
}

static int parse_value(parser *ps, bb_jv *v, int depth);

/* The items of an array or object, after its opening bracket. */
static int parse_items(parser *ps, bb_jv *v, int depth, char close)
{
    int cap = 0;
    skip_ws(ps);
    if (*ps->p == close) {
        ps->p++;
        return 0;
    }
    for (;;) {
        if (v->n == cap) {
            cap = cap ? 2 * cap : 8;
            bb_jv *items = realloc(v->items, sizeof *items * (size_t)cap);
            char **keys = close == '}' ? realloc(v->keys, sizeof *keys * (size_t)cap) : NULL;
            if (items) v->items = items;
            if (keys) v->keys = keys;
            if (!items || (close == '}' && !keys)) return fail(ps, "out of memory");
        }
        skip_ws(ps);
        if (close == '}') {
            if (*ps->p != '"') return fail(ps, "a member name (a string) expected");
            v->keys[v->n] = parse_string(ps);
            if (!v->keys[v->n]) return -1;
            skip_ws(ps);
            if (*ps->p != ':') {
                free(v->keys[v->n]);
                return fail(ps, "':' expected after a member name");
            }
            ps->p++;
        }
        parse_value(ps, &v->items[v->n++], depth + 1);
        if (ps->failed) return -1;
        skip_ws(ps);
        if (*ps->p == ',') {
            ps->p++;
        } else if (*ps->p == close) {
            ps->p++;
            return 0;
        } else {
            return fail(ps, close == '}' ? "',' or '}' expected" : "',' or ']' expected");
        }
    }
}

static int parse_value(parser *ps, bb_jv *v, int depth)
{
    memset(v, 0, sizeof *v);
    skip_ws(ps);
    if (depth > JSON_MAX_DEPTH) return fail(ps, "nested too deeply");
    char c = *ps->p;
    if (c == '{' || c == '[') {
        v->type = c == '{' ? BB_JV_OBJ : BB_JV_ARR;
        ps->p++;
        return parse_items(ps, v, depth, c == '{' ? '}' : ']');
    }
    if (c == '"') {
        v->type = BB_JV_STR;
        v->str = parse_string(ps);
        return v->str ? 0 : -1;
    }
    static const struct { const char *word; bb_jv_type type; bool b; } words[] = {
        {"true", BB_JV_BOOL, true}, {"false", BB_JV_BOOL, false}, {"null", BB_JV_NULL, false}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strncmp(ps->p, words[i].word, strlen(words[i].word))) {
            v->type = words[i].type;
            v->b = words[i].b;
            ps->p += strlen(words[i].word);
            return 0;
        }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char *end;
        v->type = BB_JV_NUM;
        v->num = strtod(ps->p, &end);
        ps->p = end;
        return 0;
    }
    return fail(ps, c ? "a value expected" : "unexpected end of the document");
}

bb_jv *bb_json_parse(const char *text, char *err, size_t errlen)
{
    parser ps = {.s = text, .p = text, .err = err, .errlen = errlen};
    bb_jv *v = malloc(sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    parse_value(&ps, v, 0);
    skip_ws(&ps);
    if (!ps.failed && *ps.p) fail(&ps, "text after the document");
    if (ps.failed) {
        bb_jv_free(v);
        return NULL;
    }
    return v;
}

bb_jv *bb_json_load(const char *path, char *err, size_t errlen)
{
    char *text = bb_input_read_all(path, "JSON file", BB_JSON_MAX_BYTES, NULL, err, errlen);
    if (!text) return NULL;
    char why[256];
    bb_jv *v = bb_json_parse(text, why, sizeof why);
    if (!v) snprintf(err, errlen, "%s: not JSON: %s", path, why);
    free(text);
    return v;
}

static void free_items(bb_jv *v)
{
    for (int i = 0; i < v->n; i++) {
        free_items(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

void bb_jv_free(bb_jv *v)
{
    if (!v) return;
    free_items(v);
    free(v);
}

const bb_jv *bb_jv_get(const bb_jv *v, const char *key)
{
    if (!v || v->type != BB_JV_OBJ) return NULL;
    for (int i = 0; i < v->n; i++)
        if (!strcmp(v->keys[i], key)) return &v->items[i];
    return NULL;
}

const char *bb_jv_str(const bb_jv *v, const char *key)
{
    const bb_jv *m = bb_jv_get(v, key);
    return m && m->type == BB_JV_STR ? m->str : NULL;
}

double bb_jv_num(const bb_jv *v, const char *key)
{
    const bb_jv *m = bb_jv_get(v, key);
    return m && m->type == BB_JV_NUM ? m->num : NAN;
}
