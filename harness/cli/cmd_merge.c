/* bitbench merge DIR... -o OUT: the shards of a run (`bitbench run --shard i/n`, one per machine
 * or Slurm array task) into one run directory (merge.h says what is refused and what is merged
 * incomplete). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cluster/merge.h"
#include "io/csv.h"
#include "io/json_read.h"
#include "results/results.h"
#include "results/results_e2e.h"
#include "run/run_lock.h"
#include "support/output_dir.h"
#include "support/output_file.h"
#include "support/term_text.h"

/* One line on stderr whose text may hold names from the shards' files (run.json's groups,
 * experiment names, folder names): shown through support/term_text.h. */
static void say(const char *what, const char *text)
{
    fprintf(stderr, "bitbench merge: %s", what);
    bb_term_fputs(text, stderr);
    fputc('\n', stderr);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bitbench merge DIR... -o OUT [--groups G[,G..]] [--quiet]\n"
            "  DIR              a shard's run directory, or a directory holding them (up to three levels down)\n"
            "  -o, --out OUT    the merged run directory (created; a previous merge there is replaced)\n"
            "  --groups LIST    node types that must be present (`bitbench slurm --constraint`); a group\n"
            "                   with no shard at all is then named as missing\n"
            "  --quiet          no summary on stderr\n"
            "Every CSV table of the shards (results.csv, e2e.csv, samples, ...) is merged in plan order,\n"
            "run.json keeps each shard's machine under \"shards\", results.md is written.  Exit status: 0\n"
            "complete; 1 when shards are missing or unfinished (what there is is merged, and named in\n"
            "run.json's status_reason); 2 when the shards cannot be merged (nothing is written).\n");
}

/* OUT may be new, empty, or a previous merge; never another run.  It must take every file the merge
 * writes (each one there a regular file) before anything is written. */
static int prepare_out(const char *out, const bb_merge *m, char *err, size_t errlen)
{
    char path[BB_MERGE_PATH_MAX + 16], why[256];
    snprintf(path, sizeof path, "%s/run.json", out);
    bb_jv *json = bb_json_load(path, why, sizeof why);
    if (json) {
        bool merged = bb_jv_get(json, "merged") != NULL;
        bb_jv_free(json);
        if (!merged) {
            snprintf(err, errlen, "-o %s holds a run that is not a merge; choose another directory", out);
            return -1;
        }
    }
    const char **files = malloc(sizeof *files * (size_t)(m->ntables + 3));
    if (!files) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int n = 0;
    for (int t = 0; t < m->ntables; t++) files[n++] = m->tables[t];
    files[n++] = "run.json";
    files[n++] = "results.md";
    files[n] = NULL;
    char place[BB_MERGE_PATH_MAX + 512];
    int bad = bb_output_dir_check(out, true, files, place, sizeof place);
    free(files);
    if (bad) {
        snprintf(err, errlen, "-o %s", place);
        return -1;
    }
    char note[512];
    if (bb_run_dir_lock(out, note, sizeof note, err, errlen)) return -1;
    if (note[0]) say("note: ", note);
    return 0;
}

/* The header line of a CSV file as the readers want it ("a,b,c"). */
static int header_line(const bb_csv_table *t, char *buf, size_t len)
{
    size_t used = 0;
    for (int c = 0; c < t->ncols && used < len; c++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", c ? "," : "", t->head[c]);
    return used < len ? 0 : -1;
}

/* The kernel or end-to-end table of the merged rows of each group, in the run's markdown. */
static void group_tables(FILE *f, const char *out, const char *name, const int *per_group, const bb_merge *m,
                         bool e2e)
{
    char path[BB_MERGE_PATH_MAX + 64], header[8192], err[512];
    snprintf(path, sizeof path, "%s/%s", out, name);
    bb_csv_table t;
    if (bb_csv_load(path, 0, &t, err, sizeof err)) return;
    int nmeter = t.ncols - (e2e ? bb_e2e_ncolumns : bb_result_ncolumns), ok = header_line(&t, header, sizeof header);
    bb_csv_table_free(&t);
    if (ok || nmeter < 0) return;
    void *rows = NULL;
    int n = 0;
    if (e2e ? bb_e2e_read(path, header, nmeter, (bb_e2e_row **)&rows, &n, err, sizeof err)
            : bb_csv_read(path, header, nmeter, (bb_result_row **)&rows, &n, err, sizeof err)) {
        fprintf(f, "(%s: %s)\n\n", name, err);
        return;
    }
    for (int g = 0, at = 0; g < m->ngroups; at += per_group[g++]) {
        if (!per_group[g]) continue;
        if (m->ngroups > 1) fprintf(f, "%s, group %s:\n\n", e2e ? "End-to-end" : "Kernels", m->groups[g]);
        else if (e2e) fprintf(f, "End-to-end (%s):\n\n", name);
        if (e2e) bb_e2e_markdown_table(f, (bb_e2e_row *)rows + at, per_group[g]);
        else bb_markdown_table(f, (bb_result_row *)rows + at, per_group[g]);
        fputc('\n', f);
    }
    free(rows);
}

static int write_markdown(const bb_merge *m, const char *out, int **per_group, char *err, size_t errlen)
{
    char path[BB_MERGE_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/results.md", out);
    bb_output_file o;
    FILE *f = bb_output_begin(&o, path, err, errlen);
    if (!f) return -1;
    const bb_jv *first = m->shards[0].json;
    fprintf(f, "# %s (merged from %d shard%s)\n\n", bb_jv_str(bb_jv_get(first, "experiment"), "name"), m->nshards,
            m->nshards == 1 ? "" : "s");
    for (int t = 0; t < m->ntables; t++) {
        if (!strcmp(m->tables[t], "results.csv")) group_tables(f, out, m->tables[t], per_group[t], m, false);
        if (!strcmp(m->tables[t], "e2e.csv")) group_tables(f, out, m->tables[t], per_group[t], m, true);
    }
    fprintf(f, "| shard | group | host | machine | status |\n|---:|---|---|---|---|\n");
    for (int i = 0; i < m->nshards; i++) {
        const bb_merge_shard *s = &m->shards[i];
        const char *host = bb_jv_str(s->json, "host");
        fprintf(f, "| %d/%d | %s | %s | %s | %s |\n", s->index, s->count, m->groups[s->group], host ? host : "",
                bb_jv_str(bb_jv_get(s->json, "machine"), "cpu_model"), s->status ? s->status : "unknown");
    }
    fprintf(f, "\nExperiment: %s (sha256 %.16s). Status: %s.\n",
            bb_jv_str(bb_jv_get(first, "experiment"), "file"),
            bb_jv_str(bb_jv_get(first, "experiment"), "sha256"), m->nproblems ? "incomplete" : "complete");
    for (int i = 0; i < m->nproblems; i++) fprintf(f, "- %s\n", m->problems[i]);
    return bb_output_commit(&o, err, errlen);
}

/* Split "a,b" into a list (strings owned by *copy). */
static int split_list(char *copy, char ***v, int *n)
{
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char **nv = realloc(*v, sizeof *nv * (size_t)(*n + 1));
        if (!nv) return -1;
        *v = nv;
        nv[(*n)++] = tok;
    }
    return 0;
}

int bb_cmd_merge(int argc, char **argv)
{
    static const struct option opts[] = {{"out", required_argument, 0, 'o'}, {"groups", required_argument, 0, 'g'},
                                         {"quiet", no_argument, 0, 'q'},     {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *out = NULL;
    char *groups_arg = NULL, **groups = NULL, err[4096];
    int ngroups = 0, c, status = 2, **per_group = NULL;
    bool quiet = false;
    bb_merge m = {0};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        if (c == 'o') out = optarg;
        else if (c == 'g') groups_arg = optarg;
        else if (c == 'q') quiet = true;
        else if (c == 'h') {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "bitbench merge: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (!out || !*out || optind >= argc) {
        fprintf(stderr, "bitbench merge: %s\n", !out || !*out ? "where to? give -o OUT" : "which shards? give DIR...");
        usage(stderr);
        return 2;
    }
    char *groups_copy = groups_arg ? strdup(groups_arg) : NULL;
    if (groups_arg && (!groups_copy || split_list(groups_copy, &groups, &ngroups))) goto out;
    if (bb_merge_collect((const char *const *)argv + optind, argc - optind, (const char *const *)groups, ngroups, &m,
                         err, sizeof err) ||
        prepare_out(out, &m, err, sizeof err) || bb_merge_tables(&m, out, &per_group, err, sizeof err) ||
        bb_merge_sources(&m, out, err, sizeof err) ||
        bb_merge_write_json(&m, out, argc + 1, argv - 1, err, sizeof err) ||
        write_markdown(&m, out, per_group, err, sizeof err)) {
        say("", err);
        goto out;
    }
    status = m.nproblems ? 1 : 0;
    if (!quiet) {
        fprintf(stderr, "bitbench merge: %d shard%s, %d table%s -> %s: %s\n", m.nshards, m.nshards == 1 ? "" : "s",
                m.ntables, m.ntables == 1 ? "" : "s", out, status ? "incomplete" : "complete");
    }
    for (int i = 0; i < m.nproblems; i++) say("", m.problems[i]);
    if (m.sources_note[0] && !quiet) say("note: ", m.sources_note);
out:
    bb_run_dir_unlock(out);
    for (int t = 0; per_group && t < m.ntables; t++) free(per_group[t]);
    free(per_group);
    bb_merge_free(&m);
    free(groups);
    free(groups_copy);
    return status;
}
