/* bitbench describe KERNEL [--json]: what a kernel is, from its descriptor (kernels/kernel.h's
 * bb_kernel_about, stated where it registers) and what this machine does with it: family, paper
 * and section, stored layout, activation format, bits and bytes per weight, operations per
 * weight at N = 1 and per extra column, constraints, lossless or the error bound, the variants
 * with their CPU features and which one dispatch picks here and why (docs/kernels.md,
 * "`bitbench describe`"). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/describe.h"
#include "kernels/cpu.h"
#include "kernels/kernel_about.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: bitbench describe KERNEL[@ISA] [--json]\n"
               "  what KERNEL is and does: family, paper and section, stored layout, activation format,\n"
               "  bits and bytes per weight, operations per weight (N = 1 and per extra column), shape\n"
               "  constraints, lossless or its error bound, its variants with the CPU features each needs,\n"
               "  and the variant this machine picks and why (BITBENCH_CPU_MASK included); with @ISA,\n"
               "  that variant (refused when this CPU cannot run it)\n"
               "  --json   the same as one JSON object (the elements of `bitbench list kernels --json`)\n"
               "  bitbench list kernels: the kernels' names\n");
}

static void json_figures(bb_json *j, const char *key, double iops, double fops)
{
    bb_json_object_begin(j, key);
    bb_json_number(j, "int", iops);
    bb_json_number(j, "float", fops);
    bb_json_object_end(j);
}

void bb_describe_kernel_json(bb_json *j, const char *key, const bb_kernel *k, const bb_variant *v)
{
    const bb_kernel_about *a = &k->about;
    bool asked = v != NULL;
    if (!v) v = bb_kernel_default_variant(k);
    bb_kernel_figures fig;
    bb_kernel_figures_at(k, BB_ABOUT_M, BB_ABOUT_K, &fig);
    bb_json_object_begin(j, key);
    bb_json_string(j, "name", k->name);
    bb_json_string(j, "family", k->family);
    bb_json_string(j, "description", k->description);
    bb_json_string(j, "paper", k->paper);
    bb_json_string(j, "weights", bb_weight_kind_name(k->weights));
    bb_json_number(j, "bits_per_weight", k->bits_per_weight);
    bb_json_string(j, "layout", a->layout_text);
    bb_json_int(j, "block_weights", a->block_weights);
    bb_json_int(j, "block_bytes", a->block_bytes);
    bb_json_string(j, "outside_blocks", a->outside_blocks);
    bb_json_string(j, "act_format", bb_act_format_name(k->act));
    bb_json_string(j, "activation", a->activation);
    bb_json_object_begin(j, "bytes_per_weight");
    bb_json_int(j, "at_m", BB_ABOUT_M);
    bb_json_int(j, "at_k", BB_ABOUT_K);
    bb_json_number(j, "weights", fig.weight_bytes);
    bb_json_number(j, "n1", fig.bytes_n1);
    bb_json_number(j, "per_extra_column", fig.bytes_per_column);
    bb_json_number(j, "touched_per_column", fig.touched_per_column);
    bb_json_object_end(j);
    bb_json_object_begin(j, "ops_per_weight");
    bb_json_string(j, "counted", bb_ops_counted);
    bb_json_int(j, "at_m", BB_ABOUT_M);
    json_figures(j, "n1", fig.int_ops_n1, fig.float_ops_n1);
    json_figures(j, "per_extra_column", fig.int_ops_per_column, fig.float_ops_per_column);
    json_figures(j, "without_column_cost", a->int_ops, a->float_ops);
    json_figures(j, "column_cost_per_k", a->column_int_ops_per_k, a->column_float_ops_per_k);
    bb_json_string(j, "column_cost", a->column_cost);
    bb_json_object_end(j);
    bb_json_object_begin(j, "constraints");
    bb_json_int(j, "k_multiple", k->k_multiple);
    bb_json_int(j, "m_multiple", k->m_multiple);
    bb_json_string(j, "shape_rules", a->shape_rules);
    bb_json_object_end(j);
    bb_json_bool(j, "lossless", k->lossless);
    bb_json_bool(j, "float_accumulation", k->float_accumulation);
    bb_json_string(j, "error", a->error);
    bb_json_string(j, "error_bound", bb_act_format_bound(k->act));
    bb_json_array_begin(j, "variants");
    for (int i = 0; i < bb_variant_count(k); i++)
        if (bb_variant_usable(&k->variants[i])) bb_json_string(j, NULL, k->variants[i].isa);
    bb_json_array_end(j);
    bb_json_array_begin(j, "all_variants");
    for (int i = 0; i < bb_variant_count(k); i++) {
        const bb_variant *vi = &k->variants[i];
        char req[256], why[1024];
        bb_cpu_feature_string(vi->requires, req, sizeof req);
        bb_variant_why(vi, why, sizeof why);
        bb_json_object_begin(j, NULL);
        bb_json_string(j, "isa", vi->isa);
        bb_json_string(j, "requires", req);
        bb_json_bool(j, "usable", bb_variant_usable(vi));
        bb_json_string(j, "why", why);
        if (vi->small_n_isa) {
            bb_json_string(j, "small_n_isa", vi->small_n_isa);
            bb_json_int(j, "min_n", vi->min_n);
        }
        if (vi->stream_prefetch) bb_json_bool(j, "stream_prefetch", true);
        bb_json_object_end(j);
    }
    bb_json_array_end(j);
    char why[2048];
    bb_variant_choice_why(k, v, why, sizeof why);
    bb_json_string(j, "variant", v ? v->isa : NULL);
    bb_json_string(j, "variant_why", asked ? "asked for by name (KERNEL@ISA)" : why);
    const char *mask = getenv("BITBENCH_CPU_MASK");
    bb_json_string(j, "cpu_mask", mask && *mask ? mask : NULL);
    /* the one-stream variants' software prefetch here (kernels/cpu.h), when any variant follows it */
    bool follows = false;
    for (int i = 0; i < bb_variant_count(k); i++) follows |= k->variants[i].stream_prefetch;
    bb_json_string(j, "stream_prefetch", !follows ? NULL : bb_cpu_stream_prefetch() ? "on" : "off");
    bb_json_string(j, "stream_prefetch_why", follows ? bb_cpu_stream_prefetch_why() : NULL);
    bb_json_object_end(j);
}

/* A field's value over several lines, each after the label column. */
static void field(const char *label, const char *text)
{
    printf("%-14s ", label);
    for (const char *p = text; *p; p++) {
        putchar(*p);
        if (*p == '\n') printf("%-14s ", "");
    }
    putchar('\n');
}

/* v: the variant asked for by name, or NULL for the one this CPU picks. */
static void describe_text(const bb_kernel *k, const bb_variant *v)
{
    bool asked = v != NULL;
    if (!v) v = bb_kernel_default_variant(k);
    const bb_kernel_about *a = &k->about;
    bb_kernel_figures fig;
    bb_kernel_figures_at(k, BB_ABOUT_M, BB_ABOUT_K, &fig);
    char buf[2048];
    printf("%s: %s\n", k->name, k->description);
    snprintf(buf, sizeof buf, "%s (%s%s)", k->family, strcmp(k->family, "float") ? "kernels/" : "baselines/",
             strcmp(k->family, "float") ? k->family : "");
    field("family", buf);
    field("paper", k->paper);
    snprintf(buf, sizeof buf, "%s; %.4g bits per weight as stored: %d weights in %d bytes, scales included\n"
                              "outside the blocks: %s",
             bb_weight_kind_name(k->weights), k->bits_per_weight, a->block_weights, a->block_bytes, a->outside_blocks);
    field("weights", buf);
    field("layout", a->layout_text);
    snprintf(buf, sizeof buf, "%s: %s", bb_act_format_name(k->act), a->activation);
    field("activations", buf);
    snprintf(buf, sizeof buf, "from memory at N = 1: %.4g (%.4g stored weights + the prepared column, %zu bytes, / M;\n"
                              "M = K = %d); each extra column: +%.4g (its prepared column / M: the weights are read once)\n"
                              "touched per column (from cache): %.4g bytes of activations or table entries per weight",
             fig.bytes_n1, fig.weight_bytes, k->act_size(1, BB_ABOUT_K), BB_ABOUT_K, fig.bytes_per_column,
             fig.touched_per_column);
    field("bytes/weight", buf);
    if (a->column_int_ops_per_k || a->column_float_ops_per_k)
        snprintf(buf, sizeof buf, "N = 1 and each extra column: %.4g integer + %.4g float per weight\n"
                                  "plus per column: %s\n"
                                  "= %.4g K integer + %.4g K float per column (per weight, / M: %.4g integer + %.4g float "
                                  "in all at M = %d)\n%s",
                 a->int_ops, a->float_ops, a->column_cost, a->column_int_ops_per_k, a->column_float_ops_per_k,
                 fig.int_ops_n1, fig.float_ops_n1, BB_ABOUT_M, bb_ops_counted);
    else
        snprintf(buf, sizeof buf, "N = 1 and each extra column: %.4g integer + %.4g float per weight\n"
                                  "per column: %s\n%s",
                 a->int_ops, a->float_ops, a->column_cost, bb_ops_counted);
    field("ops/weight", buf);
    snprintf(buf, sizeof buf, "K a multiple of %d, M a multiple of %d%s%s", k->k_multiple, k->m_multiple,
             a->shape_rules ? "; " : "", a->shape_rules ? a->shape_rules : "");
    field("constraints", buf);
    snprintf(buf, sizeof buf, "%s%s%s%s", k->lossless ? "" : "not lossless: ", a->error,
             k->act == BB_ACT_CUSTOM ? "" : "\nchecked bound (tests/test_conformance.c): ",
             k->act == BB_ACT_CUSTOM ? "" : bb_act_format_bound(k->act));
    if (k->float_accumulation)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
                 "\nSIMD variants sum floats in an order of their own (within float rounding of the reference)");
    field("accuracy", buf);
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < bb_variant_count(k); i++) {
        const bb_variant *vi = &k->variants[i];
        char why[1024];
        bb_variant_why(vi, why, sizeof why);
        int w = snprintf(buf + used, sizeof buf - used, "%s%-10s %s", i ? "\n" : "", vi->isa, why);
        if (w < 0 || (size_t)w >= sizeof buf - used) break;
        used += (size_t)w;
    }
    field("variants", buf);
    if (!asked) bb_variant_choice_why(k, v, buf, sizeof buf);
    else snprintf(buf, sizeof buf, "%s: asked for by name (KERNEL@ISA)", v->isa);
    field("picked here", buf);
    const char *mask = getenv("BITBENCH_CPU_MASK");
    snprintf(buf, sizeof buf, "%s%s", mask && *mask ? "BITBENCH_CPU_MASK=" : "BITBENCH_CPU_MASK unset",
             mask && *mask ? mask : "");
    field("cpu mask", buf);
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < bb_variant_count(k) && n < sizeof buf; i++)
        if (k->variants[i].stream_prefetch)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? ", " : "", k->variants[i].isa);
    if (n && n < sizeof buf)
        snprintf(buf + n, sizeof buf - n, ": software prefetch %s here (%s; kernels/cpu.h)",
                 bb_cpu_stream_prefetch() ? "on" : "off", bb_cpu_stream_prefetch_why());
    if (n) field("one stream", buf);
}

int bb_cmd_describe(int argc, char **argv)
{
    const char *spec = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--json")) json = true;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "bitbench describe: unknown option '%s'; valid: --json, --help\n", argv[i]);
            return 2;
        } else if (spec) {
            fprintf(stderr, "bitbench describe: one kernel at a time, got '%s' after '%s'\n", argv[i], spec);
            return 2;
        } else spec = argv[i];
    }
    if (!spec) {
        fprintf(stderr, "bitbench describe: which kernel? `bitbench list kernels` lists them\n");
        return 2;
    }
    const bb_kernel *k;
    const bb_variant *v;
    char err[2048];
    if (bb_kernel_resolve(spec, &k, &v, err, sizeof err)) {
        fprintf(stderr, "bitbench describe: %s (`bitbench list kernels` lists them with their variants)\n", err);
        return 2;
    }
    if (!strchr(spec, '@')) v = NULL; /* not asked for: the description says why dispatch picks it */
    if (json) {
        bb_json j;
        bb_json_init(&j, stdout);
        bb_describe_kernel_json(&j, NULL, k, v);
        bb_json_finish(&j);
    } else {
        describe_text(k, v);
    }
    return 0;
}
