/* Fuzz target: what `bitbench report` writes of untrusted text into its HTML page
 * (harness/report/html_escape.c, markdown_html.c, html_svg.c).
 *
 * The first byte chooses (mod 3), the rest is the input:
 *   0  bb_html_escape_n: the output holds no '<', '>', '"' or '\'', every '&' begins one of the
 *      five references the escaper writes, it is well-formed UTF-8 (by the C library's decoder)
 *      without control characters other than tab and line break, and -- when the input was
 *      already such text -- decoding the references gives the input back;
 *   1  bb_markdown_html: with the tags the converter writes taken out, nothing is left that is
 *      markup: no '<', '>' or '"' (text of the input can only be text);
 *   2  bb_page_inline_svg: an image it accepts has, in its output, no script, foreignObject or
 *      style element, no on... attribute and no javascript: URL (case-insensitive), and starts
 *      with <svg; a refusal writes nothing.
 * Any difference aborts. */
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/markdown_html.h"

static void fail(const char *what, const char *out)
{
    fprintf(stderr, "fuzz_html_escape: %s\n--- output ---\n%s\n---\n", what, out ? out : "");
    abort();
}

/* Well-formed UTF-8 (RFC 3629) without control characters other than tab and line break. glibc's
 * decoder also takes the old five- and six-byte forms (F8..FD leads, past U+10FFFF) that the
 * escaper rightly replaces, so code points past U+10FFFF and surrogates are refused here. */
static bool clean_text(const char *s, size_t n)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t i = 0;
    while (i < n) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, s + i, n - i, &st);
        if (k == (size_t)-1 || k == (size_t)-2 || k == 0) return false;
        if ((wc < 0x20 && wc != '\t' && wc != '\n') || (wc >= 0x7F && wc < 0xA0)) return false;
        if ((wc >= 0xD800 && wc <= 0xDFFF) || wc > 0x10FFFF) return false;
        i += k;
    }
    return true;
}

static void capture_begin(FILE **f, char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    *f = open_memstream(buf, len);
    if (!*f) abort();
}

static void check_escape(const char *in, size_t n)
{
    FILE *f;
    char *out;
    size_t len;
    capture_begin(&f, &out, &len);
    bb_html_escape_n(f, in, n);
    fclose(f);
    static const char *const refs[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
    static const char plain[] = "&<>\"'";
    if (strpbrk(out, "<>\"'")) fail("a raw '<', '>', '\"' or '\\'' in escaped text", out);
    if (strlen(out) != len) fail("a NUL in escaped text", out);
    if (!clean_text(out, len)) fail("escaped text is not clean UTF-8", out);
    /* decode the references; every '&' must begin one */
    char *back = malloc(len + 1);
    if (!back) abort();
    size_t m = 0;
    for (size_t i = 0; i < len;) {
        if (out[i] != '&') {
            back[m++] = out[i++];
            continue;
        }
        int r = 0;
        while (r < 5 && strncmp(out + i, refs[r], strlen(refs[r]))) r++;
        if (r == 5) fail("an '&' that begins no reference of ours", out);
        back[m++] = plain[r];
        i += strlen(refs[r]);
    }
    if (clean_text(in, n) && (m != n || memcmp(back, in, n))) fail("clean text did not come back unchanged", out);
    free(back);
    free(out);
}

/* The tags bb_markdown_html writes (html_page.h's markdown); anything else starting with '<' is
 * a failure. */
static void check_markdown(const char *in)
{
    static const char *const tags[] = {"<table class=\"md\">", "</table>", "<thead>", "</thead>", "<tbody>", "</tbody>",
                                       "<tr>", "</tr>", "<th>", "</th>", "<td>", "</td>", "<p>", "</p>", "<ul>", "</ul>",
                                       "<li>", "</li>", "<strong>", "</strong>", "<code>", "</code>", "<h3>", "</h3>",
                                       "<h4>", "</h4>", "<h5>", "</h5>", "<h6>", "</h6>", "<br>", NULL};
    FILE *f;
    char *out;
    size_t len;
    capture_begin(&f, &out, &len);
    bb_markdown_html(f, in);
    fclose(f);
    for (size_t i = 0; i < len;) {
        if (out[i] == '>' || out[i] == '"') fail("a raw '>' or '\"' outside the converter's tags", out);
        if (out[i] != '<') {
            i++;
            continue;
        }
        int t = 0;
        while (tags[t] && strncmp(out + i, tags[t], strlen(tags[t]))) t++;
        if (!tags[t]) fail("markup the converter does not write", out + i);
        i += strlen(tags[t]);
    }
    free(out);
}

static void check_svg(const char *in, size_t n)
{
    FILE *f;
    char *out, why[300];
    size_t len;
    capture_begin(&f, &out, &len);
    int rc = bb_page_inline_svg(f, in, n, "p0-", why, sizeof why);
    fclose(f);
    if (rc) {
        if (len) fail("a refused image wrote something", out);
    } else {
        if (strncmp(out, "<svg", 4)) fail("an accepted image does not start with <svg", out);
        static const char *const banned[] = {"<script", "<foreignobject", "<style", "<iframe", NULL};
        for (int b = 0; banned[b]; b++)
            if (strcasestr(out, banned[b])) fail("an accepted image holds what could run or load", out);
        /* inside a tag: an on... attribute (whitespace, "on", letters, '='), or a javascript: URL in
         * an attribute value; "javascript:" in a text node or an attribute's name is inert */
        bool in_tag = false;
        char quote = 0;
        for (size_t i = 0; i < len; i++) {
            char c = out[i];
            if (quote) {
                if (i + 11 <= len && !strncasecmp(out + i, "javascript:", 11))
                    fail("an accepted image holds a javascript: URL in an attribute value", out);
                if (c == quote) quote = 0;
            } else if (in_tag && (c == '\'' || c == '"')) {
                quote = c;
            } else if (c == '<') {
                in_tag = true;
            } else if (c == '>') {
                in_tag = false;
            } else if (in_tag && (c == ' ' || c == '\t' || c == '\n' || c == '\r') && i + 2 < len &&
                       (out[i + 1] | 0x20) == 'o' && (out[i + 2] | 0x20) == 'n') {
                size_t j = i + 3;
                while (j < len && ((out[j] | 0x20) >= 'a' && (out[j] | 0x20) <= 'z')) j++;
                if (j < len && out[j] == '=') fail("an accepted image has an on... attribute", out);
            }
        }
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool locale_set;
    if (!locale_set) {
        if (!setlocale(LC_CTYPE, "C.UTF-8")) {
            fprintf(stderr, "fuzz_html_escape: no C.UTF-8 locale\n");
            abort();
        }
        locale_set = true;
    }
    if (size == 0) return 0;
    char *in = malloc(size);
    if (!in) return 0;
    memcpy(in, data + 1, size - 1);
    in[size - 1] = 0;
    switch (data[0] % 3) {
    case 0: check_escape(in, size - 1); break;
    case 1: check_markdown(in); break;
    default: check_svg(in, size - 1); break;
    }
    free(in);
    return 0;
}
