#!/bin/sh
# A peer that fails: says what llama-bench says for a model it cannot load, exits 1.
echo "llama_model_load: error loading model: tensor 'blk.0.attn_q.weight' has invalid ggml type 36" >&2
echo "main: error: failed to load model '$2'" >&2
exit 1
