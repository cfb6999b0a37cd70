/* Model configs: every config in models/ loads, its parameter count matches the published size, its
 * projection shapes are derived and merged as documented, and a broken config is refused with
 * the file, the field or line, and what is valid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "models/model_config.h"

static void expect_params(const char *name, double billions, double tolerance)
{
    bb_model_config c;
    char err[2048];
    if (bb_model_load(name, &c, err, sizeof err)) {
        CHECK(0, "%s: %s", name, err);
        return;
    }
    double p = (double)bb_model_param_count(&c) / 1e9;
    CHECK(p > billions * (1 - tolerance) && p < billions * (1 + tolerance), "%s: %.4fB parameters, published %.2fB",
          name, p, billions);
}

static void test_all_load(void)
{
    char **names;
    int n = bb_model_names(&names);
    CHECK(n >= 21, "at least the 21 paper models, found %d in %s", n, bb_model_dir());
    for (int i = 0; i < n; i++) {
        bb_model_config c;
        char err[2048];
        int rc = bb_model_load(names[i], &c, err, sizeof err);
        CHECK(rc == 0, "%s", err);
        if (rc) continue;
        CHECK(!strcmp(c.name, names[i]), "name %s = file %s", c.name, names[i]);
        CHECK(c.source[0], "%s names its source", c.name);
        bb_model_shape sh[BB_MODEL_MAX_SHAPES];
        int ns = bb_model_shapes(&c, sh), per_layer = 0;
        for (int j = 0; j < ns; j++) per_layer += sh[j].per_layer;
        CHECK(ns >= 3 && ns <= 7 && per_layer == 7, "%s: %d shapes covering %d matrices", c.name, ns, per_layer);
    }
    bb_model_names_free(names, n);
}

static void test_published_sizes(void)
{
    expect_params("llama-2-7b", 6.74, 0.005);
    expect_params("llama-2-13b", 13.02, 0.005);
    expect_params("llama-3-8b", 8.03, 0.005);
    expect_params("llama-3.2-1b", 1.236, 0.005);
    expect_params("llama-3.2-3b", 3.213, 0.005);
    expect_params("bitnet-b1.58-2b4t", 2.41, 0.01);
    expect_params("mobilellm-1.5b", 1.51, 0.01);
    expect_params("bitnet-b1.58-large", 0.73, 0.02); /* "700M" */
}

static void test_shapes(void)
{
    bb_model_config c;
    char err[2048];
    bb_model_shape s[BB_MODEL_MAX_SHAPES];
    CHECK(bb_model_load("bitnet-b1.58-2b4t", &c, err, sizeof err) == 0, "%s", err);
    CHECK(c.style == BB_MODEL_BITNET && c.ffn_act == BB_MODEL_FFN_RELU2 && c.tied_embedding && c.head_dim == 128,
          "2b4t style, activation, tied, head_dim");
    int n = bb_model_shapes(&c, s);
    CHECK(n == 4, "2b4t: 4 distinct shapes, got %d", n);
    CHECK(s[0].m == 2560 && s[0].k == 2560 && !strcmp(s[0].roles, "q+o") && s[0].per_layer == 2, "q+o");
    CHECK(s[1].m == 640 && s[1].k == 2560 && !strcmp(s[1].roles, "k+v"), "k+v (5 KV heads of 128)");
    CHECK(s[2].m == 6912 && s[2].k == 2560 && !strcmp(s[2].roles, "gate+up"), "gate+up");
    CHECK(s[3].m == 2560 && s[3].k == 6912 && !strcmp(s[3].roles, "down") && s[3].per_layer == 1, "down");

    CHECK(bb_model_load("falcon3-1b", &c, err, sizeof err) == 0, "%s", err);
    n = bb_model_shapes(&c, s);
    CHECK(c.head_dim == 256 && n == 4 && s[0].m == 2048 && s[1].m == 1024 && s[1].k == 2048,
          "falcon3-1b: head_dim 256, q 2048x2048, k+v 1024x2048");

    CHECK(bb_model_load("llama-2-7b", &c, err, sizeof err) == 0, "%s", err);
    n = bb_model_shapes(&c, s);
    CHECK(n == 3 && !strcmp(s[0].roles, "q+k+v+o") && s[0].per_layer == 4, "MHA: q, k, v, o share one shape");

    CHECK(bb_model_load("bitnet-dummy-100b", &c, err, sizeof err) == 0, "%s", err);
    CHECK(c.dim == 8192 && c.ffn_dim == 45568 && c.n_layers == 72 && c.n_heads == 64 && c.vocab_size == 32002,
          "bitnet.cpp 100B preset");
}

static void expect_bad(const char *dir, const char *text, const char *frag)
{
    char path[512], err[2048];
    snprintf(path, sizeof path, "%s/bad.lua", dir);
    write_text(path, text);
    bb_model_config c;
    int rc = bb_model_load_file(path, &c, err, sizeof err);
    CHECK(rc == -1 && strstr(err, frag) && strstr(err, "bad.lua"), "wanted \"%s\", got: %s", frag,
          rc ? err : "(loaded)");
}

#define GOOD_TAIL "n_layers = 2, n_heads = 4, n_kv_heads = 2, vocab_size = 100, source = 'test' }\n"

static void test_errors(void)
{
    char dir[] = "/tmp/bb_models_XXXXXX";
    if (!mkdtemp(dir)) return;
    expect_bad(dir, "return { name = 'x', style = 'llama', dim = 64, ffn_dim = 128,\n n_layers = = 2 }\n", "bad.lua:2:");
    expect_bad(dir, "return 42\n", "a model config must return a table, got number 42");
    expect_bad(dir, "return { name = 'x', style = 'llama', dim = 64, ffn_dim = 128, " GOOD_TAIL "x = 1\n",
               "bad.lua:2:"); /* a statement after return is a syntax error */
    expect_bad(dir, "return { name = 'x', style = 'gpt', dim = 64, ffn_dim = 128, " GOOD_TAIL,
               "field 'style': 'gpt' is not valid; valid: llama, bitnet");
    expect_bad(dir, "return { name = 'x', style = 'llama', dim = '64', ffn_dim = 128, " GOOD_TAIL,
               "field 'dim' must be an integer in 1..16777216, got string \"64\"");
    expect_bad(dir, "return { name = 'x', style = 'llama', ffn_dim = 128, " GOOD_TAIL, "missing field 'dim'");
    expect_bad(dir, "return { name = 'x', style = 'llama', dim = 64, ffn_dim = 128, layers = 2, " GOOD_TAIL,
               "unknown field 'layers' (did you mean 'n_layers'?)");
    expect_bad(dir, "return { name = 'x', style = 'llama', dim = 64, ffn_dim = 128, n_layers = 2, n_heads = 4,\n"
                    " n_kv_heads = 3, vocab_size = 100, source = 't' }\n",
               "n_heads (4) must be a multiple of n_kv_heads (3)");
    expect_bad(dir, "return { name = 'x', style = 'llama', dim = 64, ffn_dim = 128, ffn_act = 'gelu', " GOOD_TAIL,
               "field 'ffn_act': 'gelu' is not valid; valid: silu, relu2");
    expect_bad(dir, "return { name = 'x', dim = 64, ffn_dim = 128, " GOOD_TAIL, "missing field 'style'");

    /* by name: the file name and the name field must agree; unknown names list the valid ones */
    char path[600], err[2048];
    snprintf(path, sizeof path, "%s/tiny.lua", dir);
    write_text(path, "return { name = 'other', style = 'llama', dim = 64, ffn_dim = 128, " GOOD_TAIL);
    setenv("BITBENCH_MODELS", dir, 1);
    bb_model_config c;
    CHECK(bb_model_load("tiny", &c, err, sizeof err) == -1 && strstr(err, "field 'name' is 'other' but the file is tiny.lua"),
          "name mismatch: %s", err);
    CHECK(bb_model_load("tinny", &c, err, sizeof err) == -1 && strstr(err, "unknown model 'tinny'") &&
              strstr(err, "did you mean 'tiny'?") && strstr(err, "valid models: bad, tiny"),
          "unknown name: %s", err);
    unsetenv("BITBENCH_MODELS");
    remove_tree(dir);
}

int main(void)
{
    test_all_load();
    test_published_sizes();
    test_shapes();
    test_errors();
    return check_summary("test_model_config");
}
