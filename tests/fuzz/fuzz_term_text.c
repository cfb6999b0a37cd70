/* Fuzz target: strings from files rendered for a terminal (support/term_text.c), the helper
 * behind every name from a file that bitbench prints in human text.
 *
 * Input: a length byte (the buffer of bb_term_text is 1 + that many bytes), then the string (up
 * to the first NUL).  Properties (a failure aborts):
 *   - bb_term_fputs's rendering is valid UTF-8 (RFC 3629, checked here independently) holding no
 *     C0 control but tab, no DEL and no C1 control U+0080..U+009F;
 *   - read back (each "\xNN" one byte, everything else itself) it is the input, when the input
 *     holds no backslash of its own;
 *   - a valid UTF-8 input without those controls is copied unchanged;
 *   - bb_term_text's bounded rendering is NUL-terminated within its buffer and is a prefix of
 *     the whole rendering that ends on a unit's border (the rest starts with a whole unit);
 *   - bb_term_columns of the rendering is its number of code points (counted here by their lead
 *     bytes' lengths, independently). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/term_text.h"

static void fail(const char *what, const char *in, const char *out)
{
    fprintf(stderr, "fuzz_term_text: %s\n--- input\n%s\n--- output (bytes shown as they are)\n%s\n", what, in, out);
    abort();
}

/* Valid UTF-8 without C0 (but tab), DEL or C1: the terminal-safe text. */
static bool safe_text(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        if (c < 0x80) {
            if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
            i++;
            continue;
        }
        size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
        if (!len || c < 0xc2 || c > 0xf4 || i + len > n) return false;
        uint32_t cp = c & (0x7f >> len);
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80) return false;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
            return false;
        i += len;
    }
    return true;
}

static int hexval(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t buflen = 1 + data[0];
    char *in = malloc(size);
    if (!in) return 0;
    memcpy(in, data + 1, size - 1);
    in[size - 1] = 0;
    size_t inlen = strlen(in);

    char *whole = NULL;
    size_t wlen = 0;
    FILE *m = open_memstream(&whole, &wlen);
    if (!m) abort();
    bb_term_fputs(in, m);
    fclose(m);
    if (strlen(whole) != wlen) fail("a NUL in the rendering", in, whole);
    if (!safe_text((const unsigned char *)whole, wlen)) fail("the rendering is not terminal-safe text", in, whole);
    int points = 0;
    for (size_t i = 0; i < wlen; points++) {
        unsigned c = (unsigned char)whole[i];
        i += c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    }
    if (bb_term_columns(whole) != points) fail("bb_term_columns is not the number of code points", in, whole);
    if (safe_text((const unsigned char *)in, inlen) && strcmp(in, whole)) fail("safe text was changed", in, whole);
    if (!strchr(in, '\\')) {
        char *back = malloc(wlen + 1);
        size_t n = 0;
        for (size_t i = 0; i < wlen;) {
            if (whole[i] == '\\') {
                int hi = i + 3 < wlen ? hexval(whole[i + 2]) : -1, lo = i + 3 < wlen ? hexval(whole[i + 3]) : -1;
                if (i + 3 >= wlen || whole[i + 1] != 'x' || hi < 0 || lo < 0) fail("a backslash that is not \\xNN", in, whole);
                back[n++] = (char)(hi << 4 | lo);
                i += 4;
            } else
                back[n++] = whole[i++];
        }
        back[n] = 0;
        if (n != inlen || memcmp(back, in, n)) fail("the rendering does not read back to the input", in, whole);
        free(back);
    }

    char *out = malloc(buflen);
    bb_term_text(in, out, buflen);
    size_t olen = strnlen(out, buflen);
    if (olen >= buflen) fail("not NUL-terminated within the buffer", in, out);
    if (strncmp(out, whole, olen)) fail("the bounded rendering is not a prefix of the whole", in, out);
    if (olen < wlen) {
        /* cut on a unit's border: the rest renders the same as the rest of the input would */
        const char *rest = whole + olen;
        if (!safe_text((const unsigned char *)rest, wlen - olen)) fail("cut inside a UTF-8 sequence", in, out);
        if (olen + 8 + 1 < buflen) fail("cut while a whole unit would still fit", in, out);
    }
    free(out);
    free(whole);
    free(in);
    return 0;
}
