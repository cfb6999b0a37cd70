/* bitbench generate: text from a model with a tokenizer, as llama2.c's run does; the
 * continuation on stdout, the speed on stderr.  --steps counts positions including the prompt. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "models/kernel_choice.h"
#include "models/model_load.h"
#include "models/sampler.h"
#include "models/tokenizer.h"
#include "support/machine.h"
#include "support/sizes.h"
#include "support/timer.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: bitbench generate --model PATH [--tokenizer PATH] [--kernel K] [--out-kernel K] [--no-repack]\n"
               "                         [--prompt TEXT] [--steps N] [--ctx N] [--temperature T] [--top-k K] [--seed S]\n"
               "                         [--threads T] [--cpus LIST] [--kv T]\n"
               "                         [--kv-type-k T] [--kv-type-v T]  (T: f32, f16, bf16, q8_0)\n"
               "  PATH is a GGUF file (.gguf: architectures llama, bitnet) or a llama2.c checkpoint; the tokenizer\n"
               "  is a GGUF model's own (tokenizer.ggml.*), else tok<vocab>.bin or tokenizer.bin beside the model;\n"
               "  --tokenizer takes a llama2.c tokenizer file or a .gguf's tokenizer.  --ctx (default: the larger\n"
               "  of the model's context and --steps) may exceed the model's training context, with a warning.\n"
               "  Each tensor goes through the kernel that stores its type (as llama.cpp computes it); --kernel K\n"
               "  puts the linear layers through K (stderr lists what it requantizes), --out-kernel the classifier.\n"
               "  Q8_0, Q4_0, IQ4_NL, Q2_K, TQ1_0 and TQ2_0 blocks are rearranged at load into the faster interleaved\n"
               "  layout (bits unchanged; stderr says so); --no-repack keeps every tensor's stored layout.\n");
}

/* The command line of `bitbench generate`. */
typedef struct {
    const char *model, *tokpath, *prompt;
    bb_tf_options opt;
    int steps, top_k, threads, ctx;
    bool keep_layout; /* --no-repack */
    double temperature;
    uint64_t seed;
} gen_args;

/* One option; returns -1 to go on, else the exit status. */
static int parse_option(int c, char **argv, const bb_machine *mach, gen_args *a)
{
    switch (c) {
    case 'm': a->model = optarg; return -1;
    case 'z': a->tokpath = optarg; return -1;
    case 'K': a->opt.kernel = optarg; return -1;
    case 'O': a->opt.out_kernel = optarg; return -1;
    case 'R': a->keep_layout = true; return -1;
    case 'p': a->prompt = optarg; return -1;
    case 'n': return bb_parse_int("--steps", optarg, 1, 1 << 20, &a->steps) ? 2 : -1;
    case 'c': return bb_parse_int("--ctx", optarg, 1, 1 << 20, &a->ctx) ? 2 : -1;
    case 'T': return bb_parse_double("--temperature", optarg, 0, 100, &a->temperature) ? 2 : -1;
    case 'k': return bb_parse_int("--top-k", optarg, 0, 1 << 24, &a->top_k) ? 2 : -1;
    case 's': return bb_parse_u64("--seed", optarg, &a->seed) ? 2 : -1;
    case 't': return bb_parse_int("--threads", optarg, 1, 1 << 16, &a->threads) ? 2 : -1;
    case 'P': {
        int *cpus = NULL, ncpus = 0;
        int rc = bb_parse_cpus(optarg, &cpus, &ncpus); /* the pool places its threads on them */
        free(cpus);
        return rc ? 2 : -1;
    }
    case 'v': return bb_parse_kv_option("generate", "--kv", optarg, &a->opt.kv_k, &a->opt.kv_v) ? 2 : -1;
    case 'j': return bb_parse_kv_option("generate", "--kv-type-k", optarg, &a->opt.kv_k, &a->opt.kv_v) ? 2 : -1;
    case 'V': return bb_parse_kv_option("generate", "--kv-type-v", optarg, &a->opt.kv_k, &a->opt.kv_v) ? 2 : -1;
    case 'h': usage(stdout); return 0;
    default:
        fprintf(stderr, "bitbench generate: unknown or incomplete option '%s'\n", argv[optind - 1]);
        usage(stderr);
        return 2;
    }
}

/* The options; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, const bb_machine *mach, gen_args *a)
{
    static const struct option opts[] = {
        {"model", required_argument, 0, 'm'}, {"tokenizer", required_argument, 0, 'z'},
        {"kernel", required_argument, 0, 'K'}, {"out-kernel", required_argument, 0, 'O'},
        {"prompt", required_argument, 0, 'p'}, {"steps", required_argument, 0, 'n'},
        {"temperature", required_argument, 0, 'T'}, {"top-k", required_argument, 0, 'k'},
        {"seed", required_argument, 0, 's'}, {"threads", required_argument, 0, 't'},
        {"kv", required_argument, 0, 'v'}, {"ctx", required_argument, 0, 'c'},
        {"kv-type-k", required_argument, 0, 'j'}, {"kv-type-v", required_argument, 0, 'V'},
        {"cpus", required_argument, 0, 'P'}, {"no-repack", no_argument, 0, 'R'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        int rc = parse_option(c, argv, mach, a);
        if (rc >= 0) return rc;
    }
    if (bb_check_threads("--threads", a->threads)) return 2;
    if (!a->model) {
        fprintf(stderr, "bitbench generate: --model is required\n");
        usage(stderr);
        return 2;
    }
    if (!bb_model_is_path(a->model)) {
        fprintf(stderr, "bitbench generate: --model %s: give a model file (.gguf or a llama2.c checkpoint); configs have "
                "no trained weights\n", a->model);
        return 2;
    }
    return -1;
}

/* The prompt's tokens into *ids (room for the generated ones after them); settles ctx and steps.
 * Returns the number of prompt tokens, or -1 after saying why. */
static int encode_prompt(const bb_tokenizer *tok, const bb_tf_dims *d, gen_args *a, int **ids)
{
    char err[BB_ERR_MAX];
    size_t cap = (size_t)bb_tokenizer_cap(strlen(a->prompt));
    *ids = malloc(sizeof(int) * (cap + 1 + (size_t)a->steps));
    int np = *ids ? bb_tokenizer_encode(tok, a->prompt, *ids, (int)cap, err, sizeof err) : -1;
    if (np < 0) {
        fprintf(stderr, "bitbench generate: %s\n", *ids ? err : "out of memory");
        return -1;
    }
    if (np == 0) {
        fprintf(stderr, "bitbench generate: the prompt is empty and the tokenizer adds no BOS: give --prompt\n");
        return -1;
    }
    if (!a->ctx) a->ctx = a->steps > d->seq_len ? a->steps : d->seq_len;
    if (a->steps > a->ctx) a->steps = a->ctx;
    if (np > a->steps) {
        fprintf(stderr, "bitbench generate: the prompt is %d tokens but --steps / the context (%d) allow %d\n", np,
                a->ctx, a->steps);
        return -1;
    }
    return np;
}

/* Echo the prompt, then sample and print tokens as run.c does: positions 0 .. steps-1 are run and
 * a token is chosen after each of them; the speed on stderr. */
static void generate(bb_transformer *tf, bb_pool *pool, const bb_tokenizer *tok, const bb_tf_dims *d,
                     const gen_args *a, int *ids, int np)
{
    bb_sampler sampler;
    bb_sampler_init(&sampler, (float)a->temperature, a->top_k, a->seed);
    for (int i = ids[0] == bb_tokenizer_bos(tok); i < np; i++) /* the prompt, without BOS */
        fputs(bb_tokenizer_decode(tok, i ? ids[i - 1] : -1, ids[i]), stdout);
    fflush(stdout);
    double t0 = bb_now();
    float *logits = (float *)bb_tf_forward(tf, pool, ids, np, 0, NULL);
    double t1 = bb_now();
    int n = np;
    while (n - 1 < a->steps) {
        int next = bb_sample(&sampler, logits, d->vocab_size);
        if (bb_tokenizer_is_eog(tok, next)) break;
        fputs(bb_tokenizer_decode(tok, ids[n - 1], next), stdout);
        fflush(stdout);
        ids[n++] = next;
        if (n - 1 < a->steps) logits = (float *)bb_tf_forward(tf, pool, &next, 1, n - 1, NULL);
    }
    double t2 = bb_now();
    printf("\n");
    fflush(stdout); /* the text's last line before the statistics, also when both go to one file */
    fprintf(stderr, "prompt %d tokens in %.3f ms (%.1f tok/s); generated %d tokens in %.3f ms (%.1f tok/s); kernel %s\n",
            np, (t1 - t0) * 1e3, np / (t1 - t0), n - np, (t2 - t1) * 1e3, (n - np) / (t2 - t1 > 0 ? t2 - t1 : 1e-9),
            a->opt.kernel);
}

int bb_cmd_generate(int argc, char **argv)
{
    bb_machine mach;
    bb_machine_detect(&mach);
    gen_args a = {.prompt = "", .opt = {.kernel = NULL, .out_kernel = NULL}, .steps = 256, .top_k = 40,
                  .threads = 1, .seed = 42};
    int rc = parse_args(argc, argv, &mach, &a);
    if (rc >= 0) return rc;
    char err[BB_ERR_MAX];
    bb_model_source *ck = bb_model_source_open(a.model, NULL, err, sizeof err);
    if (!ck) {
        fprintf(stderr, "bitbench generate: %s\n", err);
        return 1;
    }
    const bb_tf_dims *d = bb_model_source_dims(ck);
    rc = 1;
    bb_tokenizer *tok = bb_model_source_tokenizer(ck, a.tokpath, err, sizeof err);
    bb_transformer *tf = NULL;
    bb_pool *pool = NULL;
    int *ids = NULL, np;
    if (!tok) {
        fprintf(stderr, "bitbench generate: %s\n", err);
        goto done;
    }
    if (bb_tokenizer_vocab_size(tok) > d->vocab_size) {
        fprintf(stderr, "bitbench generate: the tokenizer has %d tokens but the model's vocabulary only %d\n",
                bb_tokenizer_vocab_size(tok), d->vocab_size);
        goto done;
    }
    if ((np = encode_prompt(tok, d, &a, &ids)) < 0) goto done;
    char warn[512];
    bb_kernel_choice kc;
    if (bb_kernel_choose(ck, d, a.opt.kernel, a.opt.out_kernel, a.keep_layout, &kc, err, sizeof err)) {
        fprintf(stderr, "bitbench generate: %s\n", err);
        goto done;
    }
    if (kc.note[0]) fprintf(stderr, "bitbench: %s\n", kc.note);
    kc.opt.kv_k = a.opt.kv_k;
    kc.opt.kv_v = a.opt.kv_v;
    kc.opt.max_batch = a.opt.max_batch;
    tf = bb_model_source_build(ck, a.ctx, &kc.opt, warn, sizeof warn, err, sizeof err);
    a.opt.kernel = kc.opt.kernel; /* the name the statistics line gives */
    bb_kernel_choice_free(&kc);
    if (!tf) {
        fprintf(stderr, "bitbench generate: %s\n", err);
        goto done;
    }
    if (warn[0]) fprintf(stderr, "bitbench generate: warning: %s\n", warn);
    if (!(pool = bb_pool_create(a.threads, err, sizeof err))) {
        fprintf(stderr, "bitbench generate: %s\n", err);
        goto done;
    }
    generate(tf, pool, tok, d, &a, ids, np);
    rc = 0;
done:
    free(ids);
    bb_pool_destroy(pool);
    bb_tf_free(tf);
    bb_tokenizer_free(tok);
    bb_model_source_close(ck);
    return rc;
}
