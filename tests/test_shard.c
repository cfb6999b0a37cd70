/* The split of a plan into shards (harness/plan/shard.h): "i/n" parsing, every point in exactly one
 * share with its global id, shares balanced by the estimate as greedy longest-processing-time
 * promises (the largest share exceeds the mean by at most the largest point), the same split on
 * every call, and a plan hash that changes with what is measured. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "harness/plan/plan.h"
#include "harness/plan/shard.h"

static char dir[] = "/tmp/bb_shard_XXXXXX";

/* Load and plan a kernel sweep over shapes of very different cost (so that balance matters). */
static int plan_file(const char *reps, bb_experiment *ex, bb_plan *plan)
{
    char path[64], err[1024];
    snprintf(path, sizeof path, "%s/exp.lua", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "bitbench.experiment { name = 'sh', sweeps = { bitbench.sweep { name = 'k',\n"
               "  kernels = { 'i2_s', 'q4_0', 'f32' }, shapes = { {128, 256}, {1024, 1024}, {4096, 4096}, {256, 512} },\n"
               "  n = { 1, 8, 64 }, threads = 1, reps = %s, min_seconds = 0.01 } } }\n", reps);
    fclose(f);
    bb_machine mach;
    bb_machine_detect(&mach);
    memset(ex, 0, sizeof *ex);
    if (bb_experiment_load(path, &mach, ex, err, sizeof err) || bb_plan_build(ex, &mach, plan, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static void test_parse(void)
{
    bb_shard s = {0};
    char err[256];
    CHECK(bb_shard_parse("2/5", &s, err, sizeof err) == 0 && s.index == 2 && s.count == 5, "2/5");
    CHECK(bb_shard_parse("0/1", &s, err, sizeof err) == 0, "0/1");
    const char *bad[] = {"5/5", "1/0", "-1/3", "+1/3", "1/", "/3", "a/b", "1/3x", "1", "", "0/99999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(bb_shard_parse(bad[i], &s, err, sizeof err) == -1 && strstr(err, "0-based"), "'%s' refused", bad[i]);
    CHECK(bb_shard_check_group("zen4-x_1.2", err, sizeof err) == 0, "group label");
    CHECK(bb_shard_check_group("a&b", err, sizeof err) == -1 && bb_shard_check_group("", err, sizeof err) == -1,
          "bad group labels");
}

static void test_split(int count)
{
    bb_experiment ex;
    bb_plan whole;
    if (plan_file("10", &ex, &whole)) {
        CHECK(0, "planning the experiment");
        return;
    }
    int *owner = calloc((size_t)whole.npoints + 1, sizeof *owner);
    double total = 0, largest = 0, biggest_share = 0;
    for (int i = 0; i < whole.npoints; i++) {
        double e = bb_point_estimate_s(&ex, &whole.points[i]);
        total += e;
        if (e > largest) largest = e;
    }
    char first_hash[65] = "";
    for (int s = 0; s < count; s++) {
        bb_experiment e2;
        bb_plan part, again;
        bb_shard sh = {.index = s, .count = count}, sh2 = {.index = s, .count = count};
        char err[512];
        if (plan_file("10", &e2, &part) || bb_shard_apply(&e2, &part, &sh, err, sizeof err)) {
            CHECK(0, "shard %d/%d: %s", s, count, err);
            continue;
        }
        if (!first_hash[0]) memcpy(first_hash, sh.plan_sha256, sizeof first_hash);
        CHECK(!strcmp(first_hash, sh.plan_sha256), "every shard hashes the whole plan alike");
        CHECK(sh.plan_points == whole.npoints && sh.npoints == part.npoints, "counts of shard %d", s);
        for (int i = 0; i < part.npoints; i++) {
            int id = part.points[i].index;
            CHECK(id >= 1 && id <= whole.npoints, "global id %d", id);
            if (id >= 1 && id <= whole.npoints) owner[id - 1]++;
            CHECK(i == 0 || part.points[i - 1].index < id, "plan order kept in shard %d", s);
        }
        if (sh.estimate_s > biggest_share) biggest_share = sh.estimate_s;
        bb_experiment e3;
        if (plan_file("10", &e3, &again) == 0 && bb_shard_apply(&e3, &again, &sh2, err, sizeof err) == 0) {
            bool same = again.npoints == part.npoints;
            for (int i = 0; same && i < part.npoints; i++) same = again.points[i].index == part.points[i].index;
            CHECK(same, "shard %d/%d is the same on a second split", s, count);
        }
        bb_shard_free(&sh);
        bb_shard_free(&sh2);
        bb_plan_free(&part);
        bb_plan_free(&again);
        bb_experiment_free(&e2);
        bb_experiment_free(&e3);
    }
    for (int i = 0; i < whole.npoints; i++) CHECK(owner[i] == 1, "point %d in %d shards", i + 1, owner[i]);
    CHECK(biggest_share <= total / count + largest + 1e-6, "largest share %.3f s, mean %.3f s, largest point %.3f s",
          biggest_share, total / count, largest);
    free(owner);
    bb_plan_free(&whole);
    bb_experiment_free(&ex);
}

static void test_hash(void)
{
    bb_experiment a, b;
    bb_plan pa, pb;
    char ha[65], hb[65];
    if (plan_file("10", &a, &pa) || plan_file("11", &b, &pb)) {
        CHECK(0, "planning");
        return;
    }
    bb_plan_sha256(&a, &pa, ha);
    bb_plan_sha256(&b, &pb, hb);
    CHECK(strlen(ha) == 64 && strcmp(ha, hb), "other reps, other plan hash");
    bb_plan_free(&pa);
    bb_plan_free(&pb);
    bb_experiment_free(&a);
    bb_experiment_free(&b);
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    test_parse();
    test_split(1);
    test_split(3);
    test_split(7);
    test_hash();
    char path[64];
    snprintf(path, sizeof path, "%s/exp.lua", dir);
    unlink(path);
    rmdir(dir);
    return check_summary("shard");
}
