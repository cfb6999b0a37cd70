/* A GGUF file's Q8_0, Q4_0, IQ4_NL, Q2_K, TQ1_0 and TQ2_0 tensors run by default in the
 * interleaved layout of their own blocks (models/kernel_choice.h: q8_0_x16, q4_0x8, iq4_nl_x8,
 * q2_k_x16, tq1_0_x16, tq2_0_x16, the Arm paper's §4.1.1 SIMD-aware packing, as llama.cpp's
 * CPU_REPACK buffers do),
 * bits unchanged:
 *   - which tensors move: those whose rows fill the layout's row groups (stories260K-q4_0's
 *     attn_*, not its ffn_gate/ffn_up of 172 rows; every matrix of the tiny BitNet TQ1_0 and
 *     TQ2_0; an exported Q2_K model's attention but not its 520-row FFN; a Q8_0 or Q4_0
 *     classifier), the
 *     one stderr line that says so, what the engine's conversions record, and `--no-repack`
 *     (keep_layout), which keeps every stored layout and names the run as-stored-no-repack;
 *   - the numbers: the rearranged model's logits (decode, N = 1, and a prefill, N = 20) are bit
 *     for bit those of the same model with each moved tensor through its stored kernel's scalar
 *     reference (the layouts' variants all give that reference's bits), and for TQ1_0, whose
 *     stored kernel's SIMD variants give it too and whose classifier is F16, bit for bit those of
 *     the --no-repack run.  Q8_0's, Q4_0's and IQ4_NL's stored SIMD variants sum float lanes in an
 *     order of their own (kernels/mad/q8_0.h, q4_0.h, codebook/iq4_nl.h): there, and in every
 *     model with a Q8_0 classifier, the --no-repack logits agree within float rounding only, and
 *     the difference is printed; so do TQ2_0's (tq2_0@avx512, kernels/mad/tq2_0.h).
 * Where this CPU has no SIMD variant of a layout (bb_kernel_fast_layout is NULL) the default keeps
 * the stored layout, and that is what is checked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "models/gguf.h"
#include "models/gguf_export.h"
#include "models/gguf_write.h"
#include "models/kernel_choice.h"
#include "models/model_load.h"
#include "models/synthetic.h"
#include "support/pool.h"

static char shared[1024];
static bb_pool *pool;

enum { WQ = 0, WK, WV, WO, W1, W3, W2 }; /* tensor_kernels order (kernel_choice.c) */
#define SEQ 32
#define DECODE 6
#define PREFILL 20

/* The logits of DECODE tokens fed one at a time, then of the last of PREFILL tokens in one
 * prefill, into out ((DECODE + 1) * vocab floats). */
static void logits(bb_transformer *tf, float *out)
{
    int vocab = bb_tf_get_dims(tf)->vocab_size;
    int ids[PREFILL];
    for (int i = 0; i < PREFILL; i++) ids[i] = (1 + 37 * i) % vocab;
    for (int i = 0; i < DECODE; i++)
        memcpy(out + (size_t)i * vocab, bb_tf_forward(tf, pool, &ids[i], 1, i, NULL), sizeof(float) * vocab);
    memcpy(out + (size_t)DECODE * vocab, bb_tf_forward(tf, pool, ids, PREFILL, 0, NULL), sizeof(float) * vocab);
}

typedef struct {
    bb_model_source *src;
    bb_tf_dims d;
    bb_kernel_choice kc;
    bb_transformer *tf;
    float *logits;
} run;

/* The model at path with kernel_choice's default (keep = false) or --no-repack; when scalar_ref,
 * every tensor the default moves goes instead through its stored kernel's scalar reference. */
static int open_run(const char *path, bool keep, bool scalar_ref, run *r)
{
    char err[1024], warn[256];
    memset(r, 0, sizeof *r);
    r->src = bb_model_source_open(path, NULL, err, sizeof err);
    CHECK(r->src != NULL, "%s", err);
    if (!r->src) return -1;
    CHECK(bb_model_source_run_dims(r->src, SEQ, &r->d, warn, sizeof warn, err, sizeof err) == 0, "%s", err);
    CHECK(bb_kernel_choose(r->src, &r->d, NULL, NULL, keep, &r->kc, err, sizeof err) == 0, "%s", err);
    if (!r->kc.tensor_kernels) return -1;
    size_t n = (size_t)r->d.n_layers * BB_TF_LINEARS;
    const char **tk = r->kc.tensor_kernels;
    static char names[2][40];
    if (scalar_ref) {
        /* kernel_choice's own choice with keep_layout: the stored kernel of each tensor */
        bb_kernel_choice stored;
        CHECK(bb_kernel_choose(r->src, &r->d, NULL, NULL, true, &stored, err, sizeof err) == 0, "%s", err);
        for (size_t i = 0; i < n; i++)
            if (strcmp(tk[i], stored.tensor_kernels[i])) {
                snprintf(names[0], sizeof names[0], "%s@scalar", stored.tensor_kernels[i]);
                tk[i] = names[0]; /* one stored type per file here */
            }
        if (strcmp(r->kc.opt.out_kernel, stored.opt.out_kernel)) {
            snprintf(names[1], sizeof names[1], "%s@scalar", stored.opt.out_kernel);
            r->kc.opt.out_kernel = names[1];
        }
        bb_kernel_choice_free(&stored);
    }
    r->kc.opt.max_batch = PREFILL;
    r->tf = bb_model_source_build(r->src, SEQ, &r->kc.opt, warn, sizeof warn, err, sizeof err);
    CHECK(r->tf != NULL, "%s: %s", path, err);
    if (!r->tf) return -1;
    r->logits = malloc(sizeof(float) * (DECODE + 1) * (size_t)r->d.vocab_size);
    logits(r->tf, r->logits);
    return 0;
}

static void close_run(run *r)
{
    bb_tf_free(r->tf);
    bb_kernel_choice_free(&r->kc);
    if (r->src) bb_model_source_close(r->src);
    free(r->logits);
}

static double max_diff(const run *a, const run *b)
{
    double worst = 0;
    for (size_t i = 0; i < (DECODE + 1) * (size_t)a->d.vocab_size; i++) {
        double d = fabs((double)a->logits[i] - b->logits[i]);
        if (!(d <= worst)) worst = d;
    }
    return worst;
}

/* One file: `moved` and `kept` list tensor kinds (WQ..W2, -1 ends) that the default must and
 * must not move; `note` is the stderr line's rearranging part; exact: --no-repack gives the same
 * bits too (the stored kernel's SIMD variants keep its reference's order). */
static void check_file(const char *path, const char *type, const int *moved, const int *kept, const char *note,
                       const char *conv, bool exact)
{
    const char *fast = bb_kernel_fast_layout(type), *own = bb_kernel_for_ggml_type(type);
    run def, keep, ref;
    if (open_run(path, false, false, &def) || open_run(path, true, false, &keep) || open_run(path, false, true, &ref)) {
        CHECK(0, "%s did not build", path);
        return;
    }
    int nl = def.d.n_layers;
    for (const int *k = moved; *k >= 0; k++)
        for (int l = 0; l < nl; l++) {
            const char *got = def.kc.tensor_kernels[(size_t)l * BB_TF_LINEARS + *k];
            CHECK(!strcmp(got, fast ? fast : own), "%s: tensor %d of layer %d through %s, not %s", path, *k, l, got,
                  fast ? fast : own);
        }
    for (const int *k = kept; *k >= 0; k++)
        CHECK(strcmp(def.kc.tensor_kernels[*k], fast ? fast : "-"), "%s: tensor %d moved to %s", path, *k,
              def.kc.tensor_kernels[*k]);
    for (size_t i = 0; i < (size_t)nl * BB_TF_LINEARS; i++)
        CHECK(!fast || !strstr(keep.kc.tensor_kernels[i], fast), "%s --no-repack: tensor %zu through %s", path, i,
              keep.kc.tensor_kernels[i]);
    CHECK(!strcmp(def.kc.opt.kernel, "as-stored") && !strcmp(keep.kc.opt.kernel, "as-stored-no-repack"),
          "%s: runs named %s and %s", path, def.kc.opt.kernel, keep.kc.opt.kernel);
    CHECK(keep.kc.rearranged == 0 && !strstr(keep.kc.note, "rearrange"), "%s --no-repack: note '%s'", path,
          keep.kc.note);
    if (fast) {
        CHECK(strstr(def.kc.note, note) != NULL, "%s: note '%s' lacks '%s'", path, def.kc.note, note);
        CHECK(strstr(bb_tf_conversions(def.tf), conv) != NULL, "%s: conversions lack '%s':\n%s", path, conv,
              bb_tf_conversions(def.tf));
    } else {
        CHECK(def.kc.rearranged == 0, "%s: %d tensors moved with no SIMD layout here", path, def.kc.rearranged);
        printf("%s: no SIMD variant of %s's fast layout on this CPU: stored layout kept\n", path, type);
    }
    size_t bytes = sizeof(float) * (DECODE + 1) * (size_t)def.d.vocab_size;
    CHECK(memcmp(def.logits, ref.logits, bytes) == 0,
          "%s: the rearranged model's logits differ from the stored kernel's reference (max %.3g)", path,
          max_diff(&def, &ref));
    if (exact)
        CHECK(memcmp(def.logits, keep.logits, bytes) == 0, "%s: logits differ from --no-repack's (max %.3g)", path,
              max_diff(&def, &keep));
    printf("%s: %d %s tensors rearranged%s%s; logits equal to the stored kernel's reference bit for bit; "
           "max |logit difference| against --no-repack %.3g\n  %s\n", path, def.kc.rearranged, type,
           fast ? " for " : "", fast ? fast : "", max_diff(&def, &keep), def.kc.note);
    close_run(&def);
    close_run(&keep);
    close_run(&ref);
}

/* A synthetic llama model exported to type (models/gguf_export.h) at path, its FFN hidden rows. */
static void export_model(const char *path, const char *type, int hidden)
{
    /* at 520 the FFN's rows are a multiple of 8, not of 16: iq4_nl_x8 takes them, q2_k_x16 not; its
     * 520 columns no 256-block divides (ffn_down stays F32 for Q2_K, F32 for IQ4_NL too: 520 % 32) */
    const bb_tf_dims d = {.dim = 256, .hidden_dim = hidden, .n_layers = 2, .n_heads = 4, .n_kv_heads = 2,
                          .vocab_size = 272, .seq_len = 64, .style = BB_STYLE_LLAMA, .ffn_act = BB_FFN_SILU};
    bb_synthetic syn = {.dims = d, .seed = 11};
    bb_weight_source src = bb_synthetic_source(&syn);
    bb_gguf_export_options opt = {.type = type, .name = "repack"};
    bb_gguf_export_report rep;
    char err[1024];
    CHECK(bb_gguf_export(path, &d, &src, &opt, &rep, err, sizeof err) == 0, "%s", err);
}

/* stories260K-q4_0.gguf with its Q8_0 classifier replaced by a Q4_0 copy of the token embedding
 * (same shape): a classifier the default rearranges. */
static int q4_0_classifier_copy(const char *from, const char *to)
{
    char err[1024];
    bb_gguf *g = bb_gguf_open(from, err, sizeof err);
    CHECK(g != NULL, "%s", err);
    if (!g) return -1;
    bb_gguf_writer *w = bb_gguf_writer_create(to, err, sizeof err);
    CHECK(w != NULL, "%s", err);
    if (!w) {
        bb_gguf_close(g);
        return -1;
    }
    const bb_gguf_tensor *emb = bb_gguf_find_tensor(g, "token_embd.weight");
    for (uint64_t i = 0; i < bb_gguf_kv_count(g); i++) bb_gguf_copy_kv(w, bb_gguf_kv_at(g, i));
    for (uint64_t i = 0; i < bb_gguf_tensor_count(g); i++) {
        const bb_gguf_tensor *t = bb_gguf_tensor_at(g, i);
        bool cls = !strcmp(t->name, "output.weight");
        bb_gguf_add_tensor(w, t->name, cls ? emb->type : t->type, t->n_dims, t->ne);
    }
    for (uint64_t i = 0; i < bb_gguf_tensor_count(g); i++) {
        const bb_gguf_tensor *t = bb_gguf_tensor_at(g, i);
        if (!strcmp(t->name, "output.weight")) t = emb;
        bb_gguf_write_data(w, t->data, t->n_bytes);
    }
    int rc = bb_gguf_writer_finish(w, err, sizeof err);
    CHECK(rc == 0, "%s", err);
    bb_gguf_close(g);
    return rc;
}

int main(void)
{
    shared_dir(shared, sizeof shared);
    char err[256], path[1200], tmp[256];
    pool = bb_pool_create(2, err, sizeof err);
    CHECK(pool != NULL, "%s", err);
    if (!pool) return check_summary("repack_default");

    /* stories260K-q4_0: attn_* (64 and 32 rows) move, ffn_gate/ffn_up (172 rows) and the F32
     * ffn_down do not; the Q8_0 classifier (512 rows) moves into q8_0_x16 */
    snprintf(path, sizeof path, "%s/golden/gguf/stories260K/stories260K-q4_0.gguf", shared);
    check_file(path, "Q4_0", (const int[]){WQ, WK, WV, WO, -1}, (const int[]){W1, W3, W2, -1},
               "rearranges 20 tensors at load into a faster layout, bits unchanged: 20 Q4_0 (attn_q, attn_k, attn_v, "
               "attn_output) for q4_0x8 (--no-repack keeps the stored layout); the classifier (output) stays Q8_0, "
               "its blocks rearranged for q8_0_x16 (--out-kernel to change it)",
               "classifier: Q8_0 blocks rearranged (not requantized) for q8_0_x16", false);

    /* the tiny BitNet TQ1_0: every matrix (256, 128 and 768 rows) */
    snprintf(path, sizeof path, "%s/golden/gguf/bitnet/tiny-bitnet-tq1_0-embf16.gguf", shared);
    check_file(path, "TQ1_0", (const int[]){WQ, WK, WV, WO, W1, W3, W2, -1}, (const int[]){-1},
               "rearranges 14 tensors at load into a faster layout, bits unchanged: 14 TQ1_0 (attn_q, attn_k, attn_v, "
               "attn_output, ffn_gate, ffn_up, ffn_down) for tq1_0_x16",
               "w2: TQ1_0 blocks rearranged (not requantized) for tq1_0_x16", true);

    /* the tiny BitNet TQ2_0 likewise; tq2_0@avx512 sums float lanes of its own order (tq2_0.h),
     * so --no-repack agrees within float rounding there */
    snprintf(path, sizeof path, "%s/golden/gguf/bitnet/tiny-bitnet-tq2_0-embf16.gguf", shared);
    check_file(path, "TQ2_0", (const int[]){WQ, WK, WV, WO, W1, W3, W2, -1}, (const int[]){-1},
               "rearranges 14 tensors at load into a faster layout, bits unchanged: 14 TQ2_0 (attn_q, attn_k, attn_v, "
               "attn_output, ffn_gate, ffn_up, ffn_down) for tq2_0_x16",
               "w2: TQ2_0 blocks rearranged (not requantized) for tq2_0_x16", false);

    /* exported Q2_K and IQ4_NL models (their classifiers Q8_0: --no-repack's q8_0 rounds in its
     * own order, so only the reference's bits are checked) */
    snprintf(tmp, sizeof tmp, "/tmp/bb_test_repack_%ld_q2_k.gguf", (long)getpid());
    export_model(tmp, "q2_k", 520);
    check_file(tmp, "Q2_K", (const int[]){WQ, WK, WV, WO, -1}, (const int[]){W1, W3, W2, -1},
               "rearranges 8 tensors at load into a faster layout, bits unchanged: 8 Q2_K (attn_q, attn_k, attn_v, "
               "attn_output) for q2_k_x16", "wk: Q2_K blocks rearranged (not requantized) for q2_k_x16", false);
    remove(tmp);
    snprintf(tmp, sizeof tmp, "/tmp/bb_test_repack_%ld_iq4_nl.gguf", (long)getpid());
    export_model(tmp, "iq4_nl", 520);
    check_file(tmp, "IQ4_NL", (const int[]){WQ, WK, WV, WO, W1, W3, -1}, (const int[]){W2, -1},
               "rearranges 12 tensors at load into a faster layout, bits unchanged: 12 IQ4_NL (attn_q, attn_k, attn_v, "
               "attn_output, ffn_gate, ffn_up) for iq4_nl_x8", "w1: IQ4_NL blocks rearranged (not requantized) for iq4_nl_x8",
               false);
    remove(tmp);

    /* --kernel q4_0 on a file whose linear tensors are all Q4_0 uses each as stored, and the note
     * says so beside what becomes of its Q8_0 classifier (rearranged for q8_0_x16 where this CPU
     * has its SIMD code) */
    snprintf(tmp, sizeof tmp, "/tmp/bb_test_repack_%ld_q4_0.gguf", (long)getpid());
    export_model(tmp, "q4_0", 512);
    bb_model_source *src = bb_model_source_open(tmp, NULL, err, sizeof err);
    CHECK(src != NULL, "%s", err);
    if (src) {
        bb_tf_dims d;
        bb_kernel_choice kc;
        char warn[256];
        const char *fast = bb_kernel_fast_layout("Q8_0");
        char want[256];
        snprintf(want, sizeof want,
                 "--kernel q4_0 uses every linear tensor as stored; the classifier (output) stays Q8_0%s%s (--out-kernel "
                 "to change it)", fast ? ", its blocks rearranged for " : "", fast ? fast : "");
        int dims_ok = bb_model_source_run_dims(src, SEQ, &d, warn, sizeof warn, err, sizeof err) == 0;
        CHECK(dims_ok, "%s", err);
        if (dims_ok) {
            int chose = bb_kernel_choose(src, &d, "q4_0", NULL, false, &kc, err, sizeof err) == 0;
            CHECK(chose, "%s", err);
            if (chose) {
                CHECK(!strcmp(kc.note, want) && kc.requantized == 0, "--kernel q4_0: note '%s', want '%s'", kc.note,
                      want);
                bb_kernel_choice_free(&kc);
            }
        }
        bb_model_source_close(src);
    }
    remove(tmp);

    /* a Q4_0 classifier (512 rows) moves too, and says so */
    snprintf(path, sizeof path, "%s/golden/gguf/stories260K/stories260K-q4_0.gguf", shared);
    snprintf(tmp, sizeof tmp, "/tmp/bb_test_repack_%ld_cls.gguf", (long)getpid());
    if (q4_0_classifier_copy(path, tmp) == 0) {
        const char *fast = bb_kernel_fast_layout("Q4_0");
        run def;
        if (open_run(tmp, false, false, &def) == 0) {
            CHECK(!strcmp(def.kc.opt.out_kernel, fast ? fast : "q4_0"), "classifier through %s", def.kc.opt.out_kernel);
            if (fast)
                CHECK(strstr(def.kc.note, "the classifier (output) stays Q4_0, its blocks rearranged for q4_0x8") &&
                          strstr(bb_tf_conversions(def.tf), "classifier: Q4_0 blocks rearranged (not requantized) for q4_0x8"),
                      "note '%s', conversions:\n%s", def.kc.note, bb_tf_conversions(def.tf));
        }
        close_run(&def);
        check_file(tmp, "Q4_0", (const int[]){WQ, WK, WV, WO, -1}, (const int[]){W1, W3, W2, -1},
                   "for q4_0x8 (--no-repack keeps the stored layout); the classifier (output) stays Q4_0, its blocks "
                   "rearranged for q4_0x8 (--out-kernel to change it)",
                   "classifier: Q4_0 blocks rearranged (not requantized) for q4_0x8", false);
    }
    remove(tmp);
    bb_pool_destroy(pool);
    return check_summary("repack_default");
}
