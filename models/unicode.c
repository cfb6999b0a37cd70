#include "unicode.h"

static int in_ranges(const bb_cp_range *r, int n, uint32_t cp)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (cp < r[mid].first) hi = mid - 1;
        else if (cp > r[mid].last) lo = mid + 1;
        else return 1;
    }
    return 0;
}

unsigned bb_unicode_class(uint32_t cp)
{
    if (cp < 0x80) { /* ASCII without a table search: most text is mostly ASCII */
        if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') return BB_CP_LETTER;
        if (cp >= '0' && cp <= '9') return BB_CP_NUMBER;
        if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D)) return BB_CP_SPACE;
        return 0;
    }
    unsigned c = 0;
    if (in_ranges(bb_unicode_letter_ranges, bb_unicode_letter_ranges_count, cp)) c |= BB_CP_LETTER;
    if (in_ranges(bb_unicode_number_ranges, bb_unicode_number_ranges_count, cp)) c |= BB_CP_NUMBER;
    if (in_ranges(bb_unicode_space_ranges, bb_unicode_space_ranges_count, cp)) c |= BB_CP_SPACE;
    return c;
}

int bb_utf8_len(unsigned char c)
{
    static const int by_high_nibble[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return by_high_nibble[c >> 4];
}

uint32_t bb_utf8_decode(const unsigned char *s, size_t n, int *len)
{
    *len = 1;
    if (s[0] < 0x80) return s[0];
    int need;
    uint32_t cp;
    if ((s[0] & 0xE0) == 0xC0) need = 1, cp = s[0] & 0x1Fu;
    else if ((s[0] & 0xF0) == 0xE0) need = 2, cp = s[0] & 0x0Fu;
    else if ((s[0] & 0xF8) == 0xF0) need = 3, cp = s[0] & 0x07u;
    else return BB_UNICODE_REPLACEMENT;
    if ((size_t)need >= n) return BB_UNICODE_REPLACEMENT;
    for (int i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) return BB_UNICODE_REPLACEMENT;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    *len = need + 1;
    return cp;
}

int bb_utf8_encode(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}
