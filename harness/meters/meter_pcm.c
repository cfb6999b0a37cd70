/* The PCM meter: DRAM read and write bandwidth from Intel PCM's pcm-memory, run as a sidecar
 * process for the whole run (`pcm-memory DT -csv=FILE`, DT = $BB_PCM_INTERVAL, default 0.1 s).
 * begin()/end() note the region's wall-clock (epoch) start and end; end() waits until pcm has
 * written the sample that closes the region (at most 3 intervals), then averages the samples
 * whose interval midpoint lies inside the region (pcm_csv.h).  A region shorter than one
 * interval may hold no sample: its bandwidth columns are then empty and pcm_samples is 0.
 *
 * $BB_PCM_MEMORY names another executable taking the same arguments (the tests' fake sidecar);
 * with it the Intel/MSR pre-checks are skipped and the tool alone decides.
 *
 * Unavailable: not_intel (PCM reads Intel uncore counters), tool_missing (no pcm-memory),
 * no_msr (/dev/cpu/0/msr absent: PCM programs counters through the msr driver; a VM without a
 * virtual PMU has none), no_permission (msr present but not readable: root), tool_failed (the
 * sidecar exited or wrote no sample within 5 s; its last line of output is the reason). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "meter.h"
#include "pcm_csv.h"

#define PCM_MAX_SAMPLES 200000

typedef struct {
    pid_t pid;
    double dt;
    double t0;
    char dir[64], csv[128], log[128];
    bb_pcm_sample *samples;
} pcm_state;

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

static void last_line(const char *path, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0]) snprintf(buf, len, "%.150s", line);
    }
    fclose(f);
}

static void stop_sidecar(pcm_state *s)
{
    if (s->pid <= 0) return;
    kill(s->pid, SIGINT);
    for (int i = 0; i < 100; i++) { /* pcm restores its counters on SIGINT: give it 1 s */
        if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
            s->pid = 0;
            return;
        }
        sleep_s(0.01);
    }
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    s->pid = 0;
}

static void free_state(pcm_state *s)
{
    stop_sidecar(s);
    unlink(s->csv);
    unlink(s->log);
    rmdir(s->dir);
    free(s->samples);
    free(s);
}

static int pcm_open(bb_meter *m)
{
    const char *override = getenv("BB_PCM_MEMORY");
    char tool[512];
    if (!override || !*override) {
        FILE *f = fopen("/proc/cpuinfo", "r");
        char line[256];
        int intel = 0;
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "vendor_id", 9)) {
                intel = strstr(line, "GenuineIntel") != NULL;
                break;
            }
        if (f) fclose(f);
        if (!intel) {
            set_reason(m, "not_intel", "Intel PCM reads Intel uncore counters; this CPU is not GenuineIntel");
            return 0;
        }
        if (find_tool("pcm-memory", tool, sizeof tool)) {
            set_reason(m, "tool_missing", "pcm-memory not found (Debian package pcm; scripts/bootstrap installs it)");
            return 0;
        }
        if (access("/dev/cpu/0/msr", F_OK)) {
            set_reason(m, "no_msr",
                       "/dev/cpu/0/msr absent: PCM needs the msr driver (modprobe msr) and a machine that exposes "
                       "its PMU; in a VM without a virtual PMU pcm-memory refuses to run");
            return 0;
        }
        if (access("/dev/cpu/0/msr", R_OK)) {
            set_reason(m, "no_permission", "/dev/cpu/0/msr is not readable by this user (PCM needs root)");
            return 0;
        }
    } else if (find_tool(override, tool, sizeof tool)) {
        char why[256];
        snprintf(why, sizeof why, "BB_PCM_MEMORY=%.200s is not an executable", override);
        set_reason(m, "tool_missing", why);
        return 0;
    }
    pcm_state *s = calloc(1, sizeof *s);
    if (s) s->samples = malloc(PCM_MAX_SAMPLES * sizeof *s->samples);
    if (!s || !s->samples) {
        free(s);
        snprintf(m->reason, sizeof m->reason, "out of memory");
        return -1;
    }
    const char *iv = getenv("BB_PCM_INTERVAL");
    s->dt = iv && atof(iv) > 0 ? atof(iv) : 0.1;
    snprintf(s->dir, sizeof s->dir, "/tmp/bitbench-pcm-XXXXXX");
    if (!mkdtemp(s->dir)) {
        free(s->samples);
        free(s);
        set_reason(m, "tool_failed", "cannot create a temporary directory for pcm's CSV");
        return 0;
    }
    snprintf(s->csv, sizeof s->csv, "%s/memory.csv", s->dir);
    snprintf(s->log, sizeof s->log, "%s/pcm.log", s->dir);
    char interval[32], csvarg[160];
    snprintf(interval, sizeof interval, "%g", s->dt);
    snprintf(csvarg, sizeof csvarg, "-csv=%s", s->csv);
    s->pid = fork();
    if (s->pid == 0) {
        int fd = open(s->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int null = open("/dev/null", O_RDONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if (null >= 0) dup2(null, 0);
        execl(tool, tool, interval, csvarg, (char *)NULL);
        _exit(127);
    }
    if (s->pid < 0) {
        s->pid = 0;
        free_state(s);
        set_reason(m, "tool_failed", "fork failed");
        return 0;
    }
    /* Wait for the first sample: pcm programs the counters and prints after one interval. */
    char err[256];
    for (double waited = 0; waited < 5.0; waited += 0.02) {
        int status;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
            s->pid = 0;
            char line[200], why[256];
            last_line(s->log, line, sizeof line);
            snprintf(why, sizeof why, "%.60s exited (status %d): %.150s", tool,
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1, line[0] ? line : "no output");
            free_state(s);
            set_reason(m, "tool_failed", why);
            return 0;
        }
        if (bb_pcm_parse_memory_csv(s->csv, s->samples, 1, err, sizeof err) > 0) {
            m->state = s;
            m->available = true;
            return 0;
        }
        sleep_s(0.02);
    }
    free_state(s);
    char why[300];
    snprintf(why, sizeof why, "%.100s wrote no sample within 5 s (%.150s)", tool, err);
    set_reason(m, "tool_failed", why);
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
    int n = 0;
    v[0] = v[1] = v[2] = NAN;
    /* wait for the sample whose interval closes the region */
    for (double waited = 0; waited < 3 * s->dt + 0.5; waited += s->dt / 10) {
        n = bb_pcm_parse_memory_csv(s->csv, s->samples, PCM_MAX_SAMPLES, err, sizeof err);
        if (n > 0 && s->samples[n - 1].t - s->dt / 2 > t1) break;
        if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
            s->pid = 0;
            break;
        }
        sleep_s(s->dt / 10);
    }
    if (n <= 0) return;
    double rd, wr;
    int k = bb_pcm_window(s->samples, n, s->t0, t1, s->dt, &rd, &wr);
    v[2] = k;
    if (k > 0) {
        v[0] = rd;
        v[1] = wr;
    }
}

static void pcm_close(bb_meter *m)
{
    if (m->state) free_state(m->state);
}

const bb_meter_type bb_meter_pcm = {
    .name = "pcm",
    .description = "Intel PCM pcm-memory sidecar: system DRAM read/write MB/s averaged over the samples inside the "
                   "region",
    .ncolumns = 3,
    .columns = {"pcm_dram_read_mbps", "pcm_dram_write_mbps", "pcm_samples"},
    .open = pcm_open,
    .begin = pcm_begin,
    .end = pcm_end,
    .close = pcm_close,
};
