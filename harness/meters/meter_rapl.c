/* The RAPL meter: package energy over the measured region, from the powercap interface
 * (/sys/class/powercap/intel-rapl:0/energy_uj) or, without it, perf's `power` PMU
 * (power/energy-pkg/, system-wide on CPU 0).
 *
 * Columns: rapl_pkg_energy_j is measured (counter difference over the region, wrap-around
 * handled); rapl_energy_per_call_j (energy per call: per token when a call is one token's
 * step) and rapl_avg_power_w are derived from it by dividing by the calls and the region's wall
 * time, and are labelled "derived" here and in README.md.
 *
 * Unavailable: no_powercap (neither interface offers package energy: in this VM there is no
 * /sys/class/powercap and the power PMU lists energy-psys only), no_permission (energy_uj not
 * readable: it is root-only since Linux 5.10), perf_paranoid (perf's power events are
 * system-wide and need perf_event_paranoid <= 0 or CAP_PERFMON). */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "meters/meter.h"
#include "support/timer.h"

#define POWERCAP_DIR "/sys/class/powercap/intel-rapl:0"
#define POWER_PMU "/sys/bus/event_source/devices/power"

typedef struct {
    int fd;                /* perf fd, or -1 when powercap is used */
    double scale;          /* joules per perf count */
    double range_j;        /* powercap wrap range */
    double e0, t0;
} rapl_state;

static int read_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = 0;
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The power PMU's event names for the reason line: the entries of its events/ folder without a
 * '.' (energy-pkg, not energy-pkg.scale or .unit), sorted, separated by spaces, cut at len. */
static void list_events(char *buf, size_t len)
{
    char *names[64];
    int n = 0;
    buf[0] = 0;
    DIR *d = opendir(POWER_PMU "/events");
    if (!d) return;
    for (struct dirent *e; (e = readdir(d)) && n < 64;)
        if (!strchr(e->d_name, '.') && (names[n] = strdup(e->d_name))) n++;
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], compare_names);
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        if (used < len) used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", names[i]);
        free(names[i]);
    }
}

static double powercap_joules(void)
{
    char buf[64];
    if (read_text(POWERCAP_DIR "/energy_uj", buf, sizeof buf)) return NAN;
    return strtod(buf, NULL) * 1e-6;
}

static double read_energy(rapl_state *s)
{
    if (s->fd < 0) return powercap_joules();
    uint64_t c;
    if (read(s->fd, &c, sizeof c) != (ssize_t)sizeof c) return NAN;
    return (double)c * s->scale;
}

static void unavailable(bb_meter *m, const char *code, const char *fmt, const char *arg)
{
    snprintf(m->reason_code, sizeof m->reason_code, "%s", code);
    snprintf(m->reason, sizeof m->reason, fmt, arg);
}

static int rapl_open(bb_meter *m)
{
    rapl_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(m->reason, sizeof m->reason, "out of memory");
        return -1;
    }
    s->fd = -1;
    if (access(POWERCAP_DIR "/energy_uj", F_OK) == 0) {
        if (isnan(powercap_joules())) {
            free(s);
            unavailable(m, "no_permission", "%s/energy_uj is not readable by this user (root-only since Linux 5.10)",
                        POWERCAP_DIR);
            return 0;
        }
        char buf[64];
        s->range_j = read_text(POWERCAP_DIR "/max_energy_range_uj", buf, sizeof buf) ? 0 : strtod(buf, NULL) * 1e-6;
        m->state = s;
        m->available = true;
        return 0;
    }
    char type[32], event[128], scale[64];
    if (read_text(POWER_PMU "/type", type, sizeof type)) {
        free(s);
        unavailable(m, "no_powercap", "no %s and no perf power PMU", "/sys/class/powercap");
        return 0;
    }
    if (read_text(POWER_PMU "/events/energy-pkg", event, sizeof event)) {
        char have[256];
        list_events(have, sizeof have);
        free(s);
        unavailable(m, "no_powercap",
                    "no /sys/class/powercap, and perf's power PMU has no energy-pkg event (it lists: %s)",
                    have[0] ? have : "nothing");
        return 0;
    }
    const char *eq = strstr(event, "event=");
    s->scale = read_text(POWER_PMU "/events/energy-pkg.scale", scale, sizeof scale) ? 0 : strtod(scale, NULL);
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = (uint32_t)strtoul(type, NULL, 10);
    a.config = eq ? strtoull(eq + 6, NULL, 0) : 0;
    s->fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, 0);
    if (s->fd < 0 || s->scale <= 0) {
        int err = errno;
        if (s->fd >= 0) close(s->fd);
        free(s);
        if (err == EACCES || err == EPERM)
            unavailable(m, "perf_paranoid",
                        "power/energy-pkg is system-wide: needs perf_event_paranoid <= 0 or CAP_PERFMON (%s)",
                        strerror(err));
        else
            unavailable(m, "tool_failed", "perf_event_open(power/energy-pkg): %s", strerror(err));
        return 0;
    }
    m->state = s;
    m->available = true;
    return 0;
}

static void rapl_begin(bb_meter *m)
{
    rapl_state *s = m->state;
    s->e0 = read_energy(s);
    s->t0 = bb_now();
}

static void rapl_end(bb_meter *m, int calls, double *v)
{
    rapl_state *s = m->state;
    double e1 = read_energy(s), t1 = bb_now();
    double e = e1 - s->e0;
    if (e < 0 && s->range_j > 0) e += s->range_j; /* the powercap counter wrapped once */
    if (isnan(e) || e < 0) {
        v[0] = v[1] = v[2] = NAN;
        return;
    }
    v[0] = e;
    v[1] = calls > 0 ? e / calls : NAN;
    v[2] = t1 > s->t0 ? e / (t1 - s->t0) : NAN;
}

static void rapl_close(bb_meter *m)
{
    rapl_state *s = m->state;
    if (s && s->fd >= 0) close(s->fd);
    free(s);
}

const bb_meter_type bb_meter_rapl = {
    .name = "rapl",
    .description = "package energy over the region (powercap or perf power/energy-pkg); per call and average "
                   "power are derived",
    .ncolumns = 3,
    .columns = {"rapl_pkg_energy_j", "rapl_energy_per_call_j_derived", "rapl_avg_power_w_derived"},
    .open = rapl_open,
    .begin = rapl_begin,
    .end = rapl_end,
    .close = rapl_close,
};
