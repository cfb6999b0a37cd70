/* bitbench export: a model written as a GGUF file that llama.cpp (and bitnet.cpp, for I2_S)
 * loads, tensor by tensor (models/gguf_export.h): a synthetic paper model (the very weights the
 * engine generates for its name and seed), a llama2.c checkpoint (with its tokenizer's
 * vocabulary) or another GGUF file (its tokenizer keys copied), converted to one type. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "commands.h"
#include "models/gguf_export.h"
#include "models/llama2c.h"
#include "models/model_load.h"
#include "support/output_file.h"
#include "support/sizes.h"

#define DEFAULT_CONFIG_CTX 2048

static void usage(FILE *f)
{
    fprintf(f, "usage: bitbench export --model NAME|FILE --type TYPE -o|--output FILE.gguf [--seed S] [--ctx N]\n"
               "                       [--tokenizer PATH] [--name NAME]\n"
               "  NAME: a model config (models/NAME.lua) with synthetic weights from --seed (default 1);\n"
               "  FILE: a llama2.c checkpoint (vocabulary from --tokenizer, default tok<vocab>.bin or\n"
               "  tokenizer.bin beside it) or a GGUF file.  TYPE: %s.\n"
               "  --ctx: the context length the file declares (default: the model file's, %d for a config).\n"
               "  --name: general.name (default: the config's name, or the file's without directory and extension).\n",
            bb_gguf_export_types(), DEFAULT_CONFIG_CTX);
}

/* Writing over the model being read would truncate the mapped file under the reader. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void print_report(const char *out, const bb_gguf_export_report *r)
{
    double mb = (double)r->file_bytes / 1e6;
    printf("wrote %s: %d tensors, %.1f MB in %.2f s (%.1f MB/s)\n", out, r->n_tensors, mb, r->seconds,
           r->seconds > 0 ? mb / r->seconds : 0.0);
    for (int i = 0; i < r->n_types; i++)
        printf("  %-6s %4d tensors %12llu bytes\n", r->per_type[i].type, r->per_type[i].tensors,
               (unsigned long long)r->per_type[i].bytes);
    if (r->fallbacks[0]) printf("not in their rule's type:\n  %s\n", r->fallbacks);
}

/* The vocabulary a model brings: a llama2.c checkpoint's tokenizer file, a GGUF file's keys. */
static int model_vocab(bb_model_source *m, const char *model, const char *tokpath, bb_gguf_export_options *eo,
                       bb_gguf_vocab *v, char *err, size_t errlen)
{
    const bb_tf_dims *d = bb_model_source_dims(m);
    if (bb_model_source_format(m) == BB_MODEL_FROM_GGUF) {
        const bb_gguf *g = bb_model_source_gguf(m);
        if (bb_gguf_find_kv(g, "tokenizer.ggml.tokens")) eo->vocab_from = g;
        return 0;
    }
    char tb[1200];
    if (bb_model_source_format(m) == BB_MODEL_FROM_LLAMA2C && !tokpath) {
        if (bb_llama2c_tokenizer_beside(model, d->vocab_size, tb, sizeof tb)) {
            snprintf(err, errlen, "no tokenizer beside %s (tok%d.bin or tokenizer.bin); give --tokenizer", model,
                     d->vocab_size);
            return -1;
        }
        tokpath = tb;
    }
    if (!tokpath) return 0;
    if (bb_gguf_vocab_from_llama2c(tokpath, d->vocab_size, v, err, errlen)) return -1;
    eo->vocab = v;
    return 0;
}

static int run_export(const char *model, const char *out, const bb_gguf_export_options *base, uint64_t seed, int ctx,
                      const char *tokpath)
{
    char err[BB_ERR_MAX], warn[512];
    bb_synthetic_options syn = {.seed = seed};
    bb_model_source *m = bb_model_source_open(model, &syn, err, sizeof err);
    if (!m) {
        fprintf(stderr, "bitbench export: %s\n", err);
        return 1;
    }
    bb_gguf_export_options eo = *base;
    char name[256];
    if (!eo.name) { /* the config name, or the file's name without directory and extension */
        snprintf(name, sizeof name, "%s", bb_model_source_name(m));
        char *dot = bb_model_source_format(m) == BB_MODEL_FROM_CONFIG ? NULL : strrchr(name, '.');
        if (dot && dot != name) *dot = 0;
        eo.name = name;
    }
    bb_gguf_vocab v = {0};
    bb_tf_dims d;
    int rc = 1;
    if (!ctx && bb_model_source_format(m) == BB_MODEL_FROM_CONFIG) ctx = DEFAULT_CONFIG_CTX;
    if (model_vocab(m, model, tokpath, &eo, &v, err, sizeof err) ||
        bb_model_source_run_dims(m, ctx, &d, warn, sizeof warn, err, sizeof err)) {
        fprintf(stderr, "bitbench export: %s\n", err);
    } else {
        bb_weight_source src = bb_model_source_weights(m, &d);
        bb_gguf_export_report rep;
        if (bb_gguf_export(out, &d, &src, &eo, &rep, err, sizeof err)) {
            fprintf(stderr, "bitbench export: %s\n", err);
        } else {
            print_report(out, &rep);
            /* llama.cpp's "bitnet" graph (through at least c392e5094) and bitnet.cpp's paper-era fork
             * (406a5036) hard-code a SiLU-gated FFN and read no activation key; only later bitnet.cpp
             * has an architecture ("bitnet-b1.58") with squared ReLU. */
            if (d.style == BB_STYLE_BITNET && d.ffn_act == BB_FFN_RELU2)
                printf("note: squared-ReLU FFN (bitnet.hidden_activation = relu2): llama.cpp's and bitnet.cpp's "
                       "(c82b5e6) \"bitnet\" architecture ignores it and runs SiLU, i.e. another model of the same "
                       "shapes and work\n");
            rc = 0;
        }
    }
    bb_gguf_vocab_free(&v);
    bb_model_source_close(m);
    return rc;
}

int bb_cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        {"model", required_argument, 0, 'm'}, {"type", required_argument, 0, 'T'},
        {"output", required_argument, 0, 'o'}, {"seed", required_argument, 0, 's'},
        {"ctx", required_argument, 0, 'c'},   {"tokenizer", required_argument, 0, 'z'},
        {"name", required_argument, 0, 'n'},  {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *model = NULL, *out = NULL, *tokpath = NULL;
    bb_gguf_export_options eo = {0};
    uint64_t seed = 1;
    int ctx = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case 'm': model = optarg; break;
        case 'T': eo.type = optarg; break;
        case 'o': out = optarg; break;
        case 'z': tokpath = optarg; break;
        case 'n': eo.name = optarg; break;
        case 's': if (bb_parse_u64("--seed", optarg, &seed)) return 2; break;
        case 'c': if (bb_parse_int("--ctx", optarg, 1, 1 << 24, &ctx)) return 2; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "bitbench export: unknown or incomplete option '%s' (see bitbench export --help)\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    const char *missing = !model ? "--model" : !eo.type ? "--type" : !out ? "-o FILE.gguf" : NULL;
    if (missing || optind < argc) {
        if (missing) fprintf(stderr, "bitbench export: %s is required (see bitbench export --help)\n", missing);
        else fprintf(stderr, "bitbench export: unexpected argument '%s' (see bitbench export --help)\n", argv[optind]);
        return 2;
    }
    if (!bb_gguf_export_type_valid(eo.type)) {
        fprintf(stderr, "bitbench export: --type %s: valid: %s\n", eo.type, bb_gguf_export_types());
        return 2;
    }
    if (same_file(model, out) || (tokpath && same_file(tokpath, out))) {
        fprintf(stderr, "bitbench export: -o %s is the model or tokenizer being read; give another file\n", out);
        return 2;
    }
    /* Before any model is read: a device, FIFO or folder given as -o, or a folder that cannot take a
     * new file, is refused here, so nothing is read for nothing and nothing at -o is touched. */
    char err[BB_ERR_MAX];
    if (bb_output_check(out, err, sizeof err)) {
        fprintf(stderr, "bitbench export: -o %s\n", err);
        return 2;
    }
    return run_export(model, out, &eo, seed, ctx, tokpath);
}
