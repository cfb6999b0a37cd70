/* One results.csv row from one measurement (bb_gemm_measure's result): what the sweep runner's
 * points and `bitbench gemm --db` have in common.  The caller adds the identity (experiment,
 * sweep, point, model, roles), the CPUs, the spread flag, the meters and the provenance. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/result_row.h"

#include "kernels/cpu.h"
#include "results/noise.h"

void bb_result_row_measured(bb_result_row *row, const bb_kernel *kern, const bb_variant *v, int m, int k, int n,
                            int threads, bb_cache_mode cache, int warmup, const bb_gemm_result *r)
{
    memset(row, 0, sizeof *row);
    snprintf(row->kernel, sizeof row->kernel, "%s", kern->name);
    snprintf(row->variant, sizeof row->variant, "%s", v->isa);
    snprintf(row->variant_ran, sizeof row->variant_ran, "%s", bb_variant_ran(v, n));
    row->fallback_calls = (double)r->fallback_calls;
    snprintf(row->family, sizeof row->family, "%s", kern->family);
    row->bits_per_weight = kern->bits_per_weight;
    row->lossless = kern->lossless;
    row->m = m;
    row->k = k;
    row->n = n;
    row->threads = threads;
    snprintf(row->cache, sizeof row->cache, "%s", bb_cache_mode_name(cache));
    row->warmup = warmup;
    row->reps = r->reps;
    row->rounds = row->round = 1; /* a sweep's rounds set them when it has more (sweep_kernel.c) */
    row->t_median_s = r->t_median;
    row->t_min_s = r->t_min;
    row->t_max_s = r->t_max;
    row->t_sd_s = r->t_sd;
    row->t_q1_s = r->t_q1;
    row->t_q3_s = r->t_q3;
    row->spread = r->spread;
    row->gops = r->gops;
    row->weight_bytes = (double)r->packed_bytes;
    row->gbps = r->gbps;
    row->err_max_abs = r->verified ? r->max_abs_err : NAN;
    row->err_rel_rms = r->verified ? r->err_rel_rms : NAN;
    row->err_master_rel_rms = r->verified ? r->err_master_rel_rms : NAN;
    row->weight_rel_rms = r->verified ? r->weight_rel_rms : NAN;
    snprintf(row->verify, sizeof row->verify, "%s", !r->verified ? "" : bb_gemm_verify_passed(r) ? "passed" : "FAILED");
    row->rotated_bytes = (double)r->rotated_bytes;
    snprintf(row->cache_source, sizeof row->cache_source, "%s", r->cache_source);
    row->min_seconds = row->delay_s = NAN; /* the caller's repetition rule */
    row->roofline_fraction = NAN;
    row->read_t_median_s = r->read_alone ? r->read_t_median : NAN;
    row->read_t_min_s = r->read_alone ? r->read_t_min : NAN;
    row->read_gbps = r->read_alone ? r->read_gbps : NAN;
    row->read_ratio_paired = r->read_alone ? r->read_ratio_paired : NAN;
    row->read_streams = r->read_alone ? r->read_streams : NAN;
    if (bb_variant_follows_stream_prefetch(kern, v, n)) snprintf(row->stream_prefetch, sizeof row->stream_prefetch, "%s",
                                        bb_cpu_stream_prefetch() ? "on" : "off");
    row->attempts = 1;
}

void bb_e2e_row_measured(bb_e2e_row *row, const bb_e2e_spec *spec, int threads, const bb_e2e_result *r)
{
    const bb_kernel *kern = NULL;
    const bb_variant *v = NULL;
    char err[256];
    memset(row, 0, sizeof *row);
    snprintf(row->model, sizeof row->model, "%s", spec->model->name);
    if (bb_kernel_resolve(spec->kernel, &kern, &v, err, sizeof err) == 0) {
        snprintf(row->kernel, sizeof row->kernel, "%s", kern->name);
        snprintf(row->variant, sizeof row->variant, "%s", v->isa);
        snprintf(row->family, sizeof row->family, "%s", kern->family);
        row->bits_per_weight = kern->bits_per_weight;
    } else {
        snprintf(row->kernel, sizeof row->kernel, "%s", spec->kernel);
    }
    /* the classifier's kernel as the run chose it (models/kernel_choice.h) */
    snprintf(row->out_kernel, sizeof row->out_kernel, "%s", r->out_kernel[0] ? r->out_kernel
                                                            : spec->out_kernel ? spec->out_kernel : "f16");
    snprintf(row->variant_ran_pp, sizeof row->variant_ran_pp, "%s", r->pp_variant_ran);
    snprintf(row->variant_ran_tg, sizeof row->variant_ran_tg, "%s", r->tg_variant_ran);
    row->fallback_calls = (double)r->fallback_calls;
    row->threads = threads;
    snprintf(row->cpus, sizeof row->cpus, "%s", r->cpus);
    row->prompt = spec->prompt_len;
    row->gen = spec->gen_len;
    row->depth = spec->depth;
    snprintf(row->kv_type_k, sizeof row->kv_type_k, "%s", bb_kv_type_name(spec->kv_k));
    snprintf(row->kv_type_v, sizeof row->kv_type_v, "%s", bb_kv_type_name(spec->kv_v));
    row->kv_bytes_per_token = (double)r->kv_bytes_per_token;
    row->reps = spec->reps;
    row->rounds = row->round = 1; /* a sweep's rounds set them when it has more (sweep_model.c) */
    row->pp_tps = r->pp_tps_median;
    row->pp_tps_min = r->pp_tps_min;
    row->pp_tps_max = r->pp_tps_max;
    row->tg_tps = r->tg_tps_median;
    row->tg_tps_min = r->tg_tps_min;
    row->tg_tps_max = r->tg_tps_max;
    row->ms_per_token = r->tg_ms_per_token;
    row->matmul_share = r->matmul_share;
    row->weight_bytes_per_token = (double)r->weight_bytes_per_token;
    row->tg_gbps_derived = r->tg_gbps;
    row->read_tps = r->read_tps_median;
    row->read_tps_max = r->read_tps_max;
    row->read_gbps = r->read_gbps;
    row->read_streams = r->read_streams;
    snprintf(row->stream_prefetch, sizeof row->stream_prefetch, "%s", r->stream_prefetch);
    row->tg_of_read = r->tg_of_read;
    row->footprint_bytes = (double)r->footprint;
    if (spec->prompt_len == 0) row->pp_tps = row->pp_tps_min = row->pp_tps_max = NAN; /* not measured: empty cells */
    if (spec->gen_len == 0)
        row->tg_tps = row->tg_tps_min = row->tg_tps_max = row->ms_per_token = row->matmul_share =
            row->tg_gbps_derived = row->read_tps = row->read_tps_max = row->read_gbps = row->read_streams =
                row->tg_of_read = NAN;
    row->logit_max_abs_err = row->logit_rel_rms_err = row->top1_agreement = row->logits_identical = NAN;
    row->ppl = row->ppl_err = row->ppl_tokens = row->ppl_tps = NAN;
    row->energy_per_token_j = NAN;
    row->pp_spread = row->tg_spread = NAN; /* bb_e2e_row_noise fills them from the repetitions */
    row->attempts = 1;
}

bool bb_e2e_row_noise(bb_e2e_row *row, const double *pp, int npp, const double *tg, int ntg, double spread_limit,
                      double sd_limit, unsigned judged)
{
    double sd_pp = 0, sd_tg = 0;
    bool noisy = false;
    row->pp_spread = row->tg_spread = NAN;
    if (row->prompt > 0 && pp && bb_reps_too_noisy(pp, npp, spread_limit, sd_limit, &row->pp_spread, &sd_pp))
        noisy |= (judged & BB_PHASE_PP) != 0;
    if (row->gen > 0 && tg && bb_reps_too_noisy(tg, ntg, spread_limit, sd_limit, &row->tg_spread, &sd_tg))
        noisy |= (judged & BB_PHASE_TG) != 0;
    row->spread_flag = noisy;
    return noisy;
}
