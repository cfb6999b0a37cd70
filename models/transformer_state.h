/* The engine's state, shared by its two halves (not a public interface): transformer_build.c
 * checks the shapes, sizes the memory, packs or copies every weight and records what became of
 * it; transformer.c runs the forward pass.  transformer.h is the interface. */
#ifndef BB_TRANSFORMER_STATE_H
#define BB_TRANSFORMER_STATE_H

#include <stddef.h>

#include "transformer.h"
#include "vec.h"

struct linear_group; /* transformer.c: linear layers that read one input, run as one pool job */

/* Sizes in comments: nb = max_batch, dq = n_heads * head_dim, kv = n_kv_heads * head_dim,
 * widest = max(dim, dq, hidden_dim) (widest_of), kpad = the widest padded K, mpad = the largest
 * padded M. */
struct bb_transformer {
    bb_tf_dims d;
    bb_tf_options opt;
    const bb_vec_ops *vec; /* the non-matmul arithmetic: scalar, AVX2 or AVX-512, chosen from CPUID */
    float *tok_emb;        /* (vocab, dim) for the embedding lookup; NULL when read from the classifier */
    float *rms_final;      /* (dim,) */
    bb_linear cls;         /* (vocab, dim) */
    bb_tf_layer *layers;   /* (n_layers,) */
    /* Every packed weight tensor, in the order a decode step reads them, on one allocation
     * advised for huge pages (see arena_piece). */
    void *weight_arena;
    /* (n_layers, n_kv_heads, seq_len, head_dim) in opt.kv_k / opt.kv_v rows (models/kv_type.h, row
     * bytes k_row / v_row): one head's positions are one
     * contiguous run, which decode attention streams through (a [seq][kv_dim] layout puts each
     * head's rows a kv_dim apart, a page or more, where the hardware prefetcher does not follow) */
    void *key_cache, *value_cache;
    size_t k_row, v_row;
    int max_batch;
    /* activations for up to max_batch tokens (allocated from buffer_table) */
    float *x;        /* (nb, dim) the residual stream */
    float *xb;       /* (nb, widest) a block's normed input; a matmul's output */
    float *xb2;      /* (nb, widest) the attention output, wo's input */
    float *q;        /* (nb, dq) */
    float *k, *v;    /* (nb, kv) */
    float *hb, *hb2; /* (nb, hidden_dim) the FFN's gate and up outputs */
    float *att;      /* attention scratch: per work item, a chunk's scores and states (attn_scratch_floats) */
    float *att_part; /* decode: the partial state of each (head, chunk), hd + 2 floats each */
    float *logits;   /* (vocab,) */
    float *rope_cs;  /* (seq_len, head_dim / 2, 2) cos and sin, computed once with llama2.c's expressions */
    void *act;       /* the kernels' prepared activations, sized for the largest need */
    float *xpad;     /* (nb, kpad) a padded layer's input with its zero tail; NULL when no K is padded */
    float *ypad[3];  /* (nb, mpad) the outputs of a group's padded-M layers, before their real rows are
                      * copied out; NULL when no M is padded */
    /* The matmuls of one forward pass in order, 4 per layer then the classifier (see
     * linear_group) */
    struct linear_group *groups;
    int ngroups;
    bb_tf_profile *prof;   /* NULL, or where the forward passes record their time (bb_tf_set_profile) */
    size_t footprint;
    char conversions[1024]; /* bb_tf_conversions */
};

/* Attention's scratch for a model: floats of att and att_part (transformer.c). */
size_t tf_attn_scratch_floats(const bb_tf_dims *d, int max_batch);
size_t tf_attn_part_floats(const bb_tf_dims *d);

/* Set up t->groups from the layers and the buffers (transformer.c).  Returns 0, or -1 when out of
 * memory. */
int tf_make_groups(bb_transformer *t);

#endif
