/* A strict JSON reader for tests (RFC 8259: no trailing commas, no comments, one value), so
 * that tests parse what bitbench writes with code independent of the writer.  Builds a small
 * tree; json_get/json_at walk it. */
#ifndef BB_JSON_CHECK_H
#define BB_JSON_CHECK_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jnode {
    jtype t;
    double num;
    int b;
    char *str;
    char *key;           /* member name inside an object */
    struct jnode *kids;
    int nkids;
} jnode;

typedef struct {
    const char *p;
    char err[200];
} jparser;

static int j_value(jparser *ps, jnode *out);

static void j_ws(jparser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static int j_fail(jparser *ps, const char *what)
{
    if (!ps->err[0]) snprintf(ps->err, sizeof ps->err, "%s at '%.20s'", what, ps->p);
    return -1;
}

static int j_string(jparser *ps, char **out)
{
    if (*ps->p != '"') return j_fail(ps, "expected a string");
    ps->p++;
    size_t cap = 16, n = 0;
    char *s = malloc(cap);
    for (;;) {
        unsigned char c = (unsigned char)*ps->p;
        if (!c || c < 0x20) {
            free(s);
            return j_fail(ps, "bad character in string");
        }
        ps->p++;
        if (c == '"') break;
        if (c == '\\') {
            char e = *ps->p++;
            switch (e) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case '/': c = '/'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u':
                for (int i = 0; i < 4; i++)
                    if (!isxdigit((unsigned char)ps->p[i])) {
                        free(s);
                        return j_fail(ps, "bad \\u escape");
                    }
                c = (unsigned char)strtol((char[5]){ps->p[0], ps->p[1], ps->p[2], ps->p[3], 0}, NULL, 16);
                ps->p += 4;
                break;
            default: free(s); return j_fail(ps, "bad escape");
            }
        }
        if (n + 2 > cap) s = realloc(s, cap *= 2);
        s[n++] = (char)c;
    }
    s[n] = 0;
    *out = s;
    return 0;
}

static int j_number(jparser *ps, jnode *out)
{
    const char *start = ps->p;
    if (*ps->p == '-') ps->p++;
    if (*ps->p == '0') ps->p++;
    else if (isdigit((unsigned char)*ps->p)) while (isdigit((unsigned char)*ps->p)) ps->p++;
    else return j_fail(ps, "bad number");
    if (*ps->p == '.') {
        ps->p++;
        if (!isdigit((unsigned char)*ps->p)) return j_fail(ps, "bad fraction");
        while (isdigit((unsigned char)*ps->p)) ps->p++;
    }
    if (*ps->p == 'e' || *ps->p == 'E') {
        ps->p++;
        if (*ps->p == '+' || *ps->p == '-') ps->p++;
        if (!isdigit((unsigned char)*ps->p)) return j_fail(ps, "bad exponent");
        while (isdigit((unsigned char)*ps->p)) ps->p++;
    }
    out->t = J_NUM;
    out->num = strtod(start, NULL);
    return 0;
}

static int j_push(jnode *parent, jnode *kid)
{
    parent->kids = realloc(parent->kids, sizeof *kid * (size_t)(parent->nkids + 1));
    parent->kids[parent->nkids++] = *kid;
    return 0;
}

static int j_value(jparser *ps, jnode *out)
{
    memset(out, 0, sizeof *out);
    j_ws(ps);
    char c = *ps->p;
    if (c == '{' || c == '[') {
        out->t = c == '{' ? J_OBJ : J_ARR;
        ps->p++;
        j_ws(ps);
        if (*ps->p == (c == '{' ? '}' : ']')) {
            ps->p++;
            return 0;
        }
        for (;;) {
            jnode kid;
            char *key = NULL;
            j_ws(ps);
            if (c == '{') {
                if (j_string(ps, &key)) return -1;
                j_ws(ps);
                if (*ps->p++ != ':') return j_fail(ps, "expected ':'");
            }
            if (j_value(ps, &kid)) {
                free(key);
                return -1;
            }
            kid.key = key;
            j_push(out, &kid);
            j_ws(ps);
            if (*ps->p == ',') {
                ps->p++;
                continue;
            }
            if (*ps->p == (c == '{' ? '}' : ']')) {
                ps->p++;
                return 0;
            }
            return j_fail(ps, "expected ',' or a closing bracket");
        }
    }
    if (c == '"') {
        out->t = J_STR;
        return j_string(ps, &out->str);
    }
    if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "false", 5)) {
        out->t = J_BOOL;
        out->b = *ps->p == 't';
        ps->p += out->b ? 4 : 5;
        return 0;
    }
    if (!strncmp(ps->p, "null", 4)) {
        out->t = J_NULL;
        ps->p += 4;
        return 0;
    }
    return j_number(ps, out);
}

static void json_free_node(jnode *n)
{
    for (int i = 0; i < n->nkids; i++) json_free_node(&n->kids[i]);
    free(n->kids);
    free(n->str);
    free(n->key);
}

/* Parse text; NULL with err on any deviation from the grammar. */
static jnode *json_parse(const char *text, char *err, size_t errlen)
{
    jparser ps = {.p = text};
    jnode *root = calloc(1, sizeof *root);
    if (j_value(&ps, root) == 0) {
        j_ws(&ps);
        if (!*ps.p) return root;
        j_fail(&ps, "text after the value");
    }
    snprintf(err, errlen, "%s", ps.err);
    json_free_node(root);
    free(root);
    return NULL;
}

static void json_free(jnode *root)
{
    if (!root) return;
    json_free_node(root);
    free(root);
}

/* "points.done", "meters.0.name": object members and array indexes. */
static const jnode *json_at(const jnode *n, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *tok = strtok(buf, "."); tok && n; tok = strtok(NULL, ".")) {
        const jnode *next = NULL;
        if (n->t == J_OBJ) {
            for (int i = 0; i < n->nkids && !next; i++)
                if (!strcmp(n->kids[i].key, tok)) next = &n->kids[i];
        } else if (n->t == J_ARR) {
            int idx = atoi(tok);
            if (idx >= 0 && idx < n->nkids) next = &n->kids[idx];
        }
        n = next;
    }
    return n;
}

#endif
