/* One shard of a run: `bitbench run FILE.lua --shard i/n` measures a deterministic share of the
 * plan's points, so that n machines (a Slurm job array, README "Running on a cluster") together
 * measure the whole plan, and `bitbench merge` joins their run directories into one run.
 *
 * i is 0-based (0 .. n-1), as Slurm's SLURM_ARRAY_TASK_ID of an --array=0-(n-1) job.  Every shard
 * builds the whole plan, then keeps its share: the points are dealt out by greedy
 * longest-processing-time assignment on the harness's own time estimate of each point
 * (bb_point_estimate_s), largest first, each to the shard with the least estimated time so far.
 * The split depends only on the plan, so every machine that builds the same plan deals the same
 * shares; a shard keeps the plan's global point ids, so the merged rows read as one unsharded
 * run's.  The plan's hash (bb_plan_sha256) goes into run.json so that merge can refuse shards
 * whose plans differ (another file, other options, or a machine that resolved the file
 * differently).
 *
 * A group names the node type of a heterogeneous cluster (`bitbench slurm --constraint`): each
 * group measures the whole plan on its own machines, split into the same n shards. */
#ifndef BB_SHARD_H
#define BB_SHARD_H

#include <stdbool.h>
#include <stddef.h>

#include "io/json.h"
#include "io/json_read.h"
#include "plan/experiment.h"
#include "plan/plan.h"

#define BB_SHARD_MAX 4096

typedef struct {
    int index, count;            /* 0-based index of count shards */
    char group[64];              /* node type ("" when the cluster is one kind of machine) */
    char settings[512];          /* the command-line options that change what is measured */
    char plan_sha256[65];        /* of the whole plan, before the split */
    int plan_points, plan_e2e;   /* kernel and end-to-end points of the whole plan */
    double plan_estimate_s, estimate_s; /* estimated seconds of the whole plan and of this share */
    int *points, npoints;        /* global ids of the kernel points of this share, in run order */
    int *e2e, ne2e;              /* global ids of its end-to-end points */
} bb_shard;

/* "i/n" with 0 <= i < n <= BB_SHARD_MAX.  Returns 0, or -1 with err. */
int bb_shard_parse(const char *arg, bb_shard *s, char *err, size_t errlen);
/* A group label: 1..63 of [A-Za-z0-9._-].  Returns 0, or -1 with err. */
int bb_shard_check_group(const char *group, char *err, size_t errlen);

/* Estimated seconds of one point: warm-up and timed calls (reps and min_seconds, each call
 * costed from its operations and the bytes it reads at fixed nominal rates), plus building its
 * weights.  Only the ratios between points matter for the split. */
double bb_point_estimate_s(const bb_experiment *ex, const bb_point *p);
double bb_e2e_estimate_s(const bb_experiment *ex, const bb_e2e_point *p);

/* SHA-256 (hex) of the plan: size, meters, every sweep's resolved settings, every point. */
void bb_plan_sha256(const bb_experiment *ex, const bb_plan *plan, char hex[65]);

/* Record the whole plan's hash and counts in s, deal the points, and cut plan down to s's share
 * (points keep their global ids).  A shard that gets no point is an error: fewer shards are
 * needed.  Returns 0, or -1 with err. */
int bb_shard_apply(const bb_experiment *ex, bb_plan *plan, bb_shard *s, char *err, size_t errlen);
void bb_shard_free(bb_shard *s);

/* run.json's "shard" member: {index, count, group, settings, plan_sha256, plan_points,
 * plan_e2e_points, plan_estimate_s, estimate_s, points [...], e2e_points [...]}, or null. */
void bb_shard_write_json(bb_json *j, const bb_shard *s);

/* Does the run whose sidecar is `json` belong to shard s (the same index, count and group), or,
 * for s NULL, is it no shard at all?  --resume continues the newest run that does. */
bool bb_shard_json_matches(const bb_jv *json, const bb_shard *s);
/* May shard s resume the run whose sidecar is `json`: the same plan?  Returns 0, or -1 with err. */
int bb_shard_check_resume(const bb_jv *json, const bb_shard *s, char *err, size_t errlen);

#endif
