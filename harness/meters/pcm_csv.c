/* pcm-memory CSV parsing and region alignment: see pcm_csv.h. */
#include "pcm_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PCM_MAX_COLS 512

/* Splits a CSV line in place (pcm writes no quoted fields); returns the field count. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *p = line; n < max;) {
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = 0;
        p = c + 1;
    }
    return n;
}

static double parse_stamp(const char *date, const char *clock)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    double sec = 0;
    if (sscanf(date, "%d-%d-%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday) != 3) return -1;
    if (sscanf(clock, "%d:%d:%lf", &tm.tm_hour, &tm.tm_min, &sec) != 3) return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    tm.tm_isdst = -1;
    time_t whole = mktime(&tm);
    return whole == (time_t)-1 ? -1 : (double)whole + sec;
}

int bb_pcm_parse_memory_csv(const char *path, bb_pcm_sample *out, int max, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    static char l1[65536], l2[65536], row[65536];
    char *g[PCM_MAX_COLS], *q[PCM_MAX_COLS], *v[PCM_MAX_COLS];
    if (!fgets(l1, sizeof l1, fp) || !fgets(l2, sizeof l2, fp)) {
        fclose(fp);
        snprintf(err, errlen, "%s: no header rows yet", path);
        return -1;
    }
    int ng = split(l1, g, PCM_MAX_COLS), nq = split(l2, q, PCM_MAX_COLS);
    int date = -1, clock = -1, sys_rd = -1, sys_wr = -1, dram_rd = -1, dram_wr = -1, nrd = 0, nwr = 0;
    int rd[64], wr[64];
    for (int i = 0; i < nq; i++) {
        const char *grp = i < ng ? g[i] : "";
        if (!strcmp(q[i], "Date")) date = i;
        else if (!strcmp(q[i], "Time")) clock = i;
        else if (!strcmp(grp, "System") && !strcmp(q[i], "Read")) sys_rd = i;
        else if (!strcmp(grp, "System") && !strcmp(q[i], "Write")) sys_wr = i;
        /* with PMM (-pmm, -mixed) System Read/Write are DRAM + PMM; DRAMRead/DRAMWrite are DRAM */
        else if (!strcmp(grp, "System") && !strcmp(q[i], "DRAMRead")) dram_rd = i;
        else if (!strcmp(grp, "System") && !strcmp(q[i], "DRAMWrite")) dram_wr = i;
        else if (!strcmp(q[i], "Mem Read (MB/s)") && nrd < 64) rd[nrd++] = i;
        else if (!strcmp(q[i], "Mem Write (MB/s)") && nwr < 64) wr[nwr++] = i;
    }
    if (dram_rd >= 0 && dram_wr >= 0) {
        sys_rd = dram_rd;
        sys_wr = dram_wr;
    }
    if (date < 0 || clock < 0 || ((sys_rd < 0 || sys_wr < 0) && (nrd == 0 || nwr == 0))) {
        fclose(fp);
        snprintf(err, errlen, "%s: header has no Date/Time and System Read/Write (or Mem Read/Write) columns", path);
        return -1;
    }
    int n = 0;
    while (n < max && fgets(row, sizeof row, fp)) {
        if (!strchr(row, '\n')) break; /* the writer is still writing this row */
        int nv = split(row, v, PCM_MAX_COLS);
        if (nv < nq) continue;
        double t = parse_stamp(v[date], v[clock]);
        if (t < 0) continue;
        double r = 0, w = 0;
        if (sys_rd >= 0 && sys_wr >= 0) {
            r = strtod(v[sys_rd], NULL);
            w = strtod(v[sys_wr], NULL);
        } else {
            for (int i = 0; i < nrd; i++) r += strtod(v[rd[i]], NULL);
            for (int i = 0; i < nwr; i++) w += strtod(v[wr[i]], NULL);
        }
        out[n++] = (bb_pcm_sample){t, r, w};
    }
    fclose(fp);
    return n;
}

int bb_pcm_window(const bb_pcm_sample *s, int n, double t0, double t1, double dt, double *rd, double *wr)
{
    double r = 0, w = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        double mid = s[i].t - dt / 2;
        if (mid < t0 || mid > t1) continue;
        r += s[i].read_mbps;
        w += s[i].write_mbps;
        k++;
    }
    if (k) {
        *rd = r / k;
        *wr = w / k;
    }
    return k;
}
