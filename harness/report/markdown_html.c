/* Markdown to HTML for the report's paper tables and comparisons (markdown_html.h). */
#include "report/markdown_html.h"

#include <stdbool.h>
#include <string.h>

#include "report/html_escape.h"

/* n bytes of inline text: **bold** and `code` become tags (closed at the end of the span when
 * left open), the rest is escaped. */
static void inline_text(FILE *f, const char *s, size_t n)
{
    bool strong = false, code = false;
    size_t start = 0, i = 0;
    while (i < n) {
        if (!code && i + 1 < n && s[i] == '*' && s[i + 1] == '*') {
            bb_html_escape_n(f, s + start, i - start);
            fputs(strong ? "</strong>" : "<strong>", f);
            strong = !strong;
            i += 2;
            start = i;
        } else if (s[i] == '`') {
            bb_html_escape_n(f, s + start, i - start);
            fputs(code ? "</code>" : "<code>", f);
            code = !code;
            i++;
            start = i;
        } else
            i++;
    }
    bb_html_escape_n(f, s + start, n - start);
    if (code) fputs("</code>", f);
    if (strong) fputs("</strong>", f);
}

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t')) (*s)++, (*n)--;
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r')) (*n)--;
}

/* |---|:---:| : a table's separator line. */
static bool is_separator(const char *s, size_t n)
{
    bool dash = false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '-') dash = true;
        else if (!strchr("|: \t", s[i])) return false;
    }
    return dash;
}

/* The cells of one table row (the leading and trailing '|' dropped; "\|" is a '|' in a cell). */
static void table_row(FILE *f, const char *s, size_t n, const char *tag)
{
    if (n && s[0] == '|') s++, n--;
    if (n && s[n - 1] == '|' && !(n >= 2 && s[n - 2] == '\\')) n--;
    fputs("<tr>", f);
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !(s[i] == '|' && !(i && s[i - 1] == '\\'))) continue;
        const char *c = s + start;
        size_t len = i - start;
        trim(&c, &len);
        fprintf(f, "<%s>", tag);
        inline_text(f, c, len);
        fprintf(f, "</%s>", tag);
        start = i + 1;
    }
    fputs("</tr>\n", f);
}

typedef enum { B_NONE, B_PARA, B_LIST, B_TABLE } block;

static void close_block(FILE *f, block *b)
{
    if (*b == B_PARA) fputs("</p>\n", f);
    else if (*b == B_LIST) fputs("</ul>\n", f);
    else if (*b == B_TABLE) fputs("</tbody></table>\n", f);
    *b = B_NONE;
}

void bb_markdown_html(FILE *f, const char *md)
{
    block b = B_NONE;
    const char *p = md ? md : "";
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *line = p, *next = nl ? nl + 1 : p + n;
        trim(&line, &n);
        if (n == 0) {
            close_block(f, &b);
        } else if (line[0] == '|') {
            if (b != B_TABLE) {
                close_block(f, &b);
                /* a header when the next line is the separator */
                const char *l2 = next, *nl2 = strchr(next, '\n');
                size_t n2 = nl2 ? (size_t)(nl2 - next) : strlen(next);
                trim(&l2, &n2);
                fputs("<table class=\"md\">", f);
                if (n2 && l2[0] == '|' && is_separator(l2, n2)) {
                    fputs("<thead>", f);
                    table_row(f, line, n, "th");
                    fputs("</thead>", f);
                    next = nl2 ? nl2 + 1 : l2 + n2;
                    b = B_TABLE;
                    fputs("<tbody>\n", f);
                    p = next;
                    continue;
                }
                fputs("<tbody>\n", f);
                b = B_TABLE;
            }
            if (!is_separator(line, n)) table_row(f, line, n, "td");
        } else if (line[0] == '#') {
            close_block(f, &b);
            size_t level = 0;
            while (level < n && line[level] == '#') level++;
            const char *h = line + level;
            size_t hn = n - level;
            trim(&h, &hn);
            int tag = level + 2 > 6 ? 6 : (int)level + 2; /* below the page's own h1 and h2 */
            fprintf(f, "<h%d>", tag);
            inline_text(f, h, hn);
            fprintf(f, "</h%d>\n", tag);
        } else if (n >= 2 && (line[0] == '-' || line[0] == '*') && line[1] == ' ') {
            if (b != B_LIST) {
                close_block(f, &b);
                fputs("<ul>\n", f);
                b = B_LIST;
            }
            fputs("<li>", f);
            inline_text(f, line + 2, n - 2);
            fputs("</li>\n", f);
        } else {
            if (b != B_PARA) {
                close_block(f, &b);
                fputs("<p>", f);
                b = B_PARA;
            } else
                fputs("<br>\n", f); /* the writers break lines where they mean it (compare's A: and B:) */
            inline_text(f, line, n);
        }
        p = next;
    }
    close_block(f, &b);
}
