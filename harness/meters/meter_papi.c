/* The PAPI meter: hardware counters (PAPI 7 presets) read around exactly the measured region,
 * per thread, summed over every thread of the process.
 *
 * Why every thread of the process: the runner's pool threads do the work, and they live for the
 * whole run; rather than a hook inside the pool, begin() lists /proc/self/task and attaches one
 * event set to each thread (PAPI_attach, i.e. perf_event_open(pid = that thread)), so nothing of
 * the meter runs inside a repetition.  end() stops and sums them.  Values are per call.
 *
 * Presets: PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM, PAPI_L2_DCM, PAPI_L3_TCM, each counted
 * where this machine maps it (an unmapped one stays an empty column).  The user may name up to
 * two native events in the environment variable BB_PAPI_NATIVE ("perf::TASK-CLOCK,..."); they
 * fill the papi_native1/2 columns.
 *
 * Open probes the whole path a point will take - an event set attached to this thread, started,
 * a short busy loop, stopped - so a meter that would measure nothing says so up front instead of
 * filling empty columns while calling itself available.
 *
 * Unavailable (reason codes of meter.h): not_built (no libpapi at build time), no_pmu (no preset
 * can be counted and the kernel exposes no `cpu` PMU, as in a VM without a virtual PMU; PAPI may
 * still offer perf's software events), perf_paranoid, event_missing (no named event maps, or the
 * events open but count nothing), no_attach (events count for the calling thread but PAPI_attach
 * to a thread fails, so the pool threads, which do the work, cannot be counted), tool_failed
 * (PAPI itself failed). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "meters/meter.h"

#define PAPI_NPRESET 5
#define PAPI_NNATIVE 2
#define PAPI_NCOL (PAPI_NPRESET + PAPI_NNATIVE)
#define PAPI_MAX_THREADS 256

static const char *const preset_names[PAPI_NPRESET] = {"PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L1_DCM",
                                                       "PAPI_L2_DCM", "PAPI_L3_TCM"};

/* Why a perf-based counter meter cannot work here, from what the kernel exposes.  Returns 1 and
 * fills code/reason when a cause is found. */
static int perf_cause(bb_meter *m, const char *detail)
{
    if (access("/sys/bus/event_source/devices/cpu", F_OK) != 0) {
        snprintf(m->reason_code, sizeof m->reason_code, "no_pmu");
        snprintf(m->reason, sizeof m->reason,
                 "no 'cpu' PMU under /sys/bus/event_source/devices (a VM without a virtual PMU)%s%.160s",
                 detail ? "; PAPI: " : "", detail ? detail : "");
        return 1;
    }
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int paranoid = 0;
    if (f) {
        if (fscanf(f, "%d", &paranoid) != 1) paranoid = 0;
        fclose(f);
    }
    if (paranoid > 2) {
        snprintf(m->reason_code, sizeof m->reason_code, "perf_paranoid");
        snprintf(m->reason, sizeof m->reason, "kernel.perf_event_paranoid = %d forbids user counting", paranoid);
        return 1;
    }
    return 0;
}

#ifdef BB_HAVE_PAPI
#include <papi.h>

typedef struct {
    int cidx;                 /* the perf_event component */
    int ncodes;
    int codes[PAPI_NCOL];
    int column[PAPI_NCOL];    /* which result column each counted event fills */
    int nsets;
    int sets[PAPI_MAX_THREADS];
    int nthreads; /* threads of the process at begin(); fewer sets than this -> no values */
} papi_state;

static int papi_lib_ready(void)
{
    static int state = 0; /* 0 untried, 1 ok, -1 failed */
    if (state == 0) state = PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT ? 1 : -1;
    return state == 1;
}

/* Can this one event be added to an event set of the component?  (PAPI_query_event says whether
 * a preset is mapped; adding is the real test.) */
static int event_counts(int cidx, int code)
{
    int es = PAPI_NULL;
    if (PAPI_create_eventset(&es) != PAPI_OK) return 0;
    int ok = PAPI_assign_eventset_component(es, cidx) == PAPI_OK && PAPI_add_event(es, code) == PAPI_OK;
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    return ok;
}

static void add_event(papi_state *s, const char *name, int column)
{
    int code;
    if (PAPI_event_name_to_code((char *)name, &code) != PAPI_OK) return;
    if (PAPI_query_event(code) != PAPI_OK || !event_counts(s->cidx, code)) return;
    s->codes[s->ncodes] = code;
    s->column[s->ncodes++] = column;
}

/* Starts an event set of the state's events attached to thread `tid`; returns the set or -1
 * with PAPI's error code in *why. */
static int start_attached(const papi_state *s, unsigned long tid, int *why)
{
    int es = PAPI_NULL;
    *why = PAPI_create_eventset(&es);
    if (*why != PAPI_OK) return -1;
    if ((*why = PAPI_assign_eventset_component(es, s->cidx)) != PAPI_OK || (*why = PAPI_attach(es, tid)) != PAPI_OK ||
        (*why = PAPI_add_events(es, (int *)s->codes, s->ncodes)) != PAPI_OK || (*why = PAPI_start(es)) != PAPI_OK) {
        PAPI_cleanup_eventset(es);
        PAPI_destroy_eventset(&es);
        return -1;
    }
    return es;
}

/* The whole path of a point on this thread: attach, start, work, stop.  Returns 1 when at least
 * one event counted something, else 0 with the reason set. */
static int probe_counts(papi_state *s, bb_meter *m)
{
    int why;
    int es = start_attached(s, (unsigned long)syscall(SYS_gettid), &why);
    if (es < 0) {
        snprintf(m->reason_code, sizeof m->reason_code, "no_attach");
        snprintf(m->reason, sizeof m->reason,
                 "PAPI cannot attach an event set to a thread here (PAPI_attach and start: %.80s), so the pool "
                 "threads that do the work cannot be counted",
                 PAPI_strerror(why));
        return 0;
    }
    volatile double x = 0;
    for (int i = 0; i < 200000; i++) x += i * 1e-9;
    long long vals[PAPI_NCOL] = {0};
    int rc = PAPI_stop(es, vals);
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    long long any = 0;
    for (int k = 0; k < s->ncodes; k++) any |= vals[k] > 0;
    if (rc != PAPI_OK || !any) {
        snprintf(m->reason_code, sizeof m->reason_code, "event_missing");
        snprintf(m->reason, sizeof m->reason, "the events open but %s over a busy loop",
                 rc != PAPI_OK ? "cannot be read (PAPI_stop failed)" : "all counted 0");
        return 0;
    }
    return 1;
}

static int papi_open(bb_meter *m)
{
    if (!papi_lib_ready()) {
        snprintf(m->reason_code, sizeof m->reason_code, "tool_failed");
        snprintf(m->reason, sizeof m->reason, "PAPI_library_init failed (libpapi version mismatch or no memory)");
        return 0;
    }
    int cidx = PAPI_get_component_index("perf_event");
    const PAPI_component_info_t *ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
    if (!ci || ci->disabled) {
        const char *why = ci ? ci->disabled_reason : "no perf_event component in this libpapi";
        if (!perf_cause(m, why)) {
            snprintf(m->reason_code, sizeof m->reason_code, "tool_failed");
            snprintf(m->reason, sizeof m->reason, "PAPI perf_event component disabled: %.150s", why);
        }
        return 0;
    }
    papi_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(m->reason, sizeof m->reason, "out of memory");
        return -1;
    }
    s->cidx = cidx;
    for (int i = 0; i < PAPI_NPRESET; i++) add_event(s, preset_names[i], i);
    const char *native = getenv("BB_PAPI_NATIVE");
    if (native && *native) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", native);
        int k = 0;
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && k < PAPI_NNATIVE;
             tok = strtok_r(NULL, ",", &save), k++)
            add_event(s, tok, PAPI_NPRESET + k);
    }
    if (s->ncodes == 0) {
        free(s);
        char what[200];
        snprintf(what, sizeof what, "none of PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM, PAPI_L2_DCM, PAPI_L3_TCM%s can be counted",
                 native && *native ? " or BB_PAPI_NATIVE's events" : "");
        if (!perf_cause(m, what)) {
            snprintf(m->reason_code, sizeof m->reason_code, "event_missing");
            snprintf(m->reason, sizeof m->reason, "%s here", what);
        }
        return 0;
    }
    if (!probe_counts(s, m)) {
        free(s);
        return 0;
    }
    m->state = s;
    m->available = true;
    return 0;
}

static void papi_begin(bb_meter *m)
{
    papi_state *s = m->state;
    s->nsets = 0;
    s->nthreads = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        s->nthreads++;
        int why, es = s->nsets < PAPI_MAX_THREADS ? start_attached(s, strtoul(e->d_name, NULL, 10), &why) : -1;
        if (es >= 0) s->sets[s->nsets++] = es;
    }
    closedir(d);
}

static void papi_end(bb_meter *m, int calls, double *v)
{
    papi_state *s = m->state;
    long long sum[PAPI_NCOL] = {0}, vals[PAPI_NCOL];
    int stopped = 0;
    for (int i = 0; i < s->nsets; i++) {
        if (PAPI_stop(s->sets[i], vals) == PAPI_OK) {
            for (int k = 0; k < s->ncodes; k++) sum[k] += vals[k];
            stopped++;
        }
        PAPI_cleanup_eventset(s->sets[i]);
        PAPI_destroy_eventset(&s->sets[i]);
    }
    s->nsets = 0;
    for (int c = 0; c < PAPI_NCOL; c++) v[c] = NAN;
    /* a thread not counted would make the sum silently short: empty, not a partial number */
    if (stopped == 0 || stopped < s->nthreads || calls <= 0) return;
    for (int k = 0; k < s->ncodes; k++) v[s->column[k]] = (double)sum[k] / calls;
}

static void papi_close(bb_meter *m) { free(m->state); }

#else /* !BB_HAVE_PAPI */

static int papi_open(bb_meter *m)
{
    snprintf(m->reason_code, sizeof m->reason_code, "not_built");
    snprintf(m->reason, sizeof m->reason, "bitbench was built without libpapi (pkg-config papi not found)");
    (void)perf_cause;
    return 0;
}
static void papi_begin(bb_meter *m) { (void)m; }
static void papi_end(bb_meter *m, int calls, double *v)
{
    (void)m, (void)calls;
    for (int c = 0; c < PAPI_NCOL; c++) v[c] = NAN;
}
static void papi_close(bb_meter *m) { (void)m; }
#endif

const bb_meter_type bb_meter_papi = {
    .name = "papi",
    .description = "PAPI presets (cycles, instructions, L1/L2/L3 misses) and BB_PAPI_NATIVE events, per call, "
                   "summed over all threads",
    .ncolumns = PAPI_NCOL,
    .columns = {"papi_cycles_per_call", "papi_instructions_per_call", "papi_l1_dcm_per_call", "papi_l2_dcm_per_call",
                "papi_l3_tcm_per_call", "papi_native1_per_call", "papi_native2_per_call"},
    .open = papi_open,
    .begin = papi_begin,
    .end = papi_end,
    .close = papi_close,
};
