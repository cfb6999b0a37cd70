/* Strings from files rendered for a terminal (term_text.h). */
#include "support/term_text.h"

#include <string.h>

/* The length of the valid UTF-8 sequence at s (1..4), 0 when s does not start one (RFC 3629:
 * no overlong forms, no surrogates, nothing past U+10FFFF). */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) return (s[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
        return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
        return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80 ? 4 : 0;
    }
    return 0;
}

/* The next unit of s: its rendering into buf (at most 8 bytes and a NUL), and how many bytes of
 * s it takes.  A NUL in the middle of a sequence ends it as invalid (the checks above fail on 0). */
static size_t next_unit(const unsigned char *s, char buf[16])
{
    static const char hex[] = "0123456789abcdef";
    size_t n = utf8_len(s);
    if (n == 1 && (s[0] >= 0x20 || s[0] == '\t') && s[0] != 0x7f) {
        buf[0] = (char)s[0];
        buf[1] = 0;
        return 1;
    }
    if (n == 2 && s[0] == 0xc2 && s[1] <= 0x9f) { /* C1: both bytes shown */
        memcpy(buf, "\\xc2\\x", 6);
        buf[6] = hex[s[1] >> 4];
        buf[7] = hex[s[1] & 15];
        buf[8] = 0;
        return 2;
    }
    if (n > 1) {
        memcpy(buf, s, n);
        buf[n] = 0;
        return n;
    }
    buf[0] = '\\';
    buf[1] = 'x';
    buf[2] = hex[s[0] >> 4];
    buf[3] = hex[s[0] & 15];
    buf[4] = 0;
    return 1;
}

const char *bb_term_text(const char *s, char *out, size_t len)
{
    size_t used = 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        char buf[16];
        size_t take = next_unit(p, buf), n = strlen(buf);
        if (used + n + 1 > len) break;
        memcpy(out + used, buf, n);
        used += n;
        p += take;
    }
    out[used] = 0;
    return out;
}

void bb_term_fputs(const char *s, FILE *f)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        char buf[16];
        p += next_unit(p, buf);
        fputs(buf, f);
    }
}

void bb_term_fputs_lines(const char *s, FILE *f)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        char buf[16];
        if (*p == '\n') {
            fputc('\n', f);
            p++;
            continue;
        }
        p += next_unit(p, buf);
        fputs(buf, f);
    }
}

int bb_term_columns(const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    int n = 0;
    for (; *p; p++) n += (*p & 0xc0) != 0x80; /* a code point starts at every byte but a continuation */
    return n;
}
