/* Fuzz target: the Slurm script writer (harness/cluster/slurm_script.c) with hostile bytes in every field.
 *
 * Input: 4 bytes (flags: 1 partition, 2 account, 4 time given, 8 merge after ok, bits 4-6 the
 * number of constraints; the number of run options (low 3 bits); shards - 1; cpus - 1), then the
 * fields separated by NUL bytes: bitbench, experiment, out dir, workdir, name, partition,
 * account, time, command line, the experiment's SHA-256, the constraints, the run options.
 * Missing fields are empty.
 *
 * Properties (a failure aborts):
 *  - bb_slurm_check_job refuses the job exactly when a value holds a control character, a value
 *    of an #SBATCH line a blank, quote, backslash, '#' or '%', a constraint is empty or the hash
 *    is not 64 lowercase hex digits;
 *  - every script of an accepted job, read by bash's quoting rules (single quotes, double quotes,
 *    backslash, comment lines), has the same skeleton as the script of a clean job of the same
 *    shape (values "v0", "v1", ...): the same text outside single-quoted words, so no value
 *    reached the code outside one; the same lines, so no value started a line; the #SBATCH lines
 *    hold the same options, each value free of what sbatch would split or parse;
 *  - the single-quoted words decode (with '\'' as a quote) to the job's paths and run options. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/slurm_script.h"
#include "fuzz_input.h"

enum { NFIXED = 10, MAX_CONSTRAINTS = 7, MAX_RUN_ARGS = 7, MAX_WORDS = 256 };

static const char clean_sha[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static void fail(const char *what, const char *a, const char *b)
{
    fprintf(stderr, "fuzz_slurm_script: %s\n--- script\n%s\n--- clean script\n%s\n", what, a ? a : "",
            b ? b : "");
    abort();
}

static bool has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f) return true;
    return false;
}

static bool sbatch_bad(const char *s)
{
    return has_control(s) || strpbrk(s, " '\"\\#%") != NULL;
}

/* The script read by bash's quoting rules: each single-quoted word (runs of '...' joined by \')
 * becomes the marker Q and its decoded text goes to words[]; comment lines become "#C", an
 * #SBATCH line "#SBATCH --option=V" after checking its value; everything else stays as it is. */
typedef struct {
    char *skeleton;
    size_t len;
    char *words[MAX_WORDS];
    int nwords, lines;
} parsed;

static void put(parsed *p, const char *s, size_t n)
{
    memcpy(p->skeleton + p->len, s, n);
    p->len += n;
}

static void parse(const char *s, parsed *p)
{
    size_t n = strlen(s);
    memset(p, 0, sizeof *p);
    p->skeleton = malloc(2 * n + 16);
    if (!p->skeleton) abort();
    bool in_double = false, line_start = true;
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (line_start && !in_double && c == '#') {
            size_t end = i;
            while (end < n && s[end] != '\n') end++;
            if (!strncmp(s + i, "#SBATCH --", 10)) {
                const char *eq = memchr(s + i, '=', end - i);
                if (!eq) { /* --exclusive */
                    put(p, s + i, end - i);
                    i = end;
                    continue;
                }
                bool output = !strncmp(s + i, "#SBATCH --output=", 17);
                for (const char *v = eq + 1; v < s + end; v++) {
                    if (output && v[0] == '%' && v + 1 < s + end && v[1] == 'a') {
                        v++;
                        continue;
                    }
                    if (sbatch_bad((char[]){*v, 0})) fail("an #SBATCH value sbatch would split or parse", s, NULL);
                }
                put(p, s + i, (size_t)(eq + 1 - (s + i)));
                put(p, "V", 1);
            } else {
                put(p, "#C", 2);
            }
            i = end;
            continue;
        }
        line_start = false;
        if (c == '\n') {
            p->lines++;
            line_start = !in_double;
            put(p, s + i, 1);
            i++;
        } else if (c == '\\' && i + 1 < n) {
            put(p, s + i, 2);
            i += 2;
        } else if (c == '"') {
            in_double = !in_double;
            put(p, s + i, 1);
            i++;
        } else if (c == '\'' && !in_double) {
            if (p->nwords == MAX_WORDS) fail("too many words", s, NULL);
            char *w = malloc(n + 1);
            if (!w) abort();
            size_t wl = 0;
            for (;;) {
                const char *close = strchr(s + i + 1, '\'');
                if (!close) fail("a single-quoted word without its end", s, NULL);
                memcpy(w + wl, s + i + 1, (size_t)(close - (s + i + 1)));
                wl += (size_t)(close - (s + i + 1));
                i = (size_t)(close - s) + 1;
                if (s[i] == '\\' && s[i + 1] == '\'' && s[i + 2] == '\'') {
                    w[wl++] = '\'';
                    i += 2; /* on the quote that opens the next piece */
                    continue;
                }
                break;
            }
            w[wl] = 0;
            p->words[p->nwords++] = w;
            put(p, "Q", 1);
        } else {
            put(p, s + i, 1);
            i++;
        }
    }
    if (in_double) fail("a double-quoted string without its end", s, NULL);
    p->skeleton[p->len] = 0;
}

static void release(parsed *p)
{
    for (int i = 0; i < p->nwords; i++) free(p->words[i]);
    free(p->skeleton);
}

/* Script `which` of job (0..ngroups-1 the arrays, then merge, then submit) as a string. */
static char *render(const bb_slurm_job *job, int which)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) abort();
    if (which < job->ngroups) bb_slurm_render_array(job, which, f);
    else if (which == job->ngroups) bb_slurm_render_merge(job, f);
    else bb_slurm_render_submit(job, f);
    fclose(f);
    return buf;
}

static void copy(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    uint8_t flags = data[0];
    int nconstraints = (flags >> 4) & 7, nrun = data[1] & MAX_RUN_ARGS;
    char *text = malloc(size - 4 + 1);
    if (!text) abort();
    memcpy(text, data + 4, size - 4);
    text[size - 4] = 0;

    /* The fields at NUL bytes; those past the end are "". */
    const char *field[NFIXED + MAX_CONSTRAINTS + MAX_RUN_ARGS];
    int nfields = NFIXED + nconstraints + nrun;
    size_t at = 0;
    for (int i = 0; i < nfields; i++) {
        field[i] = at <= size - 4 ? text + at : "";
        if (at <= size - 4) at += strlen(text + at) + 1;
    }

    static bb_slurm_job job, clean;
    memset(&job, 0, sizeof job);
    copy(job.bitbench, sizeof job.bitbench, field[0]);
    copy(job.experiment, sizeof job.experiment, field[1]);
    copy(job.dir, sizeof job.dir, field[2]);
    copy(job.workdir, sizeof job.workdir, field[3]);
    copy(job.name, sizeof job.name, field[4]);
    job.partition = flags & 1 ? field[5] : NULL;
    job.account = flags & 2 ? field[6] : NULL;
    job.time = flags & 4 ? field[7] : NULL;
    job.merge_after_ok = flags & 8;
    job.command_line = field[8];
    copy(job.bitbench_sha256, sizeof job.bitbench_sha256, clean_sha);
    copy(job.experiment_sha256, sizeof job.experiment_sha256, field[9]);
    job.shards = data[2] + 1;
    job.cpus_per_task = data[3] + 1;
    job.ngroups = nconstraints ? nconstraints : 1;
    for (int g = 0; g < nconstraints; g++) {
        job.constraints[g] = field[NFIXED + g];
        bb_slurm_group_label(job.constraints[g], job.groups[g], sizeof job.groups[g]);
    }
    job.nrun_args = nrun;
    for (int i = 0; i < nrun; i++) job.run_args[i] = field[NFIXED + nconstraints + i];

    /* What must be refused, decided here from the rules, not by the writer's code. */
    bool bad = has_control(job.bitbench) || has_control(job.experiment) || sbatch_bad(job.dir) ||
               sbatch_bad(job.workdir) || has_control(job.command_line) ||
               (job.partition && sbatch_bad(job.partition)) || (job.account && sbatch_bad(job.account)) ||
               (job.time && sbatch_bad(job.time)) || strlen(job.experiment_sha256) != 64 ||
               strspn(job.experiment_sha256, "0123456789abcdef") != 64;
    for (int g = 0; g < nconstraints; g++) bad |= sbatch_bad(job.constraints[g]) || !job.constraints[g][0];
    for (int i = 0; i < nrun; i++) bad |= has_control(job.run_args[i]);
    char err[1024] = "";
    int rc = bb_slurm_check_job(&job, err, sizeof err);
    if (rc != 0 && strchr(err, '\n')) fail("a refusal of more than one line", err, NULL);
    if ((rc != 0) != bad) fail(bad ? "a bad value was accepted" : "a good job was refused", err, NULL);
    if (rc != 0) {
        free(text);
        return 0;
    }

    /* The clean job of the same shape. */
    clean = job;
    static char clean_values[NFIXED + MAX_CONSTRAINTS + MAX_RUN_ARGS][8];
    for (int i = 0; i < nfields; i++) snprintf(clean_values[i], sizeof clean_values[i], "v%d", i);
    copy(clean.bitbench, sizeof clean.bitbench, "/v0");
    copy(clean.experiment, sizeof clean.experiment, "/v1");
    copy(clean.dir, sizeof clean.dir, "/v2");
    copy(clean.workdir, sizeof clean.workdir, "/v3");
    copy(clean.name, sizeof clean.name, "v4");
    clean.partition = job.partition ? clean_values[5] : NULL;
    clean.account = job.account ? clean_values[6] : NULL;
    clean.time = job.time ? clean_values[7] : NULL;
    clean.command_line = clean_values[8];
    for (int g = 0; g < nconstraints; g++) {
        clean.constraints[g] = clean_values[NFIXED + g];
        copy(clean.groups[g], sizeof clean.groups[g], clean_values[NFIXED + g]);
    }
    for (int i = 0; i < nrun; i++) clean.run_args[i] = clean_values[NFIXED + nconstraints + i];

    for (int which = 0; which < job.ngroups + 2; which++) {
        char *script = render(&job, which), *clean_script = render(&clean, which);
        parsed p, q;
        parse(script, &p);
        parse(clean_script, &q);
        if (p.lines != q.lines) fail("a value changed the number of lines", script, clean_script);
        if (strcmp(p.skeleton, q.skeleton)) fail("a value reached the code outside a single-quoted word", script,
                                                 clean_script);
        if (p.nwords != q.nwords) fail("a different number of single-quoted words", script, clean_script);
        if (which < job.ngroups) {
            /* bitbench, experiment, dir first; the run options last */
            if (p.nwords < 3 + nrun || strcmp(p.words[0], job.bitbench) || strcmp(p.words[1], job.experiment) ||
                strcmp(p.words[2], job.dir))
                fail("the paths do not decode from their words", script, clean_script);
            for (int i = 0; i < nrun; i++)
                if (strcmp(p.words[p.nwords - nrun + i], job.run_args[i]))
                    fail("a run option does not decode from its word", script, clean_script);
        }
        release(&p);
        release(&q);
        free(script);
        free(clean_script);
    }
    free(text);
    return 0;
}
