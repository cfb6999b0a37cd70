-- BitNet b1.58 large (700M), 1bitLLM's reproduction of the BitNet b1.58 paper; the 700M row of
-- bitnet.cpp's Table 7.  Tied embedding.
return {
  name = "bitnet-b1.58-large",
  style = "bitnet",
  dim = 1536,
  ffn_dim = 4096,
  n_layers = 24,
  n_heads = 16,
  n_kv_heads = 16,
  vocab_size = 32002,
  ffn_act = "silu",
  tied_embedding = true,
  source = "1bitLLM/bitnet_b1_58-large config.json (tie_word_embeddings true); shared/models/PAPER-MODELS.md",
}
