/* The figures and words derived from a kernel's descriptor (kernel_about.h). */
#include "kernel_about.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char bb_ops_counted[] =
    "operations of the reference semantics per weight and activation column: a multiply, an add, a "
    "table lookup count 1 each (a multiply-add 2); per-block scale steps spread over the block; the "
    "decode of stored codes not counted (SIMD variants share it between columns), nor the few float "
    "operations per output";

void bb_kernel_figures_at(const bb_kernel *k, int m, int kdim, bb_kernel_figures *f)
{
    const bb_kernel_about *a = &k->about;
    double per_row = m > 0 ? 1.0 / m : 0;
    double column = kdim > 0 && k->act_size ? (double)k->act_size(1, kdim) / kdim * per_row : 0;
    f->weight_bytes = a->block_weights > 0 ? (double)a->block_bytes / a->block_weights : 0;
    f->bytes_n1 = f->weight_bytes + column;
    f->bytes_per_column = column;
    f->touched_per_column = a->act_bytes;
    f->int_ops_per_column = a->int_ops + a->column_int_ops_per_k * per_row;
    f->float_ops_per_column = a->float_ops + a->column_float_ops_per_k * per_row;
    f->int_ops_n1 = f->int_ops_per_column;
    f->float_ops_n1 = f->float_ops_per_column;
}

const char *bb_act_format_name(bb_act_format a)
{
    switch (a) {
    case BB_ACT_F32: return "f32";
    case BB_ACT_F16: return "f16";
    case BB_ACT_BF16: return "bf16";
    case BB_ACT_I8_ROW: return "i8_row";
    case BB_ACT_I8_BLOCK32: return "i8_block32";
    case BB_ACT_I8_BLOCK256: return "i8_block256";
    case BB_ACT_CUSTOM: return "custom";
    }
    return "?";
}

/* The per-element activation error e_k of common/error_bound.c, per format. */
const char *bb_act_format_bound(bb_act_format a)
{
    switch (a) {
    case BB_ACT_F32:
        return "|y - sum_k w x| <= (K + 16) 2^-23 sum_k |w x| (float accumulation)";
    case BB_ACT_F16:
        return "|y - sum_k w x| <= sum_k |w| (|x| 2^-11 + 2^-25) + (K + 16) 2^-23 sum_k |w x|";
    case BB_ACT_BF16:
        return "|y - sum_k w x| <= sum_k |w| |x| 2^-8 + (K + 16) 2^-23 sum_k |w x|";
    case BB_ACT_I8_ROW:
        return "|y - sum_k w x| <= sum_k |w| max|x| / 254 + (K + 16) 2^-23 sum_k |w x| (w the dequantized weights)";
    case BB_ACT_I8_BLOCK32:
        return "|y - sum_k w x| <= sum_k |w| (a_k / 254 + a_k 2^-11) + (K + 16) 2^-23 sum_k |w x| (a_k the max |x| of "
               "k's block of 32, w the dequantized weights)";
    case BB_ACT_I8_BLOCK256:
        return "|y - sum_k w x| <= sum_k |w| a_k / 256 + (K + 16) 2^-23 sum_k |w x| (a_k the max |x| of k's block of "
               "256, w the dequantized weights)";
    case BB_ACT_CUSTOM:
        return "the kernel's own (its error_bound, stated under error)";
    }
    return "?";
}

const char *bb_weight_kind_name(bb_weight_kind w) { return w == BB_WEIGHTS_TERNARY ? "ternary" : "real"; }

const bb_variant *bb_kernel_default_variant(const bb_kernel *k)
{
    const bb_variant *chosen = NULL;
    for (int i = 0; i < bb_variant_count(k); i++)
        if (bb_variant_usable(&k->variants[i])) chosen = &k->variants[i];
    return chosen;
}

void bb_variant_why(const bb_variant *v, char *buf, size_t len)
{
    uint64_t have = bb_cpu_features(), detected = bb_cpu_features_detected();
    uint64_t absent = v->requires & ~detected, masked = v->requires & detected & ~have;
    char req[256], abs_s[256], mask_s[256];
    bb_cpu_feature_string(v->requires, req, sizeof req);
    if (!absent && !masked) {
        snprintf(buf, len, v->requires ? "usable: this CPU has %s" : "usable: needs no CPU feature%s", req);
        return;
    }
    bb_cpu_feature_string(absent, abs_s, sizeof abs_s);
    bb_cpu_feature_string(masked, mask_s, sizeof mask_s);
    const char *env = getenv("BITBENCH_CPU_MASK");
    const char *amx = v->requires & BB_CPU_AMX_INT8 ? bb_cpu_amx_refusal() : NULL;
    snprintf(buf, len, "not usable: needs %s; %s%s%s%s%s%s%s%s%s", req, absent ? "this CPU lacks " : "", absent ? abs_s : "",
             absent && masked ? "; " : "", masked ? mask_s : "", masked ? " masked off by BITBENCH_CPU_MASK=" : "",
             masked && env ? env : "", amx && absent ? " (" : "", amx && absent ? amx : "", amx && absent ? ")" : "");
}

void bb_variant_choice_why(const bb_kernel *k, const bb_variant *chosen, char *buf, size_t len)
{
    if (!chosen) {
        snprintf(buf, len, "no variant of %s is usable on this CPU", k->name);
        return;
    }
    size_t used = 0;
    int w = snprintf(buf, len, "%s: the last usable variant in the kernel's list (least capable first)", chosen->isa);
    if (w < 0 || (size_t)w >= len) return;
    used = (size_t)w;
    int after = 0;
    for (int i = (int)(chosen - k->variants) + 1; i < bb_variant_count(k); i++) {
        char why[512];
        bb_variant_why(&k->variants[i], why, sizeof why);
        w = snprintf(buf + used, len - used, "%s%s %s", after++ ? "; " : "; after it ", k->variants[i].isa, why);
        if (w < 0 || (size_t)w >= len - used) return;
        used += (size_t)w;
    }
    if (chosen->small_n_isa)
        snprintf(buf + used, len - used, "; calls with N < %d run %s (its dispatch rule)", chosen->min_n,
                 chosen->small_n_isa);
}
