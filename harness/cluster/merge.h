/* Merging shards (`bitbench merge DIR... -o OUT`): the run directories of `bitbench run --shard
 * i/n` become one run directory that reads as one unsharded run of the same plan.
 *
 *   merge.c         finds the shards' run directories, checks that they belong together, names
 *                   the missing and unfinished ones, and writes the merged run.json
 *   merge_tables.c  every CSV table of the shards (results.csv, e2e.csv, samples.csv, ... whatever
 *                   a run writes): identical headers required, rows concatenated in plan order
 *                   (by point id), each row checked to belong to its shard's share
 *   cmd_merge.c     the command: options, results.md, exit status
 *
 * Refused (nothing written, exit 2): shards of different experiment files (sha256), of different
 * settings (size, --threads, --reps, --min-time, --meters, --only), of different shard counts,
 * shards of one group with different plans, a shard given twice, tables whose headers differ, a
 * row outside its shard's share.  Missing shards and shards whose run is not complete (failed
 * points, interrupted, killed) do not stop the merge: what there is is merged, the merged run is
 * "incomplete" and names each of them, and the exit status is 1 - so a Slurm merge job run
 * after every array task (afterany) still gathers what finished and says what did not. */
#ifndef BB_MERGE_H
#define BB_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "io/json_read.h"

#define BB_MERGE_PATH_MAX 1024

typedef struct {
    char dir[BB_MERGE_PATH_MAX];
    bb_jv *json;                     /* its run.json */
    int index, count, group;         /* group: index into bb_merge.groups */
    const char *status;
    int *points, npoints;            /* its share: global kernel point ids, sorted */
    int *e2e, ne2e;                  /* and end-to-end point ids */
} bb_merge_shard;

typedef struct {
    bb_merge_shard *shards;          /* sorted by group, then index */
    int nshards;
    char (*groups)[64];              /* sorted; "" when the cluster is one kind of machine */
    int ngroups;
    int count;                       /* shards per group */
    char **problems;                 /* missing and unfinished shards, one line each */
    int nproblems;
    char **tables;                   /* the CSV tables merged (file names), sorted */
    int ntables;
    char sources_note[3000];         /* why the merged run keeps no stored texts ("" when it does) */
} bb_merge;

/* Find the shards in dirs (a run directory, or a directory holding run directories up to three
 * levels down) and check them.  groups (may be NULL) are node types that must be present even when
 * none of their shards is.  Returns 0, or -1 with err (a refusal). */
int bb_merge_collect(const char *const *dirs, int ndirs, const char *const *groups, int ngroups, bb_merge *m,
                     char *err, size_t errlen);
void bb_merge_free(bb_merge *m);

/* Merge every CSV table into out/; rows_per_group[t][g] (if not NULL) receives how many rows of
 * table t (in m->tables order) came from group g.  Returns 0, or -1 with err. */
int bb_merge_tables(bb_merge *m, const char *out, int ***rows_per_group, char *err, size_t errlen);

/* out/run.json: the first shard's sidecar with the run-wide members recomputed (status, points,
 * times, failures, warnings) and "shards": each shard's index, group, status, machine, build and
 * placement.  Returns 0, or -1 with err. */
int bb_merge_write_json(const bb_merge *m, const char *out, int argc, char **argv, char *err, size_t errlen);

/* The first shard's stored texts (experiment.lua, models/, source.diff) into out, each checked
 * against the sha256 its run.json records, when every shard records the same ones; otherwise
 * nothing is copied and m->sources_note says why (run.json then has "sources": null and the note),
 * as when the first shard's copy is missing or no longer has its recorded sha256.  Returns 0, or -1
 * with err (out of memory, a write that failed). */
int bb_merge_sources(bb_merge *m, const char *out, char *err, size_t errlen);

/* The kind of the points of sweep `name` in the shards' plan: 1 for a model sweep (end-to-end
 * points), 0 otherwise. */
int bb_merge_sweep_kind(const bb_merge *m, const char *name);

#endif
