/* pcm-memory CSV parsing and region alignment: see pcm_csv.h. */
#include "meters/pcm_csv.h"

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

/* Reads the two header rows at the start of the file and finds the columns. */
static int read_headers(bb_pcm_memory_reader *r, FILE *fp, const char *path, char *err, size_t errlen)
{
    static char l1[65536], l2[65536];
    char *g[PCM_MAX_COLS], *q[PCM_MAX_COLS];
    if (!fgets(l1, sizeof l1, fp) || !strchr(l1, '\n') || !fgets(l2, sizeof l2, fp) || !strchr(l2, '\n')) {
        snprintf(err, errlen, "%s: no header rows yet", path);
        return -1;
    }
    int ng = split(l1, g, PCM_MAX_COLS), nq = split(l2, q, PCM_MAX_COLS);
    int date = -1, clock = -1, sys_rd = -1, sys_wr = -1, dram_rd = -1, dram_wr = -1;
    r->nrd = r->nwr = 0;
    for (int i = 0; i < nq; i++) {
        const char *grp = i < ng ? g[i] : "";
        if (!strcmp(q[i], "Date")) date = i;
        else if (!strcmp(q[i], "Time")) clock = i;
        else if (!strcmp(grp, "System") && !strcmp(q[i], "Read")) sys_rd = i;
        else if (!strcmp(grp, "System") && !strcmp(q[i], "Write")) sys_wr = i;
        /* with PMM (-pmm, -mixed) System Read/Write are DRAM + PMM; DRAMRead/DRAMWrite are DRAM */
        else if (!strcmp(grp, "System") && !strcmp(q[i], "DRAMRead")) dram_rd = i;
        else if (!strcmp(grp, "System") && !strcmp(q[i], "DRAMWrite")) dram_wr = i;
        else if (!strcmp(q[i], "Mem Read (MB/s)") && r->nrd < 64) r->rd[r->nrd++] = i;
        else if (!strcmp(q[i], "Mem Write (MB/s)") && r->nwr < 64) r->wr[r->nwr++] = i;
    }
    if (dram_rd >= 0 && dram_wr >= 0) {
        sys_rd = dram_rd;
        sys_wr = dram_wr;
    }
    if (date < 0 || clock < 0 || ((sys_rd < 0 || sys_wr < 0) && (r->nrd == 0 || r->nwr == 0))) {
        snprintf(err, errlen, "%s: header has no Date/Time and System Read/Write (or Mem Read/Write) columns", path);
        return -1;
    }
    r->date = date;
    r->clock = clock;
    r->sys_rd = sys_rd >= 0 && sys_wr >= 0 ? sys_rd : -1;
    r->sys_wr = sys_rd >= 0 && sys_wr >= 0 ? sys_wr : -1;
    r->ncols = nq;
    return 0;
}

int bb_pcm_read_memory_csv(bb_pcm_memory_reader *r, const char *path, bb_pcm_sample *out, int n, int max, char *err,
                           size_t errlen)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    if (r->ncols == 0) {
        if (read_headers(r, fp, path, err, errlen)) {
            r->ncols = 0;
            fclose(fp);
            return -1;
        }
        r->offset = ftell(fp);
    } else if (fseek(fp, r->offset, SEEK_SET)) {
        fclose(fp);
        snprintf(err, errlen, "%s: cannot seek to byte %ld", path, r->offset);
        return -1;
    }
    static char row[65536];
    char *v[PCM_MAX_COLS];
    while (n < max && fgets(row, sizeof row, fp)) {
        if (!strchr(row, '\n')) break; /* the writer is still writing this row */
        r->offset = ftell(fp);
        int nv = split(row, v, PCM_MAX_COLS);
        if (nv < r->ncols) continue;
        double t = parse_stamp(v[r->date], v[r->clock]);
        if (t < 0) continue;
        double rd = 0, wr = 0;
        if (r->sys_rd >= 0) {
            rd = strtod(v[r->sys_rd], NULL);
            wr = strtod(v[r->sys_wr], NULL);
        } else {
            for (int i = 0; i < r->nrd; i++) rd += strtod(v[r->rd[i]], NULL);
            for (int i = 0; i < r->nwr; i++) wr += strtod(v[r->wr[i]], NULL);
        }
        out[n++] = (bb_pcm_sample){t, rd, wr};
    }
    fclose(fp);
    return n;
}

int bb_pcm_parse_memory_csv(const char *path, bb_pcm_sample *out, int max, char *err, size_t errlen)
{
    bb_pcm_memory_reader r = {0};
    return bb_pcm_read_memory_csv(&r, path, out, 0, max, err, errlen);
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
