/* results.csv's roofline_fraction (bench/roof_ceiling.h): the machine profile a run's rows are
 * held against is found at the start of the run — RUN_DIR/machine-profile.json (a resumed run
 * that measured one), else OUT/machine-profile.json and results/machine-profile.json (where
 * `bitbench roofline` writes it) — and must be of this CPU.  Without one the column stays empty
 * and results.md says why.  A profile an experiment's `profile` field measures comes after the
 * sweeps, too late for the rows of that run: run `bitbench roofline` first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/roof_ceiling.h"
#include "run/sweep_state.h"

void sweep_load_ceilings(sweep_state *st)
{
    char paths[3][RUN_FILE_MAX + 32], err[1400], why[3000] = "";
    snprintf(paths[0], sizeof paths[0], "%s/machine-profile.json", st->dir);
    snprintf(paths[1], sizeof paths[1], "%s/machine-profile.json", st->ex->out);
    snprintf(paths[2], sizeof paths[2], "results/machine-profile.json");
    st->ceilings = calloc(1, sizeof *st->ceilings);
    if (!st->ceilings) return;
    for (int i = 0; i < 3; i++) {
        if (access(paths[i], F_OK) != 0) continue; /* absent: the next place (not opened: a FIFO would block) */
        if (bb_roof_ceilings_load(paths[i], st->mach, st->ceilings, err, sizeof err) == 0) {
            int n = snprintf(st->ceilings_note, sizeof st->ceilings_note,
                             "roofline_fraction: attained over the ceilings of the machine profile %.2048s (%.127s; "
                             "bandwidths at 1..%d threads, compute peaks at 1 and %d).", paths[i],
                             st->ceilings->cpu_model, st->ceilings->maxthreads, st->ceilings->maxthreads);
            if (st->ceilings->dram_read_streams < 2 && n > 0 && (size_t)n < sizeof st->ceilings_note)
                snprintf(st->ceilings_note + n, sizeof st->ceilings_note - (size_t)n,
                         " Its DRAM ceilings were read with one stream per thread (a profile without dram_read_streams, "
                         "written before 2026-11-30): where several streams read faster, as on some hosts by 20-40 %%, "
                         "a DRAM point's fraction reads higher than against a profile measured now; run `bitbench "
                         "roofline` again to have the faster read.");
            return;
        }
        size_t used = strlen(why);
        snprintf(why + used, sizeof why - used, "%s%s", used ? "; " : "", err);
    }
    free(st->ceilings);
    st->ceilings = NULL;
    snprintf(st->ceilings_note, sizeof st->ceilings_note,
             "roofline_fraction is empty: no machine profile of this CPU was found at the start of the run (%.2000s%.1100s%s); "
             "run `bitbench roofline --out %.800s` before the run to have one.", why[0] ? why : "looked for ",
             why[0] ? "" : paths[1], why[0] ? "" : " and results/machine-profile.json", paths[1]);
}

void sweep_row_roofline(const sweep_state *st, bb_result_row *row, bb_cache_mode mode)
{
    row->roofline_fraction = NAN;
    if (!st->ceilings) {
        snprintf(row->roofline_ceiling, sizeof row->roofline_ceiling, "no machine profile (results.md)");
        return;
    }
    int level = bb_roof_level_of(mode, (size_t)row->rotated_bytes, row->threads, st->mach);
    bb_roofline_fraction(st->ceilings, level, row->threads, row->bits_per_weight, row->gops, row->gbps,
                         &row->roofline_fraction, row->roofline_ceiling, sizeof row->roofline_ceiling);
}
