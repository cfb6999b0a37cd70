/* The conditions of the sweep runner's points: the provenance columns of their rows (provenance.h:
 * the run's id, host and build, and the load between a reading taken before the point and one
 * taken now), and the cool-down before a point (the sweeps' `delay`). */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "run/sweep_state.h"
#include "support/timer.h"

#include "bb_git_commit.h" /* generated at build time: BB_GIT_COMMIT */

void sweep_provenance_run(const sweep_state *st, bb_row_provenance *p)
{
    snprintf(p->run_id, sizeof p->run_id, "%s", st->rec.run_id);
    snprintf(p->host, sizeof p->host, "%s", st->rec.host);
    snprintf(p->commit, sizeof p->commit, "%s", BB_GIT_COMMIT);
    snprintf(p->cpu_model, sizeof p->cpu_model, "%s", st->mach->cpu_model);
    p->load_before = p->load_after = p->other_cpu_share = NAN;
    p->busy = 0;
}

static void note_busy(sweep_state *st, const char *label, const bb_row_provenance *p)
{
    if (p->busy)
        sweep_add_line(&st->rec.flagged, &st->rec.nflagged,
                       "%s: measured while other processes took %.0f%% of the CPUs' time (busy; load average %.2f "
                       "before, %.2f after)", label, 100 * p->other_cpu_share, p->load_before, p->load_after);
}

void sweep_provenance_keep_load(sweep_state *st, const char *label, bb_row_provenance *p)
{
    bb_row_provenance load = *p;
    sweep_provenance_run(st, p);
    p->load_before = load.load_before;
    p->load_after = load.load_after;
    p->other_cpu_share = load.other_cpu_share;
    p->busy = load.busy;
    note_busy(st, label, p);
}

void sweep_provenance(sweep_state *st, const bb_load_reading *before, const char *label, bb_row_provenance *p)
{
    bb_load_reading after;
    bb_load_read(&after);
    bb_load_around load;
    bb_load_between(before, &after, &load);
    sweep_provenance_run(st, p);
    p->load_before = load.load_before;
    p->load_after = load.load_after;
    p->other_cpu_share = load.other_cpu_share;
    p->busy = load.busy;
    note_busy(st, label, p);
}

void sweep_cool_down(sweep_state *st, double seconds)
{
    if (seconds <= 0) return;
    bb_progress_show(&st->progress, "cooling down (delay)");
    double end = bb_now() + seconds;
    while (!sweep_stop) { /* in slices, so that Ctrl-C is not kept waiting */
        double left = end - bb_now();
        if (left <= 0) break;
        if (left > 0.1) left = 0.1;
        struct timespec ts = {0, (long)(left * 1e9)};
        nanosleep(&ts, NULL);
    }
}
