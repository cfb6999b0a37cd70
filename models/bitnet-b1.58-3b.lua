-- BitNet b1.58 3B (1bitLLM's reproduction), tied embedding.  Its widths do not fit every block:
-- K = 8640 (down) is a multiple of neither 128 nor 256, K = 3200 (the rest) is not one of 256, so
-- kernels with such blocks skip those shapes.
return {
  name = "bitnet-b1.58-3b",
  style = "bitnet",
  dim = 3200,
  ffn_dim = 8640,
  n_layers = 26,
  n_heads = 32,
  n_kv_heads = 32,
  vocab_size = 32002,
  ffn_act = "silu",
  tied_embedding = true,
  source = "1bitLLM/bitnet_b1_58-3B config.json (tie_word_embeddings true); shared/models/PAPER-MODELS.md",
}
