/* The PCM meter: DRAM read and write bandwidth from Intel PCM's pcm-memory and package and DRAM
 * power and energy from pcm-power, each run as a sidecar process for the whole run
 * (pcm_sidecar.h):
 *
 *   pcm-memory DT -csv=FILE -f   its CSV (pcm_csv.h); -f makes pcm flush each row
 *   pcm-power DT -m -1 -p -1     its text on stdout, lines stamped on arrival (pcm_power_text.h);
 *                                -m -1 -p -1 ask for no memory-controller or PCU counter profile:
 *                                the energy lines come from the RAPL energy-status MSRs, which
 *                                need no programming
 *
 * DT = $BB_PCM_INTERVAL, default 0.1 s.  begin()/end() note the region's wall-clock (epoch) start
 * and end; end() waits until each sidecar has written the sample that closes the region (at most
 * 3 intervals), then takes the samples whose interval midpoint lies inside the region: bandwidth
 * is their average, power the overlap-weighted mean of the sampled power over the region and
 * energy its integral over the region (pcm_power_text.h).  A region shorter than one interval may
 * hold no sample: its columns are then empty and the sample counts 0.
 *
 * Both tools program the memory controller's PMU from separate processes: pcm-power's setup
 * (ServerUncorePMUs::program_power_metrics in src/cpucounters.cpp of intel/pcm) always ends in
 * programIMC(), which freezes, resets and reprograms every channel's counters, with all-zero
 * events under -m -1; pcm-memory reads its CAS counts from those same counters.  Whichever
 * programs last wins, and pcm-power's energy comes from the RAPL MSRs, not from the PMU.  So
 * pcm-power is started first and pcm-memory only once pcm-power has printed its first sample
 * (its programming is done); at the end pcm-memory is stopped first, so pcm-power's cleanup of
 * the PMU on exit cannot zero counters pcm-memory still reads.  BB_PCM_POWER=none (or
 * BB_PCM_MEMORY=none) leaves that sidecar out.
 *
 * $BB_PCM_MEMORY and $BB_PCM_POWER name other executables taking the same arguments (the tests'
 * fake sidecars); with one set, the Intel check is skipped for it and the tool alone decides.
 *
 * Availability: the meter is available when at least one sidecar delivers samples; the other's
 * columns stay empty (its reason goes to stderr once).  Unavailable: not_intel (PCM reads Intel
 * uncore counters and MSRs), tool_missing (no pcm-memory and no pcm-power), or the tools ran and
 * refused: no_msr when /dev/cpu/0/msr is absent, no_permission when it is not readable, else
 * tool_failed; the reason quotes what the tools said.  On this VM both print "ERROR: vPMU is not
 * enabled in the hypervisor. ..." and "Unsupported processor model (207)." and exit 1. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "meters/meter.h"
#include "meters/pcm_csv.h"
#include "meters/pcm_power_text.h"
#include "meters/pcm_sidecar.h"
#include "support/temp_dir.h"

#define PCM_MAX_SAMPLES 200000

enum { PART_MEMORY, PART_POWER, NPARTS };

typedef struct {
    bb_pcm_sidecar sc;
    bool running;
    char out[160], log[160]; /* dir/pcm-memory.out: dir is at most 95 bytes */
    char code[32], why[160]; /* why the part is not running */
} pcm_part;

typedef struct {
    pcm_part part[NPARTS];
    double dt;
    double t0;
    char dir[96]; /* bb_temp_dir's folder: TMPDIR or /tmp */
    bb_pcm_sample *memory; /* every sample so far, read on incrementally */
    bb_pcm_power_sample *power;
    bb_pcm_memory_reader memory_reader;
    bb_pcm_power_reader power_reader;
    int nsamples[NPARTS];
} pcm_state;

static const char *const part_tool[NPARTS] = {"pcm-memory", "pcm-power"};
static const char *const part_env[NPARTS] = {"BB_PCM_MEMORY", "BB_PCM_POWER"};

static double epoch_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static int find_tool(const char *name, char *path, size_t len)
{
    if (strchr(name, '/')) {
        snprintf(path, len, "%s", name);
        return access(path, X_OK) == 0 ? 0 : -1;
    }
    const char *env = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s:/usr/sbin:/sbin:/usr/local/sbin", env ? env : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, len, "%s/%s", d, name);
        if (access(path, X_OK) == 0) return 0;
    }
    return -1;
}

static void set_reason(bb_meter *m, const char *code, const char *text)
{
    snprintf(m->reason_code, sizeof m->reason_code, "%s", code);
    snprintf(m->reason, sizeof m->reason, "%.250s", text);
}

static void part_fail(pcm_part *p, const char *code, const char *why)
{
    snprintf(p->code, sizeof p->code, "%s", code);
    snprintf(p->why, sizeof p->why, "%.150s", why);
}

static void trim(char *line)
{
    line[strcspn(line, "\r\n")] = 0;
    size_t n = strlen(line);
    while (n && (line[n - 1] == ' ' || line[n - 1] == '\t')) line[--n] = 0;
}

/* What a tool that exited said: its first line starting with "ERROR" (up to the first sentence's
 * end) and its "Unsupported processor model" line, else its last line, each quoted; on this VM
 * both tools give "ERROR: vPMU is not enabled in the hypervisor." "Unsupported processor model
 * (207)." */
static void quote_log(const char *path, char *buf, size_t len)
{
    char first_error[200] = "", last[200] = "", unsupported[200] = "", line[512];
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        trim(line);
        if (!line[0]) continue;
        if (!first_error[0] && !strncmp(line, "ERROR", 5)) {
            char *stop = strstr(line, ". ");
            if (stop) stop[1] = 0;
            snprintf(first_error, sizeof first_error, "%.120s", line);
        }
        if (!strncmp(line, "Unsupported processor model", 27)) snprintf(unsupported, sizeof unsupported, "%.120s", line);
        snprintf(last, sizeof last, "%.120s", line);
    }
    if (f) fclose(f);
    const char *second = unsupported[0] ? unsupported : last;
    if (first_error[0] && strcmp(first_error, second))
        snprintf(buf, len, "\"%s\" \"%s\"", first_error, second);
    else if (second[0])
        snprintf(buf, len, "\"%s\"", second);
    else
        snprintf(buf, len, "no output");
}

/* Reads the samples a sidecar wrote since the last call; returns how many there are in all, or
 * -1 while its file holds none (err says why). */
static int part_samples(pcm_state *s, int i, char *err, size_t errlen)
{
    int n = i == PART_MEMORY ? bb_pcm_read_memory_csv(&s->memory_reader, s->part[i].out, s->memory,
                                                      s->nsamples[i], PCM_MAX_SAMPLES, err, errlen)
                             : bb_pcm_read_power_text(&s->power_reader, s->part[i].out, s->power, s->nsamples[i],
                                                      PCM_MAX_SAMPLES, err, errlen);
    if (n >= 0) s->nsamples[i] = n;
    return s->nsamples[i] > 0 ? s->nsamples[i] : n;
}

/* End of the newest sample's interval midpoint, or -1 when there is none. */
static double last_mid(pcm_state *s, int i, int n)
{
    if (n <= 0) return -1;
    if (i == PART_MEMORY) return s->memory[n - 1].t - s->dt / 2;
    return s->power[n - 1].t - s->power[n - 1].elapsed_s / 2;
}

/* Starts one sidecar and waits (at most 5 s) for its first sample; on failure the part says why. */
static void part_start(pcm_state *s, int i, bool intel)
{
    pcm_part *p = &s->part[i];
    const char *override = getenv(part_env[i]);
    char tool[512], why[300];
    if (override && !strcmp(override, "none")) {
        snprintf(why, sizeof why, "left out (%s=none)", part_env[i]);
        part_fail(p, "tool_missing", why);
        return;
    }
    bool replaced = override && *override;
    if (replaced && find_tool(override, tool, sizeof tool)) {
        snprintf(why, sizeof why, "%s=%.120s is not an executable", part_env[i], override);
        part_fail(p, "tool_missing", why);
        return;
    }
    if (!replaced && !intel) {
        part_fail(p, "not_intel", "Intel PCM reads Intel uncore counters and MSRs; this CPU is not GenuineIntel");
        return;
    }
    if (!replaced && find_tool(part_tool[i], tool, sizeof tool)) {
        snprintf(why, sizeof why, "%s not found (Debian package pcm; scripts/bootstrap installs it)", part_tool[i]);
        part_fail(p, "tool_missing", why);
        return;
    }
    char interval[32], csvarg[160], err[256];
    snprintf(interval, sizeof interval, "%g", s->dt);
    snprintf(p->out, sizeof p->out, "%s/%s.out", s->dir, part_tool[i]);
    snprintf(p->log, sizeof p->log, "%s/%s.log", s->dir, part_tool[i]);
    snprintf(csvarg, sizeof csvarg, "-csv=%s", p->out);
    char *memory_argv[] = {tool, interval, csvarg, "-f", NULL};
    char *power_argv[] = {tool, interval, "-m", "-1", "-p", "-1", NULL};
    if (bb_pcm_sidecar_start(&p->sc, i == PART_MEMORY ? memory_argv : power_argv, p->log,
                             i == PART_POWER ? p->out : NULL, err, sizeof err)) {
        part_fail(p, "tool_failed", err);
        return;
    }
    /* pcm programs the counters and prints after one interval */
    for (double waited = 0; waited < 5.0; waited += 0.01) {
        int status;
        if (bb_pcm_sidecar_exited(&p->sc, &status)) {
            bb_pcm_sidecar_stop(&p->sc); /* the relay */
            char said[200];
            quote_log(p->log, said, sizeof said);
            snprintf(why, sizeof why, "%.100s exited (status %d): %.170s", replaced ? tool : part_tool[i],
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1, said);
            part_fail(p, replaced ? "tool_failed"
                         : access("/dev/cpu/0/msr", F_OK) ? "no_msr"
                         : access("/dev/cpu/0/msr", R_OK) ? "no_permission"
                                                          : "tool_failed",
                      why);
            return;
        }
        if (part_samples(s, i, err, sizeof err) > 0) {
            p->running = true;
            return;
        }
        sleep_s(0.01);
    }
    bb_pcm_sidecar_stop(&p->sc);
    snprintf(why, sizeof why, "%.100s wrote no sample within 5 s (%.120s)", replaced ? tool : part_tool[i], err);
    part_fail(p, "tool_failed", why);
}

/* Start and stop order: see the top of the file. */
static const int start_order[NPARTS] = {PART_POWER, PART_MEMORY};

static void free_state(pcm_state *s)
{
    for (int k = NPARTS - 1; k >= 0; k--) bb_pcm_sidecar_stop(&s->part[start_order[k]].sc);
    for (int i = 0; i < NPARTS; i++) {
        if (s->part[i].out[0]) unlink(s->part[i].out);
        if (s->part[i].log[0]) unlink(s->part[i].log);
    }
    rmdir(s->dir);
    free(s->memory);
    free(s->power);
    free(s);
}

/* The unavailable meter's reason: both parts' causes, once when they are the same. */
static void explain(bb_meter *m, const pcm_state *s)
{
    const pcm_part *a = &s->part[PART_MEMORY], *b = &s->part[PART_POWER];
    char text[400];
    if (!strcmp(a->why, b->why))
        snprintf(text, sizeof text, "%s", a->why);
    else if (!strncmp(a->why, "pcm-memory ", 11) && !strncmp(b->why, "pcm-power ", 10) && !strcmp(a->why + 10, b->why + 9))
        /* both tools said the same: "pcm-memory and pcm-power exited (status 1): ..." */
        snprintf(text, sizeof text, "pcm-memory and pcm-power%s", a->why + 10);
    else
        snprintf(text, sizeof text, "%.150s; %.150s", a->why, b->why);
    const char *code = a->code;
    if (!strcmp(a->code, "tool_missing") && strcmp(b->code, "tool_missing")) code = b->code;
    if (!strcmp(code, "no_msr")) {
        size_t n = strlen(text);
        snprintf(text + n, sizeof text - n, " (/dev/cpu/0/msr absent)");
    }
    set_reason(m, code, text);
}

static int pcm_open(bb_meter *m)
{
    /* BB_CPUINFO: a recorded cpuinfo of another host, so tests take the other vendor's path */
    const char *cpuinfo = getenv("BB_CPUINFO");
    FILE *f = fopen(cpuinfo && *cpuinfo ? cpuinfo : "/proc/cpuinfo", "r");
    char line[256];
    bool intel = false;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "vendor_id", 9)) {
            intel = strstr(line, "GenuineIntel") != NULL;
            break;
        }
    if (f) fclose(f);
    pcm_state *s = calloc(1, sizeof *s);
    if (s) {
        s->memory = malloc(PCM_MAX_SAMPLES * sizeof *s->memory);
        s->power = malloc(PCM_MAX_SAMPLES * sizeof *s->power);
    }
    if (!s || !s->memory || !s->power) {
        if (s) {
            free(s->memory);
            free(s->power);
        }
        free(s);
        snprintf(m->reason, sizeof m->reason, "out of memory");
        return -1;
    }
    const char *iv = getenv("BB_PCM_INTERVAL");
    s->dt = iv && atof(iv) > 0 ? atof(iv) : 0.1;
    char why[600];
    if (bb_temp_dir("pcm", s->dir, sizeof s->dir, why, sizeof why)) {
        free(s->memory);
        free(s->power);
        free(s);
        char reason[700];
        snprintf(reason, sizeof reason, "no temporary folder for pcm's output: %s", why);
        set_reason(m, "tool_failed", reason);
        return 0;
    }
    for (int k = 0; k < NPARTS; k++) part_start(s, start_order[k], intel);
    if (!s->part[PART_MEMORY].running && !s->part[PART_POWER].running) {
        explain(m, s);
        free_state(s);
        return 0;
    }
    for (int i = 0; i < NPARTS; i++)
        if (!s->part[i].running && strncmp(s->part[i].why, "left out", 8))
            fprintf(stderr, "bitbench: meter pcm: %s unavailable (%s: %s); its columns stay empty\n", part_tool[i],
                    s->part[i].code, s->part[i].why);
    m->state = s;
    m->available = true;
    return 0;
}

static void pcm_begin(bb_meter *m)
{
    pcm_state *s = m->state;
    s->t0 = epoch_now();
}

static void pcm_end(bb_meter *m, int calls, double *v)
{
    (void)calls;
    pcm_state *s = m->state;
    double t1 = epoch_now();
    char err[256];
    for (int c = 0; c < m->type->ncolumns; c++) v[c] = NAN;
    /* wait for the samples whose intervals close the region */
    for (double waited = 0; waited < 3 * s->dt + 0.5; waited += s->dt / 10) {
        bool done = true;
        for (int i = 0; i < NPARTS; i++) {
            pcm_part *p = &s->part[i];
            if (!p->running) continue;
            if (last_mid(s, i, part_samples(s, i, err, sizeof err)) > t1) continue;
            int status;
            if (bb_pcm_sidecar_exited(&p->sc, &status)) {
                bb_pcm_sidecar_stop(&p->sc);
                p->running = false;
                fprintf(stderr, "bitbench: meter pcm: %s exited during the run; its columns stay empty from here\n",
                        part_tool[i]);
                continue;
            }
            done = false;
        }
        if (done) break;
        sleep_s(s->dt / 10);
    }
    int n[NPARTS] = {s->nsamples[PART_MEMORY], s->nsamples[PART_POWER]};
    if (n[PART_MEMORY] > 0) {
        double rd, wr;
        int k = bb_pcm_window(s->memory, n[PART_MEMORY], s->t0, t1, s->dt, &rd, &wr);
        v[2] = k;
        if (k > 0) {
            v[0] = rd;
            v[1] = wr;
        }
    }
    if (n[PART_POWER] > 0) {
        bb_pcm_power_region r;
        v[7] = bb_pcm_power_window(s->power, n[PART_POWER], s->t0, t1, &r);
        v[3] = r.pkg_w;
        v[4] = r.dram_w;
        v[5] = r.pkg_j;
        v[6] = r.dram_j;
    }
}

static void pcm_close(bb_meter *m)
{
    if (m->state) free_state(m->state);
}

const bb_meter_type bb_meter_pcm = {
    .name = "pcm",
    .description = "Intel PCM sidecars: pcm-memory DRAM read/write MB/s averaged over the samples inside the region; "
                   "pcm-power package and DRAM W and J over the region",
    .ncolumns = 8,
    .columns = {"pcm_dram_read_mbps", "pcm_dram_write_mbps", "pcm_samples", "pcm_pkg_power_w", "pcm_dram_power_w",
                "pcm_pkg_energy_j", "pcm_dram_energy_j", "pcm_power_samples"},
    .open = pcm_open,
    .begin = pcm_begin,
    .end = pcm_end,
    .close = pcm_close,
};
