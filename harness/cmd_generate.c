/* bitbench generate: text from a model with a tokenizer, as llama2.c's run does; the
 * continuation on stdout, the speed on stderr.  --steps counts positions including the prompt. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "models/model_load.h"
#include "models/sampler.h"
#include "models/tokenizer.h"
#include "support/machine.h"
#include "support/timer.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: bitbench generate --model PATH [--tokenizer PATH] [--kernel K] [--out-kernel K]\n"
               "                         [--prompt TEXT] [--steps N] [--ctx N] [--temperature T] [--top-k K] [--seed S]\n"
               "                         [--threads T] [--kv f32|f16]\n"
               "  PATH is a GGUF file (.gguf: architectures llama, bitnet) or a llama2.c checkpoint; the tokenizer\n"
               "  is a GGUF model's own (tokenizer.ggml.*), else tok<vocab>.bin or tokenizer.bin beside the model;\n"
               "  --tokenizer takes a llama2.c tokenizer file or a .gguf's tokenizer.  --ctx (default: the larger\n"
               "  of the model's context and --steps) may exceed the model's training context, with a warning.\n");
}

int bb_cmd_generate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"model", required_argument, 0, 'm'}, {"tokenizer", required_argument, 0, 'z'},
        {"kernel", required_argument, 0, 'K'}, {"out-kernel", required_argument, 0, 'O'},
        {"prompt", required_argument, 0, 'p'}, {"steps", required_argument, 0, 'n'},
        {"temperature", required_argument, 0, 'T'}, {"top-k", required_argument, 0, 'k'},
        {"seed", required_argument, 0, 's'}, {"threads", required_argument, 0, 't'},
        {"kv", required_argument, 0, 'v'}, {"ctx", required_argument, 0, 'c'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    bb_machine mach;
    bb_machine_detect(&mach);
    const char *model = NULL, *tokpath = NULL, *prompt = "";
    bb_tf_options opt = {.kernel = "f32", .out_kernel = NULL};
    int steps = 256, top_k = 40, threads = 1, ctx = 0;
    double temperature = 0.0;
    uint64_t seed = 42;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'm': model = optarg; break;
        case 'z': tokpath = optarg; break;
        case 'K': opt.kernel = optarg; break;
        case 'O': opt.out_kernel = optarg; break;
        case 'p': prompt = optarg; break;
        case 'n': if (bb_parse_int("--steps", optarg, 1, 1 << 20, &steps)) return 2; break;
        case 'c': if (bb_parse_int("--ctx", optarg, 1, 1 << 20, &ctx)) return 2; break;
        case 'T': if (bb_parse_double("--temperature", optarg, 0, 100, &temperature)) return 2; break;
        case 'k': if (bb_parse_int("--top-k", optarg, 0, 1 << 24, &top_k)) return 2; break;
        case 's': if (bb_parse_u64("--seed", optarg, &seed)) return 2; break;
        case 't': if (bb_parse_int("--threads", optarg, 1, mach.pus, &threads)) return 2; break;
        case 'v':
            if (strcmp(optarg, "f16") && strcmp(optarg, "f32")) {
                fprintf(stderr, "bitbench generate: --kv: unknown cache type '%s'; valid: f32, f16\n", optarg);
                return 2;
            }
            opt.kv_f16 = !strcmp(optarg, "f16");
            break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "bitbench generate: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (!model) {
        fprintf(stderr, "bitbench generate: --model is required\n");
        usage(stderr);
        return 2;
    }
    if (!opt.out_kernel) opt.out_kernel = opt.kernel;
    char err[1536];
    if (!bb_model_is_path(model)) {
        fprintf(stderr, "bitbench generate: --model %s: give a model file (.gguf or a llama2.c checkpoint); configs have "
                "no trained weights\n", model);
        return 2;
    }
    bb_model_source *ck = bb_model_source_open(model, NULL, err, sizeof err);
    if (!ck) {
        fprintf(stderr, "bitbench generate: %s\n", err);
        return 1;
    }
    const bb_tf_dims *d = bb_model_source_dims(ck);
    int rc = 1;
    bb_tokenizer *tok = bb_model_source_tokenizer(ck, tokpath, err, sizeof err);
    bb_transformer *tf = NULL;
    bb_pool *pool = NULL;
    int *ids = NULL;
    if (!tok) {
        fprintf(stderr, "bitbench generate: %s\n", err);
        goto done;
    }
    if (bb_tokenizer_vocab_size(tok) > d->vocab_size) {
        fprintf(stderr, "bitbench generate: the tokenizer has %d tokens but the model's vocabulary only %d\n",
                bb_tokenizer_vocab_size(tok), d->vocab_size);
        goto done;
    }
    ids = malloc(sizeof(int) * ((size_t)bb_tokenizer_cap(strlen(prompt)) + 1 + (size_t)steps));
    int np = ids ? bb_tokenizer_encode(tok, prompt, ids, bb_tokenizer_cap(strlen(prompt)), err, sizeof err) : -1;
    if (np < 0) {
        fprintf(stderr, "bitbench generate: %s\n", ids ? err : "out of memory");
        goto done;
    }
    if (np == 0) {
        fprintf(stderr, "bitbench generate: the prompt is empty and the tokenizer adds no BOS: give --prompt\n");
        goto done;
    }
    if (!ctx) ctx = steps > d->seq_len ? steps : d->seq_len;
    if (steps > ctx) steps = ctx;
    if (np > steps) {
        fprintf(stderr, "bitbench generate: the prompt is %d tokens but --steps / the context (%d) allow %d\n", np, ctx,
                steps);
        goto done;
    }
    char warn[512];
    if (!(tf = bb_model_source_build(ck, ctx, &opt, warn, sizeof warn, err, sizeof err))) {
        fprintf(stderr, "bitbench generate: %s\n", err);
        goto done;
    }
    if (warn[0]) fprintf(stderr, "bitbench generate: warning: %s\n", warn);
    if (!(pool = bb_pool_create(threads, err, sizeof err))) {
        fprintf(stderr, "bitbench generate: %s\n", err);
        goto done;
    }
    bb_sampler sampler;
    bb_sampler_init(&sampler, (float)temperature, top_k, seed);
    for (int i = ids[0] == bb_tokenizer_bos(tok); i < np; i++) /* the prompt, without BOS */
        fputs(bb_tokenizer_decode(tok, i ? ids[i - 1] : -1, ids[i]), stdout);
    fflush(stdout);
    double t0 = bb_now();
    float *logits = (float *)bb_tf_forward(tf, pool, ids, np, 0, NULL);
    double t1 = bb_now();
    /* As run.c: positions 0 .. steps-1 are run, and a token is chosen after each of them. */
    int n = np;
    while (n - 1 < steps) {
        int next = bb_sample(&sampler, logits, d->vocab_size);
        if (bb_tokenizer_is_eog(tok, next)) break;
        fputs(bb_tokenizer_decode(tok, ids[n - 1], next), stdout);
        fflush(stdout);
        ids[n++] = next;
        if (n - 1 < steps) logits = (float *)bb_tf_forward(tf, pool, &next, 1, n - 1, NULL);
    }
    double t2 = bb_now();
    printf("\n");
    fprintf(stderr, "prompt %d tokens in %.3f ms (%.1f tok/s); generated %d tokens in %.3f ms (%.1f tok/s); kernel %s\n",
            np, (t1 - t0) * 1e3, np / (t1 - t0), n - np, (t2 - t1) * 1e3, (n - np) / (t2 - t1 > 0 ? t2 - t1 : 1e-9),
            opt.kernel);
    rc = 0;
done:
    free(ids);
    bb_pool_destroy(pool);
    bb_tf_free(tf);
    bb_tokenizer_free(tok);
    bb_model_source_close(ck);
    return rc;
}
