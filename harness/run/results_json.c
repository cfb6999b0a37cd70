#include "run/results_json.h"

#include <errno.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/json.h"
#include "kernels/cpu.h"
#include "support/output_file.h"

#include "bb_git_commit.h" /* generated at build time: BB_GIT_COMMIT */
#ifndef BB_C_FLAGS
#define BB_C_FLAGS "unknown"
#endif

#if defined(__clang__)
#define BB_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define BB_COMPILER "gcc " __VERSION__
#else
#define BB_COMPILER "unknown"
#endif

void bb_iso_time(char buf[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void write_machine(bb_json *j, const bb_machine *m)
{
    bb_json_object_begin(j, "machine");
    bb_json_string(j, "cpu_model", m->cpu_model);
    bb_json_string(j, "vendor", m->cpu_vendor);
    bb_json_int(j, "family", m->cpu_family);
    bb_json_int(j, "model", m->cpu_model_id);
    bb_json_int(j, "stepping", m->cpu_stepping);
    bb_json_string(j, "flags", m->cpu_flags);
    bb_json_bool(j, "virtualized", m->virtualized);
    bb_json_string(j, "hypervisor", m->virtualized ? m->hypervisor : NULL);
    /* true / false / "unknown" (support/emulation.h): timings under emulation mean nothing */
    if (m->emulated < 0) bb_json_string(j, "emulated", "unknown");
    else bb_json_bool(j, "emulated", m->emulated != 0);
    bb_json_string(j, "emulation_check", m->emulation);
    bb_json_int(j, "sockets", m->sockets);
    bb_json_int(j, "cores", m->cores);
    bb_json_int(j, "pus", m->pus);
    /* where this process could run (affinity mask at start-up): threads were placed only there */
    bb_json_string(j, "allowed_cpus", m->allowed_cpus);
    bb_json_int(j, "allowed_cpu_count", m->nallowed);
    bb_json_int(j, "allowed_cores", m->allowed_cores);
    bb_json_array_begin(j, "caches");
    for (int i = 0; i < m->ncaches; i++) {
        const bb_cache_info *c = &m->caches[i];
        bb_json_object_begin(j, NULL);
        bb_json_int(j, "level", c->level);
        bb_json_string(j, "type", c->type);
        bb_json_int(j, "size", (long long)c->size);
        bb_json_int(j, "line", c->line);
        bb_json_int(j, "instances", c->instances);
        bb_json_int(j, "shared_by_pus", c->shared_by);
        bb_json_object_end(j);
    }
    bb_json_array_end(j);
    /* hwloc, or sysfs where hwloc's topology had no caches (support/cache_sysfs.h) */
    bb_json_string(j, "caches_source", m->cache_source[0] ? m->cache_source : NULL);
    bb_json_array_begin(j, "numa");
    for (int i = 0; i < m->nnuma; i++) {
        bb_json_object_begin(j, NULL);
        bb_json_int(j, "node", m->numa[i].os_index);
        bb_json_int(j, "memory", (long long)m->numa[i].memory);
        bb_json_string(j, "cpus", m->numa[i].cpus);
        bb_json_object_end(j);
    }
    bb_json_array_end(j);
    bb_json_int(j, "mem_total", (long long)m->mem_total);
    bb_json_int(j, "mem_available", (long long)m->mem_available);
    bb_json_string(j, "os", m->os);
    bb_json_object_end(j);
}

void bb_version_print(FILE *f)
{
    fprintf(f, "bitbench %s (commit %s)\ncompiler: %s\nC flags: %s\nLua: %s\nresults database: %s\n", BB_VERSION,
            BB_GIT_COMMIT, BB_COMPILER, BB_C_FLAGS, LUA_RELEASE,
#ifdef BB_HAVE_SQLITE
            "SQLite"
#else
            "none (built without SQLite)"
#endif
    );
}

static void write_build(bb_json *j, const bb_machine *m)
{
    bb_json_object_begin(j, "tool");
    bb_json_string(j, "name", "bitbench");
    bb_json_string(j, "version", BB_VERSION);
    bb_json_string(j, "git_commit", BB_GIT_COMMIT);
    bb_json_object_end(j);
    bb_json_object_begin(j, "build");
    bb_json_string(j, "compiler", BB_COMPILER);
    bb_json_string(j, "c_flags", BB_C_FLAGS);
    bb_json_string(j, "lua", LUA_RELEASE);
    bb_json_string(j, "hwloc_api", m->hwloc_version);
#ifdef BB_HAVE_PAPI
    bb_json_bool(j, "papi", true);
#else
    bb_json_bool(j, "papi", false);
#endif
    bb_json_object_end(j);
}

/* Settings of the kernels that are not in their names: whether the one-stream kernels issue their
 * software prefetches here (kernels/cpu.h), and why. */
static void write_kernel_settings(bb_json *j)
{
    bb_json_object_begin(j, "kernel_settings");
    bb_json_bool(j, "stream_prefetch", bb_cpu_stream_prefetch() != 0);
    bb_json_string(j, "stream_prefetch_why", bb_cpu_stream_prefetch_why());
    bb_json_object_end(j);
}

void bb_json_write_provenance(bb_json *j, const bb_machine *m)
{
    write_build(j, m);
    write_machine(j, m);
    write_kernel_settings(j);
}

static void write_kernels(bb_json *j, const bb_experiment *ex)
{
    bb_json_array_begin(j, "kernels");
    for (int s = 0; s < ex->nsweeps; s++)
        for (int i = 0; i < ex->sweeps[s].nkernels; i++) {
            const bb_kernel_choice *kc = &ex->sweeps[s].kernels[i];
            int seen = 0;
            for (int t = 0; t <= s && !seen; t++)
                for (int u = 0; u < (t == s ? i : ex->sweeps[t].nkernels) && !seen; u++)
                    seen = ex->sweeps[t].kernels[u].kernel == kc->kernel &&
                           ex->sweeps[t].kernels[u].variant == kc->variant;
            if (seen) continue;
            const bb_kernel *k = kc->kernel;
            bb_json_object_begin(j, NULL);
            bb_json_string(j, "name", k->name);
            bb_json_string(j, "variant", kc->variant->isa);
            bb_json_string(j, "family", k->family);
            bb_json_number(j, "bits_per_weight", k->bits_per_weight);
            bb_json_bool(j, "lossless", k->lossless);
            bb_json_string(j, "description", k->description);
            bb_json_string(j, "paper", k->paper);
            bb_json_object_end(j);
        }
    bb_json_array_end(j);
}

/* The fields of a model sweep (after its name and line). */
static void write_model_sweep(bb_json *j, const bb_sweep *sw)
{
    bb_json_string(j, "type", "model");
    bb_json_array_begin(j, "models");
    for (int i = 0; i < sw->nmodels; i++) bb_json_string(j, NULL, sw->models[i].name);
    bb_json_array_end(j);
    bb_json_array_begin(j, "kernels");
    for (int i = 0; i < sw->nkernels; i++) bb_json_string(j, NULL, sw->kernels[i].spec);
    bb_json_array_end(j);
    bb_json_string(j, "out_kernel", sw->out_kernel);
    bb_json_array_begin(j, "threads");
    for (int i = 0; i < sw->nthreads; i++) bb_json_int(j, NULL, sw->threads[i]);
    bb_json_array_end(j);
    bb_json_array_begin(j, "prompt");
    for (int i = 0; i < sw->nprompt; i++) bb_json_int(j, NULL, sw->prompt[i]);
    bb_json_array_end(j);
    bb_json_array_begin(j, "gen");
    for (int i = 0; i < sw->ngen; i++) bb_json_int(j, NULL, sw->gen[i]);
    bb_json_array_end(j);
    bb_json_int(j, "reps", sw->min_reps);
    bb_json_string(j, "kv", sw->kv_k == sw->kv_v ? bb_kv_type_name(sw->kv_k) : "mixed");
    bb_json_string(j, "kv_type_k", bb_kv_type_name(sw->kv_k));
    bb_json_string(j, "kv_type_v", bb_kv_type_name(sw->kv_v));
    bb_json_array_begin(j, "depth");
    for (int i = 0; i < sw->ndepth; i++) bb_json_int(j, NULL, sw->depth[i]);
    bb_json_array_end(j);
    bb_json_int(j, "distinct_layers", sw->distinct_layers);
    bb_json_string(j, "compare_logits", sw->compare_logits[0] ? sw->compare_logits : NULL);
    if (sw->compare_logits[0]) bb_json_int(j, "compare_tokens", sw->compare_tokens);
    else bb_json_null(j, "compare_tokens");
    bb_json_string(j, "on_unsupported", sw->on_unsupported == BB_UNSUPPORTED_ERROR ? "error" : "skip");
    bb_json_int(j, "seed", (long long)sw->seed);
    bb_json_number(j, "spread_limit", sw->spread_limit);
    bb_json_number(j, "sd_limit", sw->sd_limit);
    bb_json_int(j, "remeasure", sw->remeasure);
    unsigned phases = bb_sweep_spread_phases(sw);
    bb_json_string(j, "spread_phases", phases == BB_PHASES_BOTH ? "pp+tg" : phases == BB_PHASE_TG ? "tg" : "pp");
    bb_json_int(j, "rounds", sw->rounds > 1 ? sw->rounds : 1);
    bb_json_bool(j, "interleave", sw->interleave);
    if (sw->ppl_file[0]) {
        bb_json_object_begin(j, "perplexity");
        bb_json_string(j, "file", sw->ppl_file);
        bb_json_int(j, "ctx", sw->ppl_ctx);
        bb_json_int(j, "chunks", sw->ppl_chunks);
        bb_json_string(j, "model", sw->ppl_model[0] ? sw->ppl_model : NULL);
        bb_json_object_end(j);
    } else {
        bb_json_null(j, "perplexity");
    }
}

static void write_sweeps(bb_json *j, const bb_experiment *ex)
{
    bb_json_array_begin(j, "sweeps");
    for (int s = 0; s < ex->nsweeps; s++) {
        const bb_sweep *sw = &ex->sweeps[s];
        bb_json_object_begin(j, NULL);
        bb_json_string(j, "name", sw->name);
        if (sw->line) bb_json_int(j, "line", sw->line);
        else bb_json_null(j, "line");
        if (sw->is_model) {
            write_model_sweep(j, sw);
            bb_json_object_end(j);
            continue;
        }
        bb_json_string(j, "type", "kernel");
        bb_json_array_begin(j, "kernels");
        for (int i = 0; i < sw->nkernels; i++) bb_json_string(j, NULL, sw->kernels[i].spec);
        bb_json_array_end(j);
        bb_json_array_begin(j, "shapes");
        for (int i = 0; i < sw->nshapes; i++) {
            bb_json_object_begin(j, NULL);
            bb_json_int(j, "m", sw->shapes[i].m);
            bb_json_int(j, "k", sw->shapes[i].k);
            bb_json_string(j, "model", sw->shapes[i].model[0] ? sw->shapes[i].model : NULL);
            bb_json_string(j, "roles", sw->shapes[i].model[0] ? sw->shapes[i].roles : NULL);
            bb_json_object_end(j);
        }
        bb_json_array_end(j);
        bb_json_array_begin(j, "n");
        for (int i = 0; i < sw->nn; i++) bb_json_int(j, NULL, sw->n[i]);
        bb_json_array_end(j);
        bb_json_array_begin(j, "threads");
        for (int i = 0; i < sw->nthreads; i++) bb_json_int(j, NULL, sw->threads[i]);
        bb_json_array_end(j);
        bb_json_array_begin(j, "cache");
        for (int i = 0; i < sw->ncache; i++) bb_json_string(j, NULL, bb_cache_mode_name(sw->cache[i]));
        bb_json_array_end(j);
        bb_json_int(j, "warmup", sw->warmup);
        bb_json_int(j, "reps", sw->min_reps);
        bb_json_int(j, "max_reps", sw->max_reps);
        bb_json_number(j, "min_seconds", sw->min_seconds);
        bb_json_number(j, "spread_limit", sw->spread_limit);
        bb_json_number(j, "sd_limit", sw->sd_limit);
        bb_json_int(j, "remeasure", sw->remeasure);
        bb_json_number(j, "delay", sw->delay);
        bb_json_string(j, "on_unsupported", sw->on_unsupported == BB_UNSUPPORTED_ERROR ? "error" : "skip");
        bb_json_int(j, "seed", (long long)sw->seed);
        bb_json_bool(j, "verify", sw->verify);
        bb_json_bool(j, "read", sw->read);
        bb_json_int(j, "rounds", sw->rounds > 1 ? sw->rounds : 1);
        /* the settings given as lists (experiment.h): all their values; the fields above hold the first */
        if (sw->nwarmups > 1 || sw->nreps_list > 1 || sw->nmin_seconds_list > 1 || sw->nseeds > 1 || sw->ndelays > 1) {
            bb_json_object_begin(j, "lists");
            bb_json_array_begin(j, "warmup");
            for (int i = 0; i < sw->nwarmups; i++) bb_json_int(j, NULL, sw->warmups[i]);
            bb_json_array_end(j);
            bb_json_array_begin(j, "reps");
            for (int i = 0; i < sw->nreps_list; i++) bb_json_int(j, NULL, sw->reps_list[i]);
            bb_json_array_end(j);
            bb_json_array_begin(j, "min_seconds");
            for (int i = 0; i < sw->nmin_seconds_list; i++) bb_json_number(j, NULL, sw->min_seconds_list[i]);
            bb_json_array_end(j);
            bb_json_array_begin(j, "seed");
            for (int i = 0; i < sw->nseeds; i++) bb_json_int(j, NULL, (long long)sw->seeds[i]);
            bb_json_array_end(j);
            bb_json_array_begin(j, "delay");
            for (int i = 0; i < sw->ndelays; i++) bb_json_number(j, NULL, sw->delays[i]);
            bb_json_array_end(j);
            bb_json_object_end(j);
        }
        bb_json_object_end(j);
    }
    bb_json_array_end(j);
}

void bb_json_write_conversions(bb_json *j, const char *key, const char *lines)
{
    bb_json_object_begin(j, key);
    for (const char *l = lines; *l;) {
        const char *end = strchr(l, '\n'), *colon = strstr(l, ": ");
        size_t len = end ? (size_t)(end - l) : strlen(l);
        if (colon && (size_t)(colon - l) < len) {
            char kind[64], what[512];
            snprintf(kind, sizeof kind, "%.*s", (int)(colon - l), l);
            snprintf(what, sizeof what, "%.*s", (int)(len - (size_t)(colon + 2 - l)), colon + 2);
            bb_json_string(j, kind, what);
        }
        l += len + (end ? 1 : 0);
    }
    bb_json_object_end(j);
}

static void write_conversions(bb_json *j, const bb_run_record *r)
{
    bb_json_array_begin(j, "conversions");
    for (int i = 0; i < r->nconversions; i++) {
        const bb_run_conversion *c = &r->conversions[i];
        bb_json_object_begin(j, NULL);
        bb_json_string(j, "model", c->model);
        bb_json_string(j, "kernel", c->kernel);
        bb_json_string(j, "out_kernel", c->out_kernel);
        bb_json_write_conversions(j, "weights", c->lines);
        bb_json_object_end(j);
    }
    bb_json_array_end(j);
}

static void string_array(bb_json *j, const char *key, char *const *v, int n)
{
    bb_json_array_begin(j, key);
    for (int i = 0; i < n; i++) bb_json_string(j, NULL, v[i]);
    bb_json_array_end(j);
}

/* How far the run got: its kernel points and its end-to-end points. */
static void write_progress(bb_json *j, const bb_run_record *r)
{
    bb_json_object_begin(j, "points");
    bb_json_int(j, "total", r->plan->npoints);
    bb_json_int(j, "done", r->points_done);
    bb_json_int(j, "failed", r->points_failed);
    bb_json_int(j, "flagged", r->points_flagged);
    bb_json_int(j, "skipped", r->plan->nskipped);
    bb_json_int(j, "verify_failed", r->verify_failed);
    bb_json_object_end(j);
    bb_json_object_begin(j, "e2e_points");
    bb_json_int(j, "total", r->plan->ne2e);
    bb_json_int(j, "done", r->e2e_done);
    bb_json_int(j, "failed", r->e2e_failed);
    bb_json_int(j, "flagged", r->e2e_flagged);
    bb_json_object_end(j);
}

/* Where each pool's threads ran, by thread count. */
static void write_placement(bb_json *j, const bb_run_record *r)
{
    bb_json_object_begin(j, "placement");
    for (int t = 1; t <= r->max_threads; t++)
        if (r->placement[t]) {
            char key[16];
            snprintf(key, sizeof key, "%d", t);
            bb_json_string(j, key, r->placement[t]);
        }
    bb_json_object_end(j);
}

/* Each meter: available, or why not and what would make it work; its columns. */
static void write_meters(bb_json *j, const bb_run_record *r)
{
    bb_json_array_begin(j, "meters");
    for (int i = 0; i < r->nmeters; i++) {
        const bb_meter *m = &r->meters[i];
        bb_json_object_begin(j, NULL);
        bb_json_string(j, "name", m->type->name);
        bb_json_bool(j, "available", m->available);
        bb_json_string(j, "reason_code", m->available ? NULL : m->reason_code);
        bb_json_string(j, "reason", m->available ? NULL : m->reason);
        bb_json_string(j, "remedy", m->available ? NULL : bb_meter_remedy(m->reason_code));
        bb_json_array_begin(j, "columns");
        for (int c = 0; c < m->type->ncolumns; c++) bb_json_string(j, NULL, m->type->columns[c]);
        bb_json_array_end(j);
        bb_json_object_end(j);
    }
    bb_json_array_end(j);
}

int bb_run_json_write(const char *path, const bb_run_record *r, char *err, size_t errlen)
{
    bb_output_file o;
    FILE *f = bb_output_begin(&o, path, err, errlen);
    if (!f) return -1;
    const bb_experiment *ex = r->ex;
    bb_json j;
    bb_json_init(&j, f);
    bb_json_object_begin(&j, NULL);
    bb_json_int(&j, "schema_version", 1);
    bb_json_string(&j, "run_id", r->run_id);
    bb_json_string(&j, "host", r->host);
    write_build(&j, r->mach);
    bb_json_array_begin(&j, "command_line");
    for (int i = 0; i < r->argc; i++) bb_json_string(&j, NULL, r->argv[i]);
    bb_json_array_end(&j);
    bb_json_object_begin(&j, "experiment");
    bb_json_string(&j, "name", ex->name);
    bb_json_string(&j, "description", ex->description);
    bb_json_string(&j, "file", ex->file);
    bb_json_string(&j, "sha256", r->sha256);
    bb_json_bool(&j, "unsafe_lua", ex->unsafe_lua); /* run --unsafe-lua: every Lua library */
    bb_json_object_end(&j);
    if (r->sources) bb_run_sources_json(&j, r->sources);
    if (r->settings) bb_run_settings_write_json(&j, r->settings);
    else bb_json_null(&j, "run_settings");
    bb_shard_write_json(&j, r->shard);
    bb_json_string(&j, "status", r->status);
    bb_json_string(&j, "status_reason", r->status_reason[0] ? r->status_reason : NULL);
    bb_json_string(&j, "started_at", r->started_at);
    bb_json_string(&j, "updated_at", r->updated_at);
    bb_json_string(&j, "ended_at", r->ended_at[0] ? r->ended_at : NULL);
    bb_json_int(&j, "sessions", r->sessions);
    write_progress(&j, r);
    write_machine(&j, r->mach);
    write_kernel_settings(&j);
    write_placement(&j, r);
    write_meters(&j, r);
    write_kernels(&j, ex);
    write_sweeps(&j, ex);
    bb_json_string(&j, "csv", r->csv_file);
    bb_json_string(&j, "jsonl", r->plan->npoints ? "results.jsonl" : NULL); /* written when the run ends */
    bb_json_string(&j, "markdown", r->md_file);
    /* model sweeps: one row per end-to-end point (columns in docs/results.md, "e2e.csv") */
    bb_json_string(&j, "e2e_csv", r->plan->ne2e ? r->e2e_file : NULL);
    bb_json_string(&j, "e2e_jsonl", r->plan->ne2e ? "e2e.jsonl" : NULL);
    string_array(&j, "skipped", r->plan->skipped, r->plan->nskipped);
    string_array(&j, "failed", r->failures, r->nfailures);
    bb_json_array_begin(&j, "warnings");
    for (int i = 0; i < ex->nwarnings; i++) bb_json_string(&j, NULL, ex->warnings[i]);
    for (int i = 0; i < r->nflagged; i++) bb_json_string(&j, NULL, r->flagged[i]);
    bb_json_array_end(&j);
    write_conversions(&j, r);
    bb_json_object_end(&j);
    bb_json_finish(&j);
    return bb_output_commit(&o, err, errlen);
}

