/* The timer meter, always available: the wall-clock length of the whole measured region and the
 * time-stamp counter across it.  The per-call wall times (median, min, max, sd) are taken by the
 * runner itself; this meter adds the TSC view: reference ticks per call, and the TSC rate seen
 * over the region (a check that the clock and the TSC agree; it is not the core frequency).  On
 * aarch64 the "TSC" columns are the generic timer's CNTVCT_EL0 (support/timer.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "meters/meter.h"
#include "support/timer.h"

typedef struct {
    double t0;
    uint64_t tsc0;
} timer_state;

static int timer_open(bb_meter *m)
{
    m->state = calloc(1, sizeof(timer_state));
    if (!m->state) {
        snprintf(m->reason, sizeof m->reason, "out of memory");
        return -1;
    }
    m->available = true;
    return 0;
}

static void timer_begin(bb_meter *m)
{
    timer_state *s = m->state;
    s->t0 = bb_now();
    s->tsc0 = bb_rdtsc();
}

static void timer_end(bb_meter *m, int calls, double *v)
{
    uint64_t tsc = bb_rdtsc();
    double t = bb_now();
    timer_state *s = m->state;
    double wall = t - s->t0, ticks = (double)(tsc - s->tsc0);
    v[0] = wall;
#if defined(__x86_64__) || defined(__aarch64__)
    v[1] = calls > 0 ? ticks / calls : NAN;
    v[2] = wall > 0 ? ticks / wall / 1e9 : NAN;
#else
    (void)ticks; /* no TSC on this architecture: not measured */
    v[1] = v[2] = NAN;
#endif
}

static void timer_close(bb_meter *m) { free(m->state); }

const bb_meter_type bb_meter_timer = {
    .name = "timer",
    .description = "wall clock (CLOCK_MONOTONIC) and time-stamp counter over the measured region",
    .ncolumns = 3,
    .columns = {"timer_region_s", "timer_tsc_ticks_per_call", "timer_tsc_ghz"},
    .open = timer_open,
    .begin = timer_begin,
    .end = timer_end,
    .close = timer_close,
};
