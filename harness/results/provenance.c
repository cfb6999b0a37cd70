#include "results/provenance.h"

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void bb_host_name(char *buf, size_t len)
{
    char h[256] = "";
    if (gethostname(h, sizeof h - 1) != 0 || !h[0]) snprintf(h, sizeof h, "unknown");
    h[strcspn(h, ".")] = 0;
    snprintf(buf, len, "%s", h);
}

/* 32 random bits: the kernel's, else the clock and the process id mixed (a run id only needs to
 * differ from the ids of other runs, not to be secret). */
static uint32_t random32(void)
{
    uint32_t v = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        ssize_t n = read(fd, &v, sizeof v);
        close(fd);
        if (n == (ssize_t)sizeof v) return v;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (uint32_t)x;
}

void bb_run_id_new(char *buf, size_t len)
{
    char stamp[32], host[24];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    bb_host_name(host, sizeof host);
    snprintf(buf, len, "%s-%s-%08x", stamp, host, (unsigned)random32());
}

static void read_proc_stat(bb_load_reading *r)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return;
    unsigned long long v[10] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                   &v[5], &v[6], &v[7], &v[8], &v[9]);
    fclose(f);
    if (n < 8) return;
    /* user nice system idle iowait irq softirq steal (guest and guest_nice are inside user/nice) */
    r->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    r->total = r->busy + v[3] + v[4];
}

/* utime and stime are fields 14 and 15 of /proc/self/stat, cutime and cstime (children waited
 * for: a peer program the run started and ended) 16 and 17; the command name (field 2) may hold
 * spaces, so counting starts after its closing parenthesis.  A peer's time is the run's own
 * work, not another process's load. */
static void read_self_stat(bb_load_reading *r)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');
    unsigned long long ut, st;
    long long cut, cst;
    if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld", &ut, &st, &cut,
                    &cst) == 4)
        r->self = ut + st + (unsigned long long)(cut > 0 ? cut : 0) + (unsigned long long)(cst > 0 ? cst : 0);
}

void bb_load_read(bb_load_reading *r)
{
    memset(r, 0, sizeof *r);
    r->loadavg1 = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &r->loadavg1) != 1) r->loadavg1 = NAN;
        fclose(f);
    }
    read_proc_stat(r);
    read_self_stat(r);
}

void bb_load_between(const bb_load_reading *a, const bb_load_reading *b, bb_load_around *out)
{
    out->load_before = a->loadavg1;
    out->load_after = b->loadavg1;
    out->other_cpu_share = NAN;
    out->busy = 0;
    if (!a->total || b->total <= a->total || b->busy < a->busy) return;
    double total = (double)(b->total - a->total);
    double others = (double)(b->busy - a->busy) - (double)(b->self - a->self);
    if (others < 0) others = 0; /* the two files are read at slightly different moments */
    out->other_cpu_share = others / total;
    if (out->other_cpu_share > 1) out->other_cpu_share = 1;
    out->busy = out->other_cpu_share > BB_BUSY_SHARE;
}
