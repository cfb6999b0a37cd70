/* pcm-power text parsing and region integration: see pcm_power_text.h. */
#include "meters/pcm_power_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number after `key` in line, or NAN when the key is absent. */
static double field(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    if (!p) return NAN;
    char *end;
    double v = strtod(p + strlen(key), &end);
    return end == p + strlen(key) ? NAN : v;
}

/* Splits off the relay's "SECONDS.NANOSECONDS<TAB>" prefix; NAN when the line has none. */
static double stamp(char **line)
{
    char *p = *line, *end;
    if (*p < '0' || *p > '9') return NAN;
    double t = strtod(p, &end);
    if (*end != '\t') return NAN;
    *line = end + 1;
    return t;
}

int bb_pcm_read_power_text(bb_pcm_power_reader *r, const char *path, bb_pcm_power_sample *out, int n, int max,
                           char *err, size_t errlen)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    if (fseek(fp, r->offset, SEEK_SET)) {
        fclose(fp);
        snprintf(err, errlen, "%s: cannot seek to byte %ld", path, r->offset);
        return -1;
    }
    static char buf[4096];
    bb_pcm_power_sample cur;
    int open_block = 0, has_pkg = 0;
    while (n < max && fgets(buf, sizeof buf, fp)) {
        if (!strchr(buf, '\n')) break; /* the relay is still writing this line */
        char *line = buf;
        double t = stamp(&line);
        if (!strncmp(line, "----", 4)) {
            if (open_block && has_pkg) out[n++] = cur;
            open_block = 0;
            r->offset = ftell(fp); /* a block ends here: the next call starts after it */
        } else if (!strncmp(line, "Time elapsed: ", 14)) {
            memset(&cur, 0, sizeof cur);
            cur.t = t;
            cur.elapsed_s = field(line, "Time elapsed: ") / 1000.0;
            open_block = cur.elapsed_s > 0;
            has_pkg = 0;
        } else if (open_block && line[0] == 'S') {
            /* "; Watts: " and not "Watts: ": the DRAM line's "DRAM Watts: " must not match */
            double j = field(line, "; Consumed Joules: "), w = field(line, "; Watts: ");
            double dj = field(line, "; Consumed DRAM Joules: "), dw = field(line, "; DRAM Watts: ");
            if (!isnan(j) && !isnan(w)) {
                cur.pkg_j += j;
                cur.pkg_w += w;
                cur.pkg_reported |= field(line, "; Consumed energy units: ") > 0;
                has_pkg = 1;
            } else if (!isnan(dj) && !isnan(dw)) {
                cur.dram_j += dj;
                cur.dram_w += dw;
                cur.dram_reported |= field(line, "; Consumed DRAM energy units: ") > 0;
            }
        }
    }
    fclose(fp);
    return n;
}

int bb_pcm_parse_power_text(const char *path, bb_pcm_power_sample *out, int max, char *err, size_t errlen)
{
    bb_pcm_power_reader r = {0};
    return bb_pcm_read_power_text(&r, path, out, 0, max, err, errlen);
}

int bb_pcm_power_window(const bb_pcm_power_sample *s, int n, double t0, double t1, bb_pcm_power_region *r)
{
    r->samples = 0;
    r->pkg_w = r->dram_w = r->pkg_j = r->dram_j = NAN;
    /* Energy from Watts x time rather than the Joules column: both come from the same counter
     * over the same interval, but at 0.1 s intervals the two-decimal Watts resolve 0.0005 J, the
     * two-decimal Joules only 0.005 J. */
    double pkg = 0, dram = 0, cover_pkg = 0, cover_dram = 0;
    for (int i = 0; i < n; i++) {
        double a = s[i].t - s[i].elapsed_s, b = s[i].t;
        double mid = 0.5 * (a + b);
        if (mid >= t0 && mid <= t1) r->samples++;
        double overlap = fmin(b, t1) - fmax(a, t0);
        if (!(overlap > 0)) continue;
        if (s[i].pkg_reported) {
            pkg += s[i].pkg_w * overlap;
            cover_pkg += overlap;
        }
        if (s[i].dram_reported) {
            dram += s[i].dram_w * overlap;
            cover_dram += overlap;
        }
    }
    if (r->samples == 0) return 0;
    if (cover_pkg > 0) {
        r->pkg_w = pkg / cover_pkg;
        r->pkg_j = r->pkg_w * (t1 - t0);
    }
    if (cover_dram > 0) {
        r->dram_w = dram / cover_dram;
        r->dram_j = r->dram_w * (t1 - t0);
    }
    return r->samples;
}
