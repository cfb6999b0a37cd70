-- Falcon3-1B: Llama architecture with head_dim 256 (8 heads of 256 = dim 2048), 4 KV heads,
-- untied classifier (tie_word_embeddings false in its config).
return {
  name = "falcon3-1b",
  style = "llama",
  dim = 2048,
  ffn_dim = 8192,
  n_layers = 18,
  n_heads = 8,
  n_kv_heads = 4,
  head_dim = 256,
  vocab_size = 131072,
  ffn_act = "silu",
  tied_embedding = false,
  source = "tiiuae/Falcon3-1B-Base config.json (head_dim 256, tie_word_embeddings false); shared/models/PAPER-MODELS.md",
}
