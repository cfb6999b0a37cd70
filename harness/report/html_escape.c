/* HTML escaping of untrusted text (html_escape.h). */
#include "report/html_escape.h"

#include <string.h>

/* The length of the well-formed UTF-8 sequence at p (2 to 4 bytes; RFC 3629: no overlong forms,
 * no surrogates, nothing past U+10FFFF), 0 when p (a byte >= 0x80) does not start one. */
static size_t utf8_seq(const unsigned char *p, size_t left)
{
    unsigned char c = p[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else
        return 0;
    if (left < len || p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    /* U+0080..U+009F, the C1 controls, are two-byte sequences C2 80..C2 9F */
    if (c == 0xC2 && p[1] <= 0x9F) return 0;
    return len;
}

void bb_html_escape_n(FILE *f, const char *s, size_t n)
{
    static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        switch (c) {
        case '&': fputs("&amp;", f); i++; continue;
        case '<': fputs("&lt;", f); i++; continue;
        case '>': fputs("&gt;", f); i++; continue;
        case '"': fputs("&quot;", f); i++; continue;
        case '\'': fputs("&#39;", f); i++; continue;
        default: break;
        }
        if (c < 0x80) {
            if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) fputs(replacement, f);
            else fputc(c, f);
            i++;
            continue;
        }
        size_t len = utf8_seq(p + i, n - i);
        if (len) {
            fwrite(p + i, 1, len, f);
            i += len;
        } else {
            fputs(replacement, f);
            i++;
        }
    }
}

void bb_html_escape(FILE *f, const char *s)
{
    if (s) bb_html_escape_n(f, s, strlen(s));
}
