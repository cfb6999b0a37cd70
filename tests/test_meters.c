/* The PAPI, PCM and RAPL meters: the contract each keeps on any host (unavailable: a known reason,
 * a remedy, empty columns; available: values >= 0, at least one measured), never a prediction of
 * what this host offers; a refusing PCM tool quoted; the PCM
 * meter's parsing of pcm-memory's CSV and pcm-power's text on sample files written by hand in
 * pcm 202302's layouts (tests/data/pcm_samples.md), its region arithmetic (bandwidth average,
 * overlap-weighted power and its integral), and its two sidecars' start, alignment and stop with
 * fake sidecars (tests/data/fake_pcm_memory.sh, fake_pcm_power.sh). */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "meters/meter.h"
#include "meters/pcm_csv.h"
#include "meters/pcm_power_text.h"

static char srcdir[1024];

static void data_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/tests/data/%s", srcdir, name);
}

/* The contract every meter keeps on any host, whatever it can count there: open, one region
 * around some work, close.  Unavailable: a reason code from the vocabulary, a sentence, a remedy
 * and every column empty.  Available: every column empty or finite and >= 0, and at least one
 * measured - a meter that would measure nothing must have said so at open. */
static void check_meter_contract(const char *name, const char *setting)
{
    const bb_meter_type *t = bb_meter_type_by_name(name);
    CHECK(t != NULL, "%s registered", name);
    if (!t) return;
    bb_meter m;
    CHECK(bb_meter_open(&m, t) == 0, "%s opens (%s)", name, setting);
    double v[BB_METER_MAX_COLUMNS];
    for (int c = 0; c < BB_METER_MAX_COLUMNS; c++) v[c] = -12345.0; /* every column must be written */
    bb_meter_begin(&m);
    volatile double x = 0;
    for (int i = 0; i < 2000000; i++) x += i * 1e-9;
    bb_meter_end(&m, 10, v);
    if (!m.available) {
        CHECK(bb_meter_reason_known(m.reason_code) && m.reason[0], "%s unavailable with a known reason: '%s': %s",
              name, m.reason_code, m.reason);
        CHECK(bb_meter_remedy(m.reason_code)[0], "%s: a remedy for %s", name, m.reason_code);
        int all_nan = 1;
        for (int c = 0; c < t->ncolumns; c++) all_nan &= isnan(v[c]);
        CHECK(all_nan, "%s: unavailable -> every column empty", name);
        printf("  %s (%s) unavailable here: %s: %s\n", name, setting, m.reason_code, m.reason);
    } else {
        int measured = 0;
        for (int c = 0; c < t->ncolumns; c++) {
            CHECK(isnan(v[c]) || (isfinite(v[c]) && v[c] >= 0), "%s column %s empty, or finite and >= 0: %g", name,
                  t->columns[c], v[c]);
            measured += !isnan(v[c]);
        }
        CHECK(measured >= 1, "%s available -> at least one column measured", name);
        printf("  %s (%s) available here: %d of %d columns measured\n", name, setting, measured, t->ncolumns);
    }
    bb_meter_close(&m);
}

static void test_meter_contract(void)
{
    unsetenv("BB_PCM_MEMORY");
    unsetenv("BB_PCM_POWER");
    unsetenv("BB_PAPI_NATIVE");
    for (int i = 0; i < bb_meter_type_count(); i++) check_meter_contract(bb_meter_type_at(i)->name, "default");
    /* PAPI with perf's software events named: counted where PAPI can attach them to threads,
     * else unavailable - never "available" with nothing measured */
    setenv("BB_PAPI_NATIVE", "perf::TASK-CLOCK,perf::PAGE-FAULTS", 1);
    check_meter_contract("papi", "BB_PAPI_NATIVE=perf::TASK-CLOCK,perf::PAGE-FAULTS");
    setenv("BB_PAPI_NATIVE", "no::SUCH-EVENT", 1);
    check_meter_contract("papi", "BB_PAPI_NATIVE=no::SUCH-EVENT");
    unsetenv("BB_PAPI_NATIVE");
#ifndef BB_HAVE_PAPI
    bb_meter m;
    bb_meter_open(&m, bb_meter_type_by_name("papi"));
    CHECK(!m.available && !strcmp(m.reason_code, "not_built"), "built without libpapi -> not_built");
    bb_meter_close(&m);
#endif
    /* every code of the vocabulary has a remedy; an unknown one has none */
    const char *codes[] = {"not_built",     "no_pmu",    "perf_paranoid", "no_permission", "not_intel",
                           "no_msr",        "no_uncore", "no_powercap",   "event_missing", "no_attach",
                           "tool_missing",  "tool_failed"};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        CHECK(bb_meter_reason_known(codes[i]) && strlen(bb_meter_remedy(codes[i])) > 20, "remedy for %s", codes[i]);
    CHECK(!bb_meter_reason_known("bogus") && !bb_meter_remedy("bogus")[0], "unknown code");
}

/* The vendor paths through recorded cpuinfo files of an AMD and an Intel host: on AMD, PCM is
 * not_intel without running a tool; on Intel it runs the tools (here fakes that refuse or work). */
static void test_pcm_vendors(void)
{
    char amd[1200], intel[1200], fake_memory[1200];
    data_path(amd, sizeof amd, "cpuinfo/amd_epyc_zen4.txt");
    data_path(intel, sizeof intel, "cpuinfo/intel_xeon_kvm.txt");
    data_path(fake_memory, sizeof fake_memory, "fake_pcm_memory.sh");
    unsetenv("BB_PCM_MEMORY");
    unsetenv("BB_PCM_POWER");
    setenv("BB_CPUINFO", amd, 1);
    bb_meter m;
    bb_meter_open(&m, bb_meter_type_by_name("pcm"));
    CHECK(!m.available && !strcmp(m.reason_code, "not_intel") && strstr(m.reason, "not GenuineIntel"),
          "AMD host: %s: %s", m.reason_code, m.reason);
    bb_meter_close(&m);
    setenv("BB_CPUINFO", intel, 1);
    setenv("BB_PCM_MEMORY", fake_memory, 1);
    setenv("BB_PCM_POWER", "none", 1);
    bb_meter_open(&m, bb_meter_type_by_name("pcm"));
    CHECK(m.available, "Intel host, a working pcm-memory: available (%s: %s)", m.reason_code, m.reason);
    bb_meter_close(&m);
    unsetenv("BB_CPUINFO");
    unsetenv("BB_PCM_MEMORY");
    unsetenv("BB_PCM_POWER");
}

/* A PCM tool that refuses, as pcm does in a VM: the meter is unavailable and quotes the tool. */
static void test_pcm_refusal(void)
{
    char tool[] = "/tmp/bb_pcm_refuse_XXXXXX";
    int fd = mkstemp(tool);
    FILE *f = fdopen(fd, "w");
    fputs("#!/bin/sh\necho 'ERROR: vPMU is not enabled in the hypervisor.'\nexit 1\n", f);
    fclose(f);
    chmod(tool, 0700);
    setenv("BB_PCM_MEMORY", tool, 1);
    setenv("BB_PCM_POWER", tool, 1);
    bb_meter m;
    bb_meter_open(&m, bb_meter_type_by_name("pcm"));
    CHECK(!m.available && !strcmp(m.reason_code, "tool_failed") && strstr(m.reason, "exited (status 1)") &&
              strstr(m.reason, "\"ERROR: vPMU is not enabled in the hypervisor.\""),
          "a refusing tool is quoted: %s: %s", m.reason_code, m.reason);
    bb_meter_close(&m);
    unlink(tool);
    unsetenv("BB_PCM_MEMORY");
    unsetenv("BB_PCM_POWER");
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
    /* PMM mode: System DRAMRead/DRAMWrite, not Read/Write (DRAM + PMM) */
    char pmm[] = "/tmp/bb_pcm_pmm_XXXXXX";
    fd = mkstemp(pmm);
    f = fdopen(fd, "w");
    fputs(",,SKT0,SKT0,SKT0,SKT0,SKT0,System,System,System,System,System,System,System\n"
          "Date,Time,Mem Read (MB/s),Mem Write (MB/s),PMM_Read (MB/s), PMM_Write (MB/s),Memory (MB/s),"
          "DRAMRead,DRAMWrite,PMMREAD,PMMWrite,Read,Write,Memory\n"
          "2026-01-02,03:04:05.600,  100.00,   50.00,   10.00,    5.00,  150.00,    100.00,     50.00,     10.00,"
          "      5.00,    110.00,     55.00,    165.00\n", f);
    fclose(f);
    n = bb_pcm_parse_memory_csv(pmm, s, 16, err, sizeof err);
    CHECK(n == 1 && s[0].read_mbps == 100.0 && s[0].write_mbps == 50.0, "PMM mode: DRAM only: %g %g",
          n == 1 ? s[0].read_mbps : -1, n == 1 ? s[0].write_mbps : -1);
    unlink(pmm);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void append_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "a");
    fputs(text, f);
    fclose(f);
}

/* A live sidecar's file read on incrementally: a row or block cut short is left for the next
 * call, rows already read are not read again. */
static void test_pcm_incremental(void)
{
    char path[] = "/tmp/bb_pcm_inc_XXXXXX", err[256];
    int fd = mkstemp(path);
    close(fd);
    bb_pcm_sample m[8];
    bb_pcm_memory_reader mr = {0};
    write_file(path, ",,SKT0,SKT0,System,System\nDate,Time,Mem Read (MB/s),Mem Write (MB/s),Read,");
    CHECK(bb_pcm_read_memory_csv(&mr, path, m, 0, 8, err, sizeof err) == -1 && strstr(err, "no header"),
          "a header row cut short is not read: %s", err);
    append_file(path, "Write\n2026-01-02,03:04:05.100,1,2,10.5,20.5\n2026-01-02,03:04:05.2");
    int n = bb_pcm_read_memory_csv(&mr, path, m, 0, 8, err, sizeof err);
    CHECK(n == 1 && m[0].read_mbps == 10.5, "first row: %d", n);
    append_file(path, "00,3,4,30.5,40.5\n");
    n = bb_pcm_read_memory_csv(&mr, path, m, n, 8, err, sizeof err);
    CHECK(n == 2 && m[1].read_mbps == 30.5 && m[1].write_mbps == 40.5 && fabs(m[1].t - m[0].t - 0.1) < 1e-6,
          "the rest of the row on the next call: %d", n);
    n = bb_pcm_read_memory_csv(&mr, path, m, n, 8, err, sizeof err);
    CHECK(n == 2, "nothing new: %d", n);

    bb_pcm_power_sample p[8];
    bb_pcm_power_reader pr = {0};
    write_file(path, "5.0\t----\n5.1\tTime elapsed: 100 ms\n"
                     "5.1\tS0; Consumed energy units: 10; Consumed Joules: 1.00; Watts: 10.00; Thermal headroom below TjMax: 40\n");
    n = bb_pcm_read_power_text(&pr, path, p, 0, 8, err, sizeof err);
    CHECK(n == 0, "a block not closed yet is not a sample: %d", n);
    append_file(path, "5.1\t----\n5.2\tTime elapsed: 100 ms\n"
                      "5.2\tS0; Consumed energy units: 20; Consumed Joules: 2.00; Watts: 20.00; Thermal headroom below TjMax: 40\n");
    n = bb_pcm_read_power_text(&pr, path, p, 0, 8, err, sizeof err);
    CHECK(n == 1 && p[0].pkg_w == 10.0, "first block once closed: %d", n);
    append_file(path, "5.2\t----\n");
    n = bb_pcm_read_power_text(&pr, path, p, n, 8, err, sizeof err);
    CHECK(n == 2 && p[1].pkg_w == 20.0 && p[1].t == 5.2, "second block: %d", n);
    n = bb_pcm_read_power_text(&pr, path, p, n, 8, err, sizeof err);
    CHECK(n == 2, "nothing new: %d", n);
    unlink(path);
}

static void test_pcm_power_text(void)
{
    char path[1200], err[256];
    data_path(path, sizeof path, "pcm_power_sample.txt");
    bb_pcm_power_sample s[16];
    int n = bb_pcm_parse_power_text(path, s, 16, err, sizeof err);
    CHECK(n == 3, "3 complete samples (the 4th is not closed by a dashed line): %d %s", n, n < 0 ? err : "");
    if (n != 3) return;
    CHECK(isnan(s[0].t), "a recorded file has no arrival stamps");
    CHECK(fabs(s[0].elapsed_s - 0.100) < 1e-12 && fabs(s[1].elapsed_s - 0.101) < 1e-12, "Time elapsed in ms: %g %g",
          s[0].elapsed_s, s[1].elapsed_s);
    CHECK(fabs(s[0].pkg_w - (152.31 + 148.77)) < 1e-9 && fabs(s[0].dram_w - (21.40 + 20.96)) < 1e-9,
          "Watts and DRAM Watts summed over the sockets: %g %g", s[0].pkg_w, s[0].dram_w);
    CHECK(fabs(s[0].pkg_j - (15.23 + 14.88)) < 1e-9 && fabs(s[0].dram_j - (2.14 + 2.10)) < 1e-9,
          "Joules summed: %g %g", s[0].pkg_j, s[0].dram_j);
    CHECK(fabs(s[2].pkg_w - (205.00 + 203.44)) < 1e-9 && s[2].pkg_reported && s[2].dram_reported, "third sample");

    /* stamped samples (the relay's prefix): 10, 20, 30, 40 W package and 1..4 W DRAM over
     * (100.0,100.1], ..., (100.3,100.4]; the region [100.06, 100.34] covers 0.04 + 0.1 + 0.1 + 0.04 s
     * of them: power (10*.04 + 20*.1 + 30*.1 + 40*.04) / .28 = 25 W, energy 25 * .28 = 7 J; the
     * midpoints 100.15 and 100.25 lie inside, 100.05 and 100.35 do not */
    char stamped[] = "/tmp/bb_pcm_power_XXXXXX";
    int fd = mkstemp(stamped);
    close(fd);
    char text[4096] = "", block[512];
    for (int i = 0; i < 4; i++) {
        double t = 100.1 + 0.1 * i;
        snprintf(block, sizeof block,
                 "%.9f\t----\n%.9f\tTime elapsed: 100 ms\n"
                 "%.9f\tS0; Consumed energy units: 1000; Consumed Joules: %.2f; Watts: %.2f; Thermal headroom below TjMax: 40\n"
                 "%.9f\tS0; Consumed DRAM energy units: 1000; Consumed DRAM Joules: %.2f; DRAM Watts: %.2f\n",
                 t - 0.1, t, t, 1.0 * (i + 1), 10.0 * (i + 1), t, 0.1 * (i + 1), 1.0 * (i + 1));
        strcat(text, block);
    }
    strcat(text, "100.500000000\t----\n");
    write_file(stamped, text);
    n = bb_pcm_parse_power_text(stamped, s, 16, err, sizeof err);
    CHECK(n == 4 && fabs(s[0].t - 100.1) < 1e-9 && fabs(s[3].t - 100.4) < 1e-9, "stamped samples: %d, t %g", n,
          n > 0 ? s[0].t : -1);
    bb_pcm_power_region r;
    int k = bb_pcm_power_window(s, n, 100.06, 100.34, &r);
    CHECK(k == 2 && r.samples == 2, "midpoint rule: %d samples", k);
    CHECK(fabs(r.pkg_w - 25.0) < 1e-9 && fabs(r.pkg_j - 7.0) < 1e-9, "package: %.12g W, %.12g J", r.pkg_w, r.pkg_j);
    CHECK(fabs(r.dram_w - 2.5) < 1e-9 && fabs(r.dram_j - 0.7) < 1e-9, "DRAM: %.12g W, %.12g J", r.dram_w, r.dram_j);
    k = bb_pcm_power_window(s, n, 100.21, 100.24, &r);
    CHECK(k == 0 && isnan(r.pkg_w) && isnan(r.pkg_j) && isnan(r.dram_j), "no midpoint inside: empty values");
    /* a CPU without a DRAM energy counter: PCM prints zero units; DRAM is then not measured */
    write_file(stamped, "1.0\t----\n1.1\tTime elapsed: 100 ms\n"
                        "1.1\tS0; Consumed energy units: 100; Consumed Joules: 0.50; Watts: 5.00; Thermal headroom below TjMax: 40\n"
                        "1.1\tS0; Consumed DRAM energy units: 0; Consumed DRAM Joules: 0.00; DRAM Watts: 0.00\n"
                        "1.1\t----\n");
    n = bb_pcm_parse_power_text(stamped, s, 16, err, sizeof err);
    k = bb_pcm_power_window(s, n, 1.0, 1.1, &r);
    CHECK(n == 1 && k == 1 && fabs(r.pkg_w - 5.0) < 1e-9 && isnan(r.dram_w) && isnan(r.dram_j),
          "zero DRAM units -> DRAM empty, package %g W", r.pkg_w);
    unlink(stamped);
}

/* 0: children running, -1/ECHILD: none left */
static int children(void)
{
    pid_t p = waitpid(-1, NULL, WNOHANG);
    return p == 0 ? 1 : (p < 0 && errno == ECHILD) ? 0 : -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_pcm_sidecar(void)
{
    char fake_memory[1200], fake_power[1200];
    data_path(fake_memory, sizeof fake_memory, "fake_pcm_memory.sh");
    data_path(fake_power, sizeof fake_power, "fake_pcm_power.sh");
    setenv("BB_PCM_MEMORY", fake_memory, 1);
    setenv("BB_PCM_POWER", fake_power, 1);
    setenv("BB_PCM_INTERVAL", "0.05", 1);
    const bb_meter_type *t = bb_meter_type_by_name("pcm");
    bb_meter m;
    CHECK(bb_meter_open(&m, t) == 0 && m.available, "fake sidecars start: %s %s", m.reason_code, m.reason);
    if (m.available) {
        CHECK(children() == 1, "sidecars running");
        double v[BB_METER_MAX_COLUMNS];
        struct timespec ts = {0, 400000000};
        for (int region = 0; region < 2; region++) {
            double before = now_s();
            bb_meter_begin(&m);
            nanosleep(&ts, NULL);
            bb_meter_end(&m, 1, v);
            double after = now_s();
            /* at most 8 intervals of 0.05 s have their midpoints in 0.4 s (9 with the bracket's
             * slack); the fakes' intervals are 50 ms plus the shell's fork and exec, which on a
             * loaded machine stretch to several times that, so only at least one is certain */
            CHECK(v[2] >= 1 && v[2] <= 9, "region %d: memory samples inside 0.4 s at 0.05 s: %g", region, v[2]);
            CHECK(v[0] == 1234.5 && v[1] == 617.25, "bandwidth from the sidecar: %g %g", v[0], v[1]);
            CHECK(v[7] >= 1 && v[7] <= 9, "region %d: power samples: %g", region, v[7]);
            CHECK(fabs(v[3] - 50.25) < 1e-9 && fabs(v[4] - 6.5) < 1e-9, "power from the sidecar: %g %g W", v[3], v[4]);
            /* energy = power x the region's length, which lies between the sleep and the bracket */
            CHECK(v[5] >= 50.25 * 0.4 && v[5] <= 50.25 * (after - before) + 1e-9, "package energy %g J over %g..%g s",
                  v[5], 0.4, after - before);
            CHECK(fabs(v[6] / v[4] - v[5] / v[3]) < 1e-9, "DRAM energy over the same region: %g J", v[6]);
        }
        bb_meter_close(&m);
        CHECK(children() == 0, "sidecars and relay stopped and reaped at close");
    }
    /* one sidecar left out: the other's columns only */
    setenv("BB_PCM_POWER", "none", 1);
    CHECK(bb_meter_open(&m, t) == 0 && m.available, "memory sidecar alone");
    if (m.available) {
        double v[BB_METER_MAX_COLUMNS];
        struct timespec ts = {0, 200000000};
        bb_meter_begin(&m);
        nanosleep(&ts, NULL);
        bb_meter_end(&m, 1, v);
        CHECK(v[0] == 1234.5 && isnan(v[3]) && isnan(v[5]) && isnan(v[7]), "power columns empty: %g %g", v[0], v[3]);
        bb_meter_close(&m);
    }
    setenv("BB_PCM_POWER", fake_power, 1);
    setenv("BB_PCM_MEMORY", "none", 1);
    CHECK(bb_meter_open(&m, t) == 0 && m.available, "power sidecar alone");
    if (m.available) {
        double v[BB_METER_MAX_COLUMNS];
        struct timespec ts = {0, 200000000};
        bb_meter_begin(&m);
        nanosleep(&ts, NULL);
        bb_meter_end(&m, 1, v);
        CHECK(isnan(v[0]) && isnan(v[2]) && fabs(v[3] - 50.25) < 1e-9 && v[7] >= 1, "memory columns empty: %g %g",
              v[0], v[3]);
        bb_meter_close(&m);
    }
    CHECK(children() == 0, "nothing left running");
    setenv("BB_PCM_MEMORY", "/bin/false", 1);
    setenv("BB_PCM_POWER", "/bin/false", 1);
    CHECK(bb_meter_open(&m, t) == 0 && !m.available && !strcmp(m.reason_code, "tool_failed"),
          "sidecars that exit: %s: %s", m.reason_code, m.reason);
    bb_meter_close(&m);
    setenv("BB_PCM_MEMORY", "/nonexistent/pcm-memory", 1);
    setenv("BB_PCM_POWER", "/nonexistent/pcm-power", 1);
    CHECK(bb_meter_open(&m, t) == 0 && !m.available && !strcmp(m.reason_code, "tool_missing"),
          "missing sidecars: %s", m.reason_code);
    bb_meter_close(&m);
    CHECK(children() == 0, "failed starts leave nothing running");
    unsetenv("BB_PCM_MEMORY");
    unsetenv("BB_PCM_POWER");
    unsetenv("BB_PCM_INTERVAL");
}

int main(void)
{
    const char *s = getenv("BITBENCH_SOURCE_DIR");
    snprintf(srcdir, sizeof srcdir, "%s", s ? s : ".");
    test_meter_contract();
    test_pcm_refusal();
    test_pcm_vendors();
    test_pcm_csv();
    test_pcm_power_text();
    test_pcm_incremental();
    test_pcm_sidecar();
    return check_summary("test_meters");
}
