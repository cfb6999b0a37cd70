/* The PAPI, PCM and RAPL meters: each one's unavailable path on this machine with its reason
 * (empty columns, never a number), the PAPI path with whatever PAPI can count here, the PCM
 * sidecar's CSV parsing on a sample file in pcm-memory's format (tests/data/pcm_memory_sample.csv,
 * written by hand in pcm 202302's layout, not a recording) and its start/stop handling with a
 * fake sidecar (tests/data/fake_pcm_memory.sh). */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "meter.h"
#include "meters/pcm_csv.h"

static const char *const vocabulary[] = {"not_built",  "no_pmu",      "perf_paranoid", "no_permission",
                                         "not_intel",  "no_msr",      "no_uncore",     "no_powercap",
                                         "event_missing", "tool_missing", "tool_failed"};

static int in_vocabulary(const char *code)
{
    for (size_t i = 0; i < sizeof vocabulary / sizeof vocabulary[0]; i++)
        if (!strcmp(code, vocabulary[i])) return 1;
    return 0;
}

static char srcdir[1024];

static void data_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/tests/data/%s", srcdir, name);
}

/* Open, run one empty region, close; an unavailable meter must give a known reason and NaN. */
static void check_meter_here(const char *name, const char *expect_code)
{
    const bb_meter_type *t = bb_meter_type_by_name(name);
    CHECK(t != NULL, "%s registered", name);
    if (!t) return;
    bb_meter m;
    CHECK(bb_meter_open(&m, t) == 0, "%s opens", name);
    double v[BB_METER_MAX_COLUMNS];
    bb_meter_begin(&m);
    bb_meter_end(&m, 10, v);
    if (!m.available) {
        CHECK(in_vocabulary(m.reason_code) && m.reason[0], "%s unavailable with a reason: %s: %s", name,
              m.reason_code, m.reason);
        int all_nan = 1;
        for (int c = 0; c < t->ncolumns; c++) all_nan &= isnan(v[c]);
        CHECK(all_nan, "%s: unavailable -> every column empty", name);
        if (expect_code) CHECK(!strcmp(m.reason_code, expect_code), "%s: reason %s, expected %s here", name,
                               m.reason_code, expect_code);
        printf("  %s unavailable here: %s: %s\n", name, m.reason_code, m.reason);
    } else {
        CHECK(!expect_code, "%s available although this machine shows cause %s", name, expect_code ? expect_code : "");
        printf("  %s available here\n", name);
    }
    bb_meter_close(&m);
}

static void test_unavailable_paths(void)
{
    int has_cpu_pmu = access("/sys/bus/event_source/devices/cpu", F_OK) == 0;
#ifdef BB_HAVE_PAPI
    check_meter_here("papi", has_cpu_pmu ? NULL : "no_pmu");
#else
    check_meter_here("papi", "not_built");
#endif
    int has_msr = access("/dev/cpu/0/msr", F_OK) == 0;
    unsetenv("BB_PCM_MEMORY");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    int intel = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "vendor_id", 9)) {
            intel = strstr(line, "GenuineIntel") != NULL;
            break;
        }
    if (f) fclose(f);
    int has_pcm = access("/usr/sbin/pcm-memory", X_OK) == 0 || access("/usr/bin/pcm-memory", X_OK) == 0;
    check_meter_here("pcm", !intel ? "not_intel" : !has_pcm ? "tool_missing" : !has_msr ? "no_msr" : NULL);
    int powercap = access("/sys/class/powercap/intel-rapl:0/energy_uj", F_OK) == 0;
    int energy_pkg = access("/sys/bus/event_source/devices/power/events/energy-pkg", F_OK) == 0;
    check_meter_here("rapl", !powercap && !energy_pkg ? "no_powercap" : NULL);
}

/* PAPI with a named native event: counted where PAPI can (software events of perf_event), else
 * unavailable with its reason. */
static void test_papi_native(void)
{
    setenv("BB_PAPI_NATIVE", "perf::TASK-CLOCK,perf::PAGE-FAULTS", 1);
    const bb_meter_type *t = bb_meter_type_by_name("papi");
    bb_meter m;
    CHECK(bb_meter_open(&m, t) == 0, "papi opens with BB_PAPI_NATIVE");
    double v[BB_METER_MAX_COLUMNS];
    bb_meter_begin(&m);
    volatile double x = 0;
    for (int i = 0; i < 2000000; i++) x += i * 1e-9;
    bb_meter_end(&m, 1, v);
    if (m.available) {
        int any = 0;
        for (int c = 0; c < t->ncolumns; c++) {
            CHECK(isnan(v[c]) || v[c] >= 0, "papi column %s finite and >= 0 or empty", t->columns[c]);
            any |= !isnan(v[c]);
        }
        CHECK(any, "papi available -> at least one column measured");
    } else {
        CHECK(in_vocabulary(m.reason_code), "papi with native events unavailable: %s: %s", m.reason_code, m.reason);
        printf("  papi (BB_PAPI_NATIVE) unavailable here: %s: %s\n", m.reason_code, m.reason);
    }
    bb_meter_close(&m);
    unsetenv("BB_PAPI_NATIVE");
}

static void test_pcm_csv(void)
{
    char path[1200], err[256];
    data_path(path, sizeof path, "pcm_memory_sample.csv");
    bb_pcm_sample s[16];
    int n = bb_pcm_parse_memory_csv(path, s, 16, err, sizeof err);
    CHECK(n == 5, "5 complete samples (the 6th row is cut short): %d %s", n, n < 0 ? err : "");
    if (n != 5) return;
    CHECK(s[0].read_mbps == 200.0 && s[0].write_mbps == 40.0, "System Read/Write columns");
    CHECK(fabs((s[1].t - s[0].t) - 0.1) < 1e-6, "millisecond timestamps: %.6f", s[1].t - s[0].t);
    /* region from 21:00:00.100 to .400: intervals (0.1,0.2], (0.2,0.3], (0.3,0.4] have midpoints
     * .15 .25 .35 inside; (0.0,0.1] (midpoint .05) and (0.4,0.5] (.45) do not */
    double rd = -1, wr = -1;
    int k = bb_pcm_window(s, n, s[0].t, s[3].t, 0.1, &rd, &wr);
    CHECK(k == 3 && fabs(rd - 12000.0) < 1e-9 && fabs(wr - 800.0) < 1e-9, "window: %d samples, %.1f/%.1f MB/s", k,
          rd, wr);
    k = bb_pcm_window(s, n, s[0].t + 0.01, s[0].t + 0.02, 0.1, &rd, &wr);
    CHECK(k == 0, "a region shorter than an interval may hold no sample");
    /* a file without the columns is refused */
    char bad[] = "/tmp/bb_pcm_bad_XXXXXX";
    int fd = mkstemp(bad);
    FILE *f = fdopen(fd, "w");
    fputs("a,b\nc,d\n1,2\n", f);
    fclose(f);
    CHECK(bb_pcm_parse_memory_csv(bad, s, 16, err, sizeof err) == -1 && strstr(err, "header"), "bad header: %s", err);
    unlink(bad);
    /* per-socket Mem Read/Write summed when there is no System group */
    char two[] = "/tmp/bb_pcm_two_XXXXXX";
    fd = mkstemp(two);
    f = fdopen(fd, "w");
    fputs(",,SKT0,SKT0,SKT1,SKT1\nDate,Time,Mem Read (MB/s),Mem Write (MB/s),Mem Read (MB/s),Mem Write (MB/s)\n"
          "2026-01-02,03:04:05.600,10.5,1,20.5,2\n", f);
    fclose(f);
    n = bb_pcm_parse_memory_csv(two, s, 16, err, sizeof err);
    CHECK(n == 1 && s[0].read_mbps == 31.0 && s[0].write_mbps == 3.0, "sockets summed");
    unlink(two);
}

static int alive(pid_t pid) { return kill(pid, 0) == 0; }

static void test_pcm_sidecar(void)
{
    char fake[1200];
    data_path(fake, sizeof fake, "fake_pcm_memory.sh");
    setenv("BB_PCM_MEMORY", fake, 1);
    setenv("BB_PCM_INTERVAL", "0.05", 1);
    const bb_meter_type *t = bb_meter_type_by_name("pcm");
    bb_meter m;
    CHECK(bb_meter_open(&m, t) == 0 && m.available, "fake sidecar starts: %s %s", m.reason_code, m.reason);
    if (m.available) {
        pid_t pid = *(pid_t *)m.state; /* the state starts with the sidecar's pid */
        CHECK(alive(pid), "sidecar running");
        double v[BB_METER_MAX_COLUMNS];
        bb_meter_begin(&m);
        struct timespec ts = {0, 400000000};
        nanosleep(&ts, NULL);
        bb_meter_end(&m, 1, v);
        CHECK(v[2] >= 5 && v[2] <= 9, "samples inside a 0.4 s region at 0.05 s: %g", v[2]);
        CHECK(v[0] == 1234.5 && v[1] == 617.25, "bandwidth from the sidecar: %g %g", v[0], v[1]);
        /* a second region in the same run */
        bb_meter_begin(&m);
        nanosleep(&ts, NULL);
        bb_meter_end(&m, 1, v);
        CHECK(v[2] >= 5 && v[0] == 1234.5, "second region: %g samples", v[2]);
        bb_meter_close(&m);
        CHECK(!alive(pid), "sidecar stopped and reaped at close");
    }
    setenv("BB_PCM_MEMORY", "/bin/false", 1);
    CHECK(bb_meter_open(&m, t) == 0 && !m.available && !strcmp(m.reason_code, "tool_failed"),
          "a sidecar that exits: %s: %s", m.reason_code, m.reason);
    bb_meter_close(&m);
    setenv("BB_PCM_MEMORY", "/nonexistent/pcm-memory", 1);
    CHECK(bb_meter_open(&m, t) == 0 && !m.available && !strcmp(m.reason_code, "tool_missing"),
          "a missing sidecar: %s", m.reason_code);
    bb_meter_close(&m);
    unsetenv("BB_PCM_MEMORY");
    unsetenv("BB_PCM_INTERVAL");
}

int main(void)
{
    const char *s = getenv("BITBENCH_SOURCE_DIR");
    snprintf(srcdir, sizeof srcdir, "%s", s ? s : ".");
    test_unavailable_paths();
    test_papi_native();
    test_pcm_csv();
    test_pcm_sidecar();
    return check_summary("test_meters");
}
