/* bitbench list kernels|models [DIR]|meters|columns [TABLE]: the registry, the model configs (and
 * the GGUF files in DIR), the meters, the columns of a run's CSV files, as tables. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/e2e_bench.h"
#include "cli/commands.h"
#include "cli/describe.h"
#include "kernels/kernel.h"
#include "meters/meter.h"
#include "models/model_config.h"
#include "models/model_load.h"
#include "results/column_tables.h"
#include "support/term_text.h"

static void list_kernels(void)
{
    printf("%-14s %-10s %6s %-8s %-30s %-18s %s\n", "kernel", "family", "bpw", "lossless",
           "variants (usable here)", "constraints", "source");
    for (int i = 0; i < bb_kernel_count(); i++) {
        const bb_kernel *k = bb_kernel_at(i);
        char vars[128] = "", cons[64];
        size_t used = 0;
        for (int v = 0; v < bb_variant_count(k); v++) {
            if (!bb_variant_usable(&k->variants[v])) continue;
            int w = snprintf(vars + used, sizeof vars - used, "%s%s", used ? "," : "", k->variants[v].isa);
            if (w < 0 || (size_t)w >= sizeof vars - used) break;
            used += (size_t)w;
        }
        snprintf(cons, sizeof cons, "K%%%d M%%%d%s", k->k_multiple, k->m_multiple, k->shape_error ? " +rules" : "");
        printf("%-14s %-10s %6.3f %-8s %-30s %-18s %s\n", k->name, k->family, k->bits_per_weight,
               k->lossless ? "yes" : "no", vars, cons, k->paper);
    }
#if defined(__x86_64__)
    const char *amx = bb_cpu_amx_refusal();
    if (amx) printf("@amx variants unavailable: %s\n", amx);
#endif
}

/* The same kernels as a JSON array, each as `bitbench describe --json` writes it. */
static void list_kernels_json(void)
{
    bb_json j;
    bb_json_init(&j, stdout);
    bb_json_array_begin(&j, NULL);
    for (int i = 0; i < bb_kernel_count(); i++) bb_describe_kernel_json(&j, NULL, bb_kernel_at(i), NULL);
    bb_json_array_end(&j);
    bb_json_finish(&j);
}

/* The memory the engine needs for a model with a kernel at a 2048-token context (packed linear
 * layers, f16 embedding and classifier, f32 KV cache, 512-token prefill buffers), from
 * bb_tf_estimate_bytes: "-" when the kernel cannot take one of the model's shapes. */
#define LIST_CONTEXT 2048

static void model_memory(const bb_model_config *c, const char *kernel, char *buf, size_t len)
{
    bb_tf_dims d;
    bb_tf_dims_from_config(c, LIST_CONTEXT, &d);
    bb_tf_options o = {.kernel = kernel, .out_kernel = "f16", .max_batch = 512};
    size_t need;
    char err[512];
    if (bb_tf_estimate_bytes(&d, &o, &need, err, sizeof err)) snprintf(buf, len, "-");
    else if (need >= (size_t)1 << 30) snprintf(buf, len, "%.1f GiB", need / 1073741824.0);
    else snprintf(buf, len, "%.0f MiB", need / 1048576.0);
}

/* One row of the model table. */
/* One row, the name in a column `width` wide. */
static void print_model(const bb_model_config *c, int width)
{
    char hk[16], params[16], shapes[256] = "";
    snprintf(hk, sizeof hk, "%d/%d", c->n_heads, c->n_kv_heads);
    double p = (double)bb_model_param_count(c);
    if (p >= 1e9) snprintf(params, sizeof params, "%.2fB", p / 1e9);
    else if (p >= 1e6) snprintf(params, sizeof params, "%.0fM", p / 1e6);
    else snprintf(params, sizeof params, "%.0fK", p / 1e3);
    bb_model_shape sh[BB_MODEL_MAX_SHAPES];
    int ns = bb_model_shapes(c, sh);
    size_t used = 0;
    for (int j = 0; j < ns && used < sizeof shapes; j++) {
        int w = snprintf(shapes + used, sizeof shapes - used, "%s%dx%d (%s)", j ? " " : "", sh[j].m, sh[j].k,
                         sh[j].roles);
        if (w < 0) break;
        used += (size_t)w;
    }
    char mem_i2s[24], mem_f16[24];
    model_memory(c, "i2_s", mem_i2s, sizeof mem_i2s);
    model_memory(c, "f16", mem_f16, sizeof mem_f16);
    char name[512]; /* a GGUF file's name, from a folder of anyone's: shown through term_text */
    bb_term_text(c->name, name, sizeof name);
    int pad = width - bb_term_columns(name); /* the column lined up by what the terminal shows */
    printf("%s%*s %-7s %6d %6d %6d %7s %7d %6s %9s %10s %10s %s\n", name, pad > 0 ? pad : 0, "",
           bb_model_style_name(c->style), c->dim,
           c->ffn_dim, c->n_layers, hk, c->vocab_size, bb_model_ffn_act_name(c->ffn_act), params, mem_i2s, mem_f16,
           shapes);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

#define MAX_GGUF_FILES 1024

/* The names of the *.gguf files of a directory, sorted, into files (strdup'd).  Returns their
 * count, or -1 when the directory cannot be read. */
static int gguf_files(const char *dir, char *files[MAX_GGUF_FILES])
{
    DIR *dp = opendir(dir);
    if (!dp) {
        char shown[1024];
        fprintf(stderr, "bitbench list models: cannot read directory %s: %s\n", bb_term_text(dir, shown, sizeof shown),
                strerror(errno));
        return -1;
    }
    int n = 0;
    for (struct dirent *e; (e = readdir(dp)) && n < MAX_GGUF_FILES;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && !strcmp(e->d_name + len - 5, ".gguf") && (files[n] = strdup(e->d_name))) n++;
    }
    closedir(dp);
    qsort(files, (size_t)n, sizeof files[0], by_name);
    return n;
}

/* The GGUF files of dir as rows (a file that does not open is reported with its error).  Returns 1
 * when one did not open. */
static int list_gguf_files(const char *dir, char *const *files, int n, int width)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        char path[4096], err[2048];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        bb_model_config c;
        if (bb_model_config_resolve(path, &c, err, sizeof err)) {
            fputs("bitbench list models: ", stderr);
            bb_term_fputs(err, stderr);
            fputc('\n', stderr);
            bad = 1;
        } else {
            print_model(&c, width);
        }
    }
    char shown[1024];
    if (!n) fprintf(stderr, "bitbench list models: no *.gguf files in %s\n", bb_term_text(dir, shown, sizeof shown));
    return bad;
}

/* Model configs with their parameter counts and memory needs, then the GGUF files of dir when it
 * is given; a config or file that does not load is reported, not skipped. */
static int list_models(const char *dir)
{
    char **names;
    int n = bb_model_names(&names), bad = 0;
    if (!n) {
        fprintf(stderr, "bitbench list models: no model configs (*.lua) in %s\n", bb_model_dir());
        return 1;
    }
    /* the name column as wide as the longest name as the terminal shows it (GGUF file names run
     * long, and may hold UTF-8 or bytes shown as \xNN) */
    char *files[MAX_GGUF_FILES], shown[512];
    int nfiles = dir ? gguf_files(dir, files) : 0, width = 20;
    for (int i = 0; i < n + (nfiles > 0 ? nfiles : 0); i++) {
        int w = bb_term_columns(bb_term_text(i < n ? names[i] : files[i - n], shown, sizeof shown));
        if (w > width) width = w;
    }
    printf("%-*s %-7s %6s %6s %6s %7s %7s %6s %9s %10s %10s %s\n", width, "model", "style", "dim", "ffn", "layers",
           "heads/kv", "vocab", "ffn_act", "params", "mem i2_s", "mem f16", "shapes M×K (roles)");
    for (int i = 0; i < n; i++) {
        bb_model_config c;
        char err[2048];
        if (bb_model_load(names[i], &c, err, sizeof err)) {
            fprintf(stderr, "bitbench list models: %s\n", err);
            bad = 1;
            continue;
        }
        print_model(&c, width);
    }
    bb_model_names_free(names, n);
    if (nfiles < 0) bad = 1;
    else if (dir) bad |= list_gguf_files(dir, files, nfiles, width);
    for (int i = 0; i < nfiles; i++) free(files[i]);
    printf("mem: what the engine allocates at a %d-token context (packed linear layers, f16 embedding and "
           "classifier, f32 KV cache, prefill buffers); '-': the kernel cannot take one of the model's shapes\n",
           LIST_CONTEXT);
    return bad;
}

/* Meters of this build, probed: available here or why not. */
static int list_meters(void)
{
    printf("%-8s %-10s %-60s %s\n", "meter", "available", "columns", "description / reason");
    for (int i = 0; i < bb_meter_type_count(); i++) {
        const bb_meter_type *t = bb_meter_type_at(i);
        bb_meter m;
        int rc = bb_meter_open(&m, t);
        char cols[256] = "";
        size_t used = 0;
        for (int c = 0; c < t->ncolumns && used < sizeof cols; c++) {
            int w = snprintf(cols + used, sizeof cols - used, "%s%s", c ? "," : "", t->columns[c]);
            if (w < 0) break;
            used += (size_t)w;
        }
        char why[300];
        snprintf(why, sizeof why, "%s: %s", m.reason_code, m.reason);
        bool ok = rc == 0 && m.available;
        printf("%-8s %-10s %-60s %s\n", t->name, ok ? "yes" : "no", cols, ok ? t->description : why);
        if (!ok && bb_meter_remedy(m.reason_code)[0])
            printf("%-8s %-10s %-60s to make it work: %s\n", "", "", "", bb_meter_remedy(m.reason_code));
        bb_meter_close(&m);
    }
    return 0;
}

/* The columns of one table of a run directory, or of every table (each under a heading naming its
 * file), as markdown: the results schema of docs/results.md. */
static int list_columns(const char *table)
{
    if (table) {
        bb_column_table t;
        if (!bb_column_table_by_name(table, &t)) {
            char names[128];
            bb_column_table_names(names, sizeof names);
            fprintf(stderr, "bitbench list columns: unknown table '%s'; valid: %s\n", table, names);
            return 2;
        }
        bb_columns_markdown(stdout, &t);
        return 0;
    }
    for (int i = 0; i < bb_column_table_count(); i++) {
        bb_column_table t = bb_column_table_at(i);
        printf("%s## %s (bitbench list columns %s)\n\n", i ? "\n" : "", t.file, t.name);
        bb_columns_markdown(stdout, &t);
        if (t.meter_columns) printf("\nthen one column per meter value (bitbench list meters)\n");
    }
    return 0;
}

static void usage(FILE *f)
{
    char names[128];
    bb_column_table_names(names, sizeof names);
    fprintf(f, "usage: bitbench list kernels [--json] the registered kernels, their variants usable here\n"
               "                                      (--json: each as `bitbench describe KERNEL --json`)\n"
               "       bitbench list models [DIR]     the model configs (and the GGUF files in DIR)\n"
               "       bitbench list meters           the meters, available here or why not\n"
               "       bitbench list columns [TABLE]  the columns of a run's CSV files as markdown tables\n"
               "                                      (TABLE: %s; default all)\n",
            names);
}

int bb_cmd_list(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(what, "kernels") == 0) {
        bool json = argc > 2 && strcmp(argv[2], "--json") == 0;
        if (argc > 2 + json) {
            fprintf(stderr, "bitbench list kernels: unexpected '%s'; valid: --json\n", argv[2 + json]);
            return 2;
        }
        if (json) list_kernels_json();
        else list_kernels();
        return 0;
    }
    if (strcmp(what, "models") == 0) return list_models(argc > 2 ? argv[2] : NULL);
    if (strcmp(what, "meters") == 0) return list_meters();
    if (strcmp(what, "columns") == 0) {
        if (argc > 3) {
            fprintf(stderr, "bitbench list columns: one table at most, got '%s' after '%s'\n", argv[3], argv[2]);
            return 2;
        }
        return list_columns(argc > 2 ? argv[2] : NULL);
    }
    fprintf(stderr, "bitbench list: unknown list '%s'; valid: kernels, models, meters, columns\n", what);
    return 2;
}
