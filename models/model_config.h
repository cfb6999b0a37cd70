/* Model configurations: the dimensions of a transformer, read from models/<name>.lua, and the
 * projection shapes derived from them.
 *
 * A config file is a Lua chunk that returns one table (dimensions only, no weights):
 *
 *   return {
 *     name = "llama-2-7b",            -- must equal the file name without .lua
 *     style = "llama",                -- "llama" or "bitnet" (BitNet b1.58: ternary BitLinear
 *                                     --  layers with extra sub-norms before Wo and W_down)
 *     dim = 4096,                     -- model width (hidden size)
 *     ffn_dim = 11008,                -- FFN inner width (intermediate size)
 *     n_layers = 32, n_heads = 32, n_kv_heads = 32,
 *     head_dim = 128,                 -- optional; default dim / n_heads
 *     vocab_size = 32000,
 *     ffn_act = "silu",               -- "silu" (SwiGLU) or "relu2" (squared-ReLU gate)
 *     tied_embedding = false,         -- classifier shares the token embedding
 *     source = "where the numbers come from",
 *   }
 *
 * Shapes follow the kernel interface: a projection y = W x has W of M rows (outputs) and K
 * columns (inputs).  Per layer, with q_dim = n_heads*head_dim and kv_dim = n_kv_heads*head_dim:
 *   q (q_dim, dim)  k (kv_dim, dim)  v (kv_dim, dim)  o (dim, q_dim)
 *   gate (ffn_dim, dim)  up (ffn_dim, dim)  down (dim, ffn_dim)
 * Identical (M, K) pairs are merged: "q+o" when q_dim == dim, "k+v", "gate+up".
 */
#ifndef BB_MODEL_CONFIG_H
#define BB_MODEL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { BB_MODEL_LLAMA = 0, BB_MODEL_BITNET } bb_model_style;
typedef enum { BB_MODEL_FFN_SILU = 0, BB_MODEL_FFN_RELU2 } bb_model_ffn_act;

typedef struct {
    char name[64];
    bb_model_style style;
    int dim, ffn_dim, n_layers, n_heads, n_kv_heads, head_dim, vocab_size;
    bb_model_ffn_act ffn_act;
    bool tied_embedding;
    char source[256];
    /* A model file (GGUF or llama2.c, model_load.h) whose weights runs use; "" for a config,
     * whose runs use synthetic weights. */
    char path[512];
} bb_model_config;

/* One distinct projection shape of a model. */
typedef struct {
    int m, k;
    char roles[24];  /* "q+o", "k+v", "gate+up", "down", ... */
    int per_layer;   /* how many of the layer's matrices have this shape */
} bb_model_shape;

#define BB_MODEL_MAX_SHAPES 7

/* Where model configs live: $BITBENCH_MODELS, else the source tree's models/ directory. */
const char *bb_model_dir(void);

/* Model names (sorted), from the *.lua files in bb_model_dir().  Returns the count (0 when the
 * directory is unreadable); *names is malloc'd, free with bb_model_names_free. */
int bb_model_names(char ***names);
void bb_model_names_free(char **names, int count);

/* Load and check the config of a named model.  Returns 0, or -1 with one line in err: an
 * unknown name lists the valid ones; a bad file names the file, the line or field, and what is
 * valid. */
int bb_model_load(const char *name, bb_model_config *cfg, char *err, size_t errlen);
/* The same for an explicit file path. */
int bb_model_load_file(const char *path, bb_model_config *cfg, char *err, size_t errlen);

/* Check a config's dimensions (positive, heads divide, ...).  Returns 0 or -1 with err. */
int bb_model_check(const bb_model_config *cfg, char *err, size_t errlen);

/* The distinct projection shapes, in layer order (q, k, v, o, gate, up, down); returns count. */
int bb_model_shapes(const bb_model_config *cfg, bb_model_shape shapes[BB_MODEL_MAX_SHAPES]);

/* Parameters: every projection, norm (BitNet sub-norms included), the embedding and the
 * classifier unless tied. */
uint64_t bb_model_param_count(const bb_model_config *cfg);

const char *bb_model_style_name(bb_model_style s);
const char *bb_model_ffn_act_name(bb_model_ffn_act a);

#endif
