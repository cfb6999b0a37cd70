/* The human-readable table printed at the end of a run, in the manner of llama-bench: fixed
 * columns for what identifies a point, optional columns only when they vary across the rows,
 * the time as median ± sd, whether each verified point passed (when any was verified), and a note
 * on flagged points giving both measures of their spread, on points whose calls fell back to
 * other code, and on the round a point of several rounds is.  The kernel column names the variant
 * asked for and, when its dispatch rule ran another's code at this N, that one: "i2_s@amx (ran
 * avx512)". */
#include <math.h>
#include <string.h>

#include "results/results.h"

typedef enum { C_SWEEP, C_MODEL, C_CACHE, C_COUNT } opt_col;

static bool varies(const bb_result_row *rows, int count, opt_col c)
{
    for (int i = 1; i < count; i++) {
        const bb_result_row *a = &rows[0], *b = &rows[i];
        switch (c) {
        case C_SWEEP: if (strcmp(a->sweep, b->sweep)) return true; break;
        case C_MODEL: if (strcmp(a->model, b->model) || strcmp(a->roles, b->roles)) return true; break;
        case C_CACHE: if (strcmp(a->cache, b->cache)) return true; break;
        default: break;
        }
    }
    return c == C_MODEL && count > 0 && rows[0].model[0];
}

void bb_markdown_table(FILE *f, const bb_result_row *rows, int count)
{
    bool show[C_COUNT], flagged = false, verified = false;
    for (int c = 0; c < C_COUNT; c++) show[c] = varies(rows, count, (opt_col)c);
    for (int i = 0; i < count; i++)
        flagged |= rows[i].spread_flag != 0 || rows[i].fallback_calls > 0 || rows[i].rounds > 1;
    for (int i = 0; i < count; i++) verified |= rows[i].verify[0] != 0;
    fprintf(f, "|%s kernel | bits/w |%s%s M | K | N | threads | time us (median ± sd) | GOP/s | GB/s |%s%s\n",
            show[C_SWEEP] ? " sweep |" : "", show[C_MODEL] ? " shape |" : "", show[C_CACHE] ? " cache |" : "",
            verified ? " verify |" : "", flagged ? " note |" : "");
    fprintf(f, "|%s---|---:|%s%s---:|---:|---:|---:|---:|---:|---:|%s%s\n", show[C_SWEEP] ? "---|" : "",
            show[C_MODEL] ? "---|" : "", show[C_CACHE] ? "---|" : "", verified ? "---|" : "", flagged ? "---|" : "");
    for (int i = 0; i < count; i++) {
        const bb_result_row *r = &rows[i];
        fputc('|', f);
        if (show[C_SWEEP]) fprintf(f, " %s |", r->sweep);
        if (r->variant_ran[0] && strcmp(r->variant_ran, r->variant))
            fprintf(f, " %s@%s (ran %s) | %.3g |", r->kernel, r->variant, r->variant_ran, r->bits_per_weight);
        else
            fprintf(f, " %s@%s | %.3g |", r->kernel, r->variant, r->bits_per_weight);
        if (show[C_MODEL]) {
            if (r->model[0]) fprintf(f, " %s %s |", r->model, r->roles);
            else fprintf(f, " |");
        }
        if (show[C_CACHE]) fprintf(f, " %s |", r->cache);
        fprintf(f, " %d | %d | %d | %d | %.2f", r->m, r->k, r->n, r->threads, r->t_median_s * 1e6);
        if (isfinite(r->t_sd_s)) fprintf(f, " ± %.2f", r->t_sd_s * 1e6); /* a peer's row has no spread */
        fprintf(f, " | %.2f | %.2f |", r->gops, r->gbps);
        /* a row that failed verify is marked where it is read: its time is that of a wrong result */
        if (verified) fprintf(f, " %s |", !strcmp(r->verify, "FAILED") ? "**FAILED**" : r->verify);
        if (flagged) {
            /* both measures the flag is decided on (the sweep's limits are not in the row): an IQR
             * of 11 % beside an sd of 18000 % must not read as a mild spread */
            fputc(' ', f);
            if (r->spread_flag && r->t_median_s > 0 && isfinite(r->t_sd_s))
                fprintf(f, "flagged: IQR/median %.0f%%, sd/median %.0f%%", r->spread * 100, 100 * r->t_sd_s / r->t_median_s);
            else if (r->spread_flag) fprintf(f, "flagged: IQR/median %.0f%%", r->spread * 100);
            if (r->fallback_calls > 0) fprintf(f, "%s%.0f fallback calls", r->spread_flag ? "; " : "", r->fallback_calls);
            if (r->rounds > 1)
                fprintf(f, "%sround %d of %d (the median %s)", r->spread_flag || r->fallback_calls > 0 ? "; " : "",
                        r->round, r->rounds, r->rounds_read_ratio_paired[0] ? "time over a read" : "time");
            fprintf(f, " |");
        }
        fputc('\n', f);
    }
}
