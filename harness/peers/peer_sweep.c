#include "peers/peer_sweep.h"

#include <ctype.h>
#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models/gguf_export.h"
#include "models/gguf_types.h"
#include "models/kv_type.h"
#include "models/model_load.h"
#include "peers/peer.h"
#include "peers/peer_exec.h"
#include "results/result_row.h"
#include "support/lua_fields.h"
#include "support/stats.h"

/* ------------------------------------------------------------------- the fields ---- */

static void lower(const char *s, char *out, size_t len)
{
    size_t i = 0;
    for (; s[i] && i + 1 < len; i++) out[i] = (char)tolower((unsigned char)s[i]);
    out[i] = 0;
}

static int add_entry(bb_sweep *sw, const char *peer, const char *type, char *err, size_t errlen)
{
    char e[BB_NAME_MAX];
    snprintf(e, sizeof e, "%s:%s", peer, type);
    for (int i = 0; i < sw->npeers; i++)
        if (!strcmp(sw->peers[i], e)) return 0; /* "llama.cpp" and "llama.cpp:tq2_0" may both name it */
    void *v = realloc(sw->peers, sizeof *sw->peers * (size_t)(sw->npeers + 1));
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sw->peers = v;
    snprintf(sw->peers[sw->npeers++], BB_NAME_MAX, "%s", e);
    return 0;
}

/* The ggml type a kernel runs: the one it stores as it is, else the one its layout rearranges
 * (q2_k_x16: Q2_K); NULL when neither. */
static const char *kernel_ggml_type(const bb_kernel *k) { return k->gguf_type ? k->gguf_type : k->gguf_repack_type; }

/* One entry: "peer" (the sweep's kernels' types it runs) or "peer:type". */
static int read_entry(bb_sweep *sw, int i, const char *entry, char *err, size_t errlen)
{
    char name[BB_NAME_MAX], type[32] = "";
    snprintf(name, sizeof name, "%.*s", (int)strcspn(entry, ":"), entry);
    if (strchr(entry, ':')) lower(strchr(entry, ':') + 1, type, sizeof type);
    const bb_peer *p = bb_peer_find(name);
    if (!p) {
        snprintf(err, errlen, "field 'peers', entry %d: unknown peer '%s' (peers: %s)", i, name, bb_peer_names());
        return -1;
    }
    if (type[0]) {
        if (!bb_peer_runs_type(p, type)) {
            snprintf(err, errlen, "field 'peers', entry %d: %s does not run type '%s' (it runs %s)", i, p->name, type,
                     p->types);
            return -1;
        }
        return add_entry(sw, p->name, type, err, errlen);
    }
    int added = 0;
    for (int k = 0; k < sw->nkernels; k++) {
        const char *g = kernel_ggml_type(sw->kernels[k].kernel);
        char t[32];
        lower(g ? g : "", t, sizeof t);
        if (!t[0] || !bb_peer_runs_type(p, t)) continue;
        if (add_entry(sw, p->name, t, err, errlen)) return -1;
        added++;
    }
    if (!added) {
        snprintf(err, errlen, "field 'peers', entry %d: %s runs none of the sweep's kernels' GGUF types; name one, "
                 "e.g. \"%s:%.*s\" (it runs %s)", i, p->name, p->name, (int)strcspn(p->types, ","), p->types, p->types);
        return -1;
    }
    return 0;
}

/* peer_paths, which once let a file name the programs to run, is refused: a file from elsewhere
 * could name a script shipped beside it, and bitbench would run it.  The person running the
 * file chooses the programs (--peer NAME=PATH, the environment, PATH). */
static int refuse_paths(lua_State *L, int t, char *err, size_t errlen)
{
    int given = lua_getfield(L, t, "peer_paths") != LUA_TNIL;
    lua_pop(L, 1);
    if (!given) return 0;
    snprintf(err, errlen, "field 'peer_paths': an experiment names peers, not their programs; give the program "
                          "on the command line: bitbench run --peer NAME=PATH (NAME: %s)", bb_peer_program_names());
    return -1;
}

/* peers, peer_timeout: what model and kernel sweeps share. */
static int read_common(lua_State *L, int t, bb_sweep *sw, char *err, size_t errlen)
{
    sw->peer_timeout = BB_DEFAULT_PEER_TIMEOUT;
    if (bb_lua_get_number(L, t, "peer_timeout", 0.001, 1e7, &sw->peer_timeout, err, errlen) < 0) return -1;
    if (refuse_paths(L, t, err, errlen)) return -1;
    lua_getfield(L, t, "peers");
    int idx = lua_gettop(L), rc = 0;
    if (lua_type(L, idx) == LUA_TSTRING) {
        rc = read_entry(sw, 1, lua_tostring(L, idx), err, errlen);
    } else if (lua_istable(L, idx)) {
        int n = (int)lua_rawlen(L, idx);
        for (int i = 1; !rc && i <= n; i++) {
            lua_rawgeti(L, idx, i);
            if (lua_type(L, -1) != LUA_TSTRING) {
                snprintf(err, errlen, "field 'peers', entry %d: must be a string (\"llama.cpp\", \"llama.cpp:q4_0\")", i);
                rc = -1;
            } else {
                rc = read_entry(sw, i, lua_tostring(L, -1), err, errlen);
            }
            lua_pop(L, 1);
        }
    } else if (!lua_isnil(L, idx)) {
        snprintf(err, errlen, "field 'peers' must be a string or a list of strings (peers: %s)", bb_peer_names());
        rc = -1;
    }
    lua_pop(L, 1);
    return rc;
}

int bb_peer_read_fields(lua_State *L, int t, bb_sweep *sw, char *err, size_t errlen)
{
    if (read_common(L, t, sw, err, errlen)) return -1;
    if (!sw->npeers) return 0;
    /* the sweep's KV types are read before this (lua_sweep.c) */
    if (sw->kv_k != BB_KV_F16 || sw->kv_v != BB_KV_F16) {
        snprintf(err, errlen, "field 'peers' needs kv = \"f16\": llama-bench's KV cache is f16 by default (it has no "
                 "f32), and both sides must use the same");
        return -1;
    }
    return 0;
}

int bb_peer_read_kernel_fields(lua_State *L, int t, bb_sweep *sw, char *err, size_t errlen)
{
    if (read_common(L, t, sw, err, errlen)) return -1;
    for (int i = 0; i < sw->npeers; i++) {
        char name[BB_NAME_MAX];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(sw->peers[i], ":"), sw->peers[i]);
        if (!bb_peer_kernel_tool(bb_peer_find(name))) {
            snprintf(err, errlen, "field 'peers': %s has no kernel-level program for a kernel sweep (only "
                     "llama.cpp: test-backend-ops); use it in a model sweep", name);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ the points ---- */

int bb_peer_attached_kernel(const bb_sweep *sw, const char *entry)
{
    const char *type = strchr(entry, ':') + 1;
    for (int k = 0; k < sw->nkernels; k++) {
        const char *g = kernel_ggml_type(sw->kernels[k].kernel);
        if (g && !strcasecmp(g, type)) return k;
    }
    return sw->nkernels - 1;
}

/* RUN_DIR/peers/MODEL-TYPE.gguf from the point's weights, unless an earlier point wrote it.
 * bb_gguf_export writes it beside its place and renames it there (output_file.h), so a file there
 * is always whole. */
static int export_model(const bb_peer_sink *s, const bb_sweep *sw, const bb_model_config *cfg, const char *type,
                        char *path, size_t len, char *err, size_t errlen)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/peers", s->run_dir);
    if (mkdir(dir, 0755) && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    int n = snprintf(path, len, "%s/%s-%s.gguf", dir, cfg->name, type);
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "the peer's model file %s/%s-%s.gguf: path too long", dir, cfg->name, type);
        return -1;
    }
    if (access(path, R_OK) == 0) return 0;
    bb_synthetic_options syn = {.seed = sw->seed, .distinct_layers = sw->distinct_layers};
    bb_model_source *m = bb_model_source_open(cfg->path[0] ? cfg->path : cfg->name, &syn, err, errlen);
    if (!m) return -1;
    bb_tf_dims d;
    char warn[512];
    /* a config has no context of its own: the file declares 4096, more than any sweep asks */
    int rc = bb_model_source_run_dims(m, cfg->path[0] ? 0 : 4096, &d, warn, sizeof warn, err, errlen);
    if (!rc) {
        bb_weight_source src = bb_model_source_weights(m, &d);
        bb_gguf_export_options eo = {.type = type, .name = bb_model_source_name(m), .vocab_from = bb_model_source_gguf(m)};
        bb_gguf_export_report rep;
        if (!s->quiet) fprintf(stderr, "bitbench run: exporting %s as %s for the peers: %s\n", cfg->name, type, path);
        rc = bb_gguf_export(path, &d, &src, &eo, &rep, err, errlen);
    }
    bb_model_source_close(m);
    return rc;
}

/* "12.3;12.5;12.1" */
static void join_samples(const bb_llama_bench_test *t, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < t->nsamples; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%.6g", i ? ";" : "", t->samples_ts[i]);
}

static void rates(const bb_llama_bench_test *t, double *median, double *min, double *max)
{
    double v[BB_PEER_MAX_SAMPLES];
    memcpy(v, t->samples_ts, sizeof(double) * (size_t)t->nsamples);
    bb_stats st = bb_stats_of(v, t->nsamples);
    *median = t->present ? st.median : 0;
    *min = t->present ? st.min : 0;
    *max = t->present ? st.max : 0;
}

static void fill_row(const bb_peer_sink *s, const bb_sweep *sw, const bb_e2e_point *p, const char *entry,
                     const bb_llama_bench_result *r, bb_e2e_row *row)
{
    memset(row, 0, sizeof *row);
    snprintf(row->experiment, sizeof row->experiment, "%s", s->experiment);
    snprintf(row->sweep, sizeof row->sweep, "%s", sw->name);
    row->point = p->index;
    snprintf(row->model, sizeof row->model, "%s", sw->models[p->model].name);
    snprintf(row->kernel, sizeof row->kernel, "%s", entry);
    snprintf(row->family, sizeof row->family, "peer");
    snprintf(row->peer, sizeof row->peer, "%.*s", (int)strcspn(entry, ":"), entry);
    snprintf(row->peer_commit, sizeof row->peer_commit, "%s", r->build_commit[0] ? r->build_commit : "unknown");
    const bb_ggml_type *g = bb_ggml_type_by_name(strchr(entry, ':') + 1);
    row->bits_per_weight = g ? 8.0 * g->block_bytes / g->block : NAN;
    row->threads = p->threads;
    row->prompt = p->prompt;
    row->gen = p->gen;
    row->depth = p->depth;
    snprintf(row->kv_type_k, sizeof row->kv_type_k, "f16"); /* llama-bench's default, which sweeps with peers use */
    snprintf(row->kv_type_v, sizeof row->kv_type_v, "f16");
    row->reps = sw->min_reps;
    rates(&r->pp, &row->pp_tps, &row->pp_tps_min, &row->pp_tps_max);
    rates(&r->tg, &row->tg_tps, &row->tg_tps_min, &row->tg_tps_max);
    row->ms_per_token = row->tg_tps > 0 ? 1000.0 / row->tg_tps : NAN;
    join_samples(&r->pp, row->pp_samples, sizeof row->pp_samples);
    join_samples(&r->tg, row->tg_samples, sizeof row->tg_samples);
    double *nums[] = {&row->matmul_share, &row->weight_bytes_per_token, &row->tg_gbps_derived, &row->read_tps,
                      &row->read_tps_max, &row->read_gbps, &row->read_streams, &row->tg_of_read, &row->footprint_bytes,
                      &row->logit_max_abs_err, &row->logit_rel_rms_err, &row->top1_agreement,
                      &row->logits_identical, &row->ppl, &row->ppl_err, &row->ppl_tokens, &row->ppl_tps,
                      &row->energy_per_token_j, &row->fallback_calls, &row->kv_bytes_per_token};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) *nums[i] = NAN;
    row->pp_spread = row->tg_spread = NAN;
    row->attempts = 1;
    row->nmeter = s->nmeter;
    for (int c = 0; c < s->nmeter; c++) row->meter[c] = NAN;
}

/* The repetitions' times of a llama-bench test, as the inverse of its tokens/s (the tokens are the
 * same in each, so proportional to the seconds: what noise.h judges); NULL without the test. */
static const double *rep_times(const bb_llama_bench_test *t, double *v)
{
    if (!t->present) return NULL;
    for (int i = 0; i < t->nsamples; i++) v[i] = t->samples_ts[i] > 0 ? 1.0 / t->samples_ts[i] : INFINITY;
    return v;
}

/* A point at depth by llama-batched-bench (harness/peers/batched_bench.h): `reps` runs, one sample
 * each, its speed_tg as the tg sample; no pp test (its pp is the depth's prefill).  Any run that
 * fails fails the attempt. */
static int batched_runs(const char *tool, const bb_sweep *sw, const bb_e2e_point *p, const char *model,
                        const int *cpus, int ncpus, bb_llama_bench_result *r, char *why, size_t whylen)
{
    memset(r, 0, sizeof *r);
    bb_batched_bench_spec spec = {.model = model, .threads = p->threads, .depth = p->depth, .gen = p->gen,
                                  .kv_k = bb_kv_type_name(sw->kv_k), .kv_v = bb_kv_type_name(sw->kv_v)};
    int reps = sw->min_reps < BB_PEER_MAX_SAMPLES ? sw->min_reps : BB_PEER_MAX_SAMPLES;
    for (int i = 0; i < reps; i++) {
        bb_batched_bench_result b;
        if (bb_peer_batched_bench(tool, &spec, sw->peer_timeout, cpus, ncpus, &b, why, whylen)) return -1;
        r->tg.samples_ts[r->tg.nsamples++] = b.speed_tg;
        r->tg.n_gen = b.tg;
        r->tg.n_threads = b.n_threads;
    }
    r->tg.present = r->tg.nsamples > 0;
    bb_peer_batched_commit(tool, sw->peer_timeout, r->build_commit, sizeof r->build_commit);
    return 0;
}

/* The CPUs a peer point runs on: with the sweep's cpus (or --cpus), those bitbench's pool of the
 * point's thread count uses (thread t on the t-th); else the process's allowed CPUs (ncpus 0). */
static int point_cpus(const bb_sweep *sw, const bb_e2e_point *p, const int **cpus)
{
    *cpus = sw->cpus;
    return sw->ncpus ? (p->threads < sw->ncpus ? p->threads : sw->ncpus) : 0;
}

/* One peer point: find the program, export the model, run, emit.  A point whose repetitions
 * disagree beyond the sweep's bounds (harness/results/noise.h, the rule of bitbench's own points) runs
 * again, up to the sweep's `remeasure` more times, the last run kept.  Returns -1 only when emit
 * failed; every other outcome is a failed point with its reason. */
static int run_entry(const bb_peer_sink *s, const bb_sweep *sw, const bb_e2e_point *p, const char *entry)
{
    const bb_model_config *cfg = &sw->models[p->model];
    char label[256], tool[1024], model[1200], why[2048];
    if (s->tried) s->tried(s->ctx);
    char depth[24] = ""; /* the depth only when not 0, as llama-bench names a test "tg16 @ d4096" */
    if (p->depth) snprintf(depth, sizeof depth, " d%d", p->depth);
    snprintf(label, sizeof label, "%s %s %s pp%d tg%d%s t%d", sw->name, cfg->name, entry, p->prompt, p->gen, depth,
             p->threads);
    char name[BB_NAME_MAX];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(entry, ":"), entry);
    const bb_peer *peer = bb_peer_find(name);
    if (bb_peer_locate(peer, tool, sizeof tool, why, sizeof why)) {
        s->fail(s->ctx, label, why);
        return 0;
    }
    if (export_model(s, sw, cfg, strchr(entry, ':') + 1, model, sizeof model, why, sizeof why)) {
        s->fail(s->ctx, label, why);
        return 0;
    }
    const bb_peer *batched = NULL; /* the program that measures this point instead of llama-bench */
    if (p->depth > 0) { /* a llama-bench without -d cannot measure at depth: recorded, not faked */
        int has = bb_peer_bench_has_depth(tool, sw->peer_timeout, why, sizeof why);
        if (has < 0) {
            s->fail(s->ctx, label, why);
            return 0;
        }
        if (has == 0) {
            char bwhy[1200], btool[sizeof tool];
            batched = bb_peer_batched_tool(peer);
            if (batched && bb_peer_locate(batched, btool, sizeof btool, bwhy, sizeof bwhy) == 0) {
                snprintf(tool, sizeof tool, "%s", btool);
            } else {
                snprintf(why, sizeof why, "%s has no -d (its --help lists no --n-depth): depth %d not measured by this "
                         "peer, point skipped (its llama-batched-bench would measure it: --peer %s-batched=PATH)",
                         tool, p->depth, peer->name);
                s->fail(s->ctx, label, why);
                return 0;
            }
        }
    }
    if (!s->quiet) fprintf(stderr, "bitbench run: peer: %s (%s)\n", label, tool);
    bb_llama_bench_spec spec = {.model = model, .threads = p->threads, .prompt = p->prompt, .gen = p->gen,
                                .reps = sw->min_reps, .depth = p->depth};
    const int *cpus;
    int ncpus = point_cpus(sw, p, &cpus);
    bb_llama_bench_result r;
    bb_e2e_row row;
    bb_load_around load;
    for (int attempt = 1;; attempt++) {
        bb_load_reading before, after;
        bb_load_read(&before);
        int failed = batched ? batched_runs(tool, sw, p, model, cpus, ncpus, &r, why, sizeof why)
                             : bb_peer_bench(tool, &spec, sw->peer_timeout, cpus, ncpus, &r, why, sizeof why);
        if (failed) {
            if (attempt == 1) {
                s->fail(s->ctx, label, why);
                return 0;
            }
            /* a run again that failed: the previous run stands, flagged as it was */
            if (!s->quiet)
                fprintf(stderr, "bitbench run: peer %s: running it again failed: %s; the previous run is kept\n",
                        label, why);
            break;
        }
        bb_load_read(&after);
        bb_load_between(&before, &after, &load); /* the load while the kept run ran */
        fill_row(s, sw, p, entry, &r, &row);
        if (batched) { /* its t_pp is the depth's prefill, not a prompt at depth: pp left empty */
            snprintf(row.peer, sizeof row.peer, "%s", batched->name);
            row.pp_tps = row.pp_tps_min = row.pp_tps_max = NAN;
        }
        double pp[BB_PEER_MAX_SAMPLES], tg[BB_PEER_MAX_SAMPLES];
        bool noisy = bb_e2e_row_noise(&row, rep_times(&r.pp, pp), r.pp.nsamples, rep_times(&r.tg, tg),
                                      r.tg.nsamples, sw->spread_limit, sw->sd_limit, bb_sweep_spread_phases(sw));
        row.attempts = attempt;
        if (!noisy || attempt > sw->remeasure) break;
        if (!s->quiet)
            fprintf(stderr, "bitbench run: peer %s: spread pp %.1f%%, tg %.1f%%: running it again (%d of %d)\n",
                    label, 100 * (isfinite(row.pp_spread) ? row.pp_spread : 0),
                    100 * (isfinite(row.tg_spread) ? row.tg_spread : 0), attempt, sw->remeasure);
    }
    bb_exec_cpus_text(cpus, ncpus, row.cpus, sizeof row.cpus);
    /* the load while the peer ran, as bitbench's own rows have it (the sink adds the run's part) */
    row.prov.load_before = load.load_before;
    row.prov.load_after = load.load_after;
    row.prov.other_cpu_share = load.other_cpu_share;
    row.prov.busy = load.busy;
    return s->emit(s->ctx, &row);
}

int bb_peer_points_for(const bb_peer_sink *s, const bb_sweep *sw, const bb_e2e_point *p)
{
    for (int i = 0; i < sw->npeers; i++)
        if (bb_peer_attached_kernel(sw, sw->peers[i]) == p->kernel && run_entry(s, sw, p, sw->peers[i])) return -1;
    return 0;
}

int bb_lua_peer_available(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    char why[1200];
    if (bb_peer_available(name, why, sizeof why)) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_pushstring(L, why);
    return 2;
}
