/* bitbench compare's output: a Markdown table for people, a CSV for scripts (compare.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "archive/compare.h"
#include "io/csv.h"

static const char *change_word(const bb_compare_row *r)
{
    if (r->change == BB_CHANGE_SLOWER) return "**slower**";
    if (r->change == BB_CHANGE_FASTER) return "faster";
    return r->significant ? "within threshold" : "no significant change";
}

/* Seconds in a readable unit. */
static void fmt_time(double s, char *buf, size_t len)
{
    if (!isfinite(s)) snprintf(buf, len, "-");
    else if (s < 1e-3) snprintf(buf, len, "%.2f µs", s * 1e6);
    else if (s < 1) snprintf(buf, len, "%.3f ms", s * 1e3);
    else snprintf(buf, len, "%.3f s", s);
}

/* Each kernel's pair of variants once, in the rows' order. */
void bb_compare_variants_line(FILE *f, const bb_comparison *c)
{
    fprintf(f, "Variants:");
    int shown = 0;
    for (int i = 0; i < c->n; i++) {
        const bb_compare_row *r = &c->rows[i];
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = !strcmp(c->rows[j].kernel, r->kernel) && !strcmp(c->rows[j].variant, r->variant) &&
                   !strcmp(c->rows[j].variant_b, r->variant_b);
        if (seen) continue;
        fprintf(f, "%s %s: %s (A) against %s (B)", shown++ ? ";" : "", r->kernel, r->variant[0] ? r->variant : "-",
                r->variant_b[0] ? r->variant_b : "-");
    }
    fprintf(f, "%s\n", shown ? "" : " none");
}

void bb_compare_markdown(FILE *f, const bb_comparison *c)
{
    fprintf(f, "A: %s\nB: %s\n", c->name_a, c->name_b);
    bb_compare_variants_line(f, c);
    fprintf(f, "\n| point | variant A | variant B | host A | host B | A median | B median | B/A time | 95%% CI | "
               "samples A/B | change |\n");
    fprintf(f, "|---|---|---|---|---|---:|---:|---:|---|---:|---|\n");
    for (int i = 0; i < c->n; i++) {
        const bb_compare_row *r = &c->rows[i];
        char ta[32], tb[32], ci[48] = "-";
        fmt_time(r->ci.median_a, ta, sizeof ta);
        fmt_time(r->ci.median_b, tb, sizeof tb);
        if (isfinite(r->ci.lo)) snprintf(ci, sizeof ci, "%.3f - %.3f", r->ci.lo, r->ci.hi);
        char ha[220], hb[220]; /* the host, and its CPU model when the rows say it */
        snprintf(ha, sizeof ha, "%s%s%s%s", r->host_a, r->cpu_a[0] ? " (" : "", r->cpu_a, r->cpu_a[0] ? ")" : "");
        snprintf(hb, sizeof hb, "%s%s%s%s", r->host_b, r->cpu_b[0] ? " (" : "", r->cpu_b, r->cpu_b[0] ? ")" : "");
        fprintf(f, "| %s%s | %s | %s | %s | %s | %s%s | %s%s | %.3f | %s | %d/%d | %s |\n", r->key,
                r->kind[0] == 'k' ? "" : " (per token)", r->variant, r->variant_b, ha, hb, ta, r->noisy_a ? " ⚠" : "", tb, r->noisy_b ? " ⚠" : "", r->ci.ratio, ci, r->ci.na, r->ci.nb,
                change_word(r));
    }
    fprintf(f, "\n%d point%s compared: %d slower and %d faster beyond %.1f%% with 95%% confidence",
            c->n, c->n == 1 ? "" : "s", c->regressions, c->improvements, c->threshold * 100);
    if (c->only_a || c->only_b) fprintf(f, "; %d only in A, %d only in B", c->only_a, c->only_b);
    fprintf(f, ".\nB/A time > 1: B is slower. CI: percentile bootstrap of the ratio of medians over the raw samples "
               "(%d resamples, fixed seed). ⚠: a row of the point was flagged for its spread or measured while the "
               "machine was busy.\n", BB_BOOT_ITERATIONS);
}

void bb_compare_csv(FILE *f, const bb_comparison *c)
{
    fprintf(f, "key,kind,model,kernel,variant,m,k,n,threads,cache,tokens,median_a_s,median_b_s,ratio,ci_lo,ci_hi,"
               "samples_a,samples_b,significant,change,noisy_a,noisy_b,variant_b,host_a,host_b,cpu_model_a,cpu_model_b\n");
    for (int i = 0; i < c->n; i++) {
        const bb_compare_row *r = &c->rows[i];
        bb_csv_field(f, r->key);
        fprintf(f, ",%s,", r->kind);
        bb_csv_field(f, r->model);
        fputc(',', f);
        bb_csv_field(f, r->kernel);
        fprintf(f, ",%s,%d,%d,%d,%d,%s,%d,", r->variant, r->m, r->k, r->n, r->threads, r->cache, r->tokens);
        bb_csv_num(f, NULL, r->ci.median_a);
        fputc(',', f);
        bb_csv_num(f, NULL, r->ci.median_b);
        fputc(',', f);
        bb_csv_num(f, "%.6g", r->ci.ratio);
        fputc(',', f);
        bb_csv_num(f, "%.6g", r->ci.lo);
        fputc(',', f);
        bb_csv_num(f, "%.6g", r->ci.hi);
        fprintf(f, ",%d,%d,%d,%s,%d,%d,%s,", r->ci.na, r->ci.nb, r->significant,
                r->change == BB_CHANGE_SLOWER ? "slower" : r->change == BB_CHANGE_FASTER ? "faster" : "none",
                r->noisy_a, r->noisy_b, r->variant_b);
        bb_csv_field(f, r->host_a);
        fputc(',', f);
        bb_csv_field(f, r->host_b);
        fputc(',', f);
        bb_csv_field(f, r->cpu_a);
        fputc(',', f);
        bb_csv_field(f, r->cpu_b);
        fputc('\n', f);
    }
}
