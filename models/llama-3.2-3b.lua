-- Llama-3.2-3B: grouped-query attention, tied embedding.
return {
  name = "llama-3.2-3b",
  style = "llama",
  dim = 3072,
  ffn_dim = 8192,
  n_layers = 28,
  n_heads = 24,
  n_kv_heads = 8,
  vocab_size = 128256,
  ffn_act = "silu",
  tied_embedding = true,
  source = "meta-llama/Llama-3.2-3B config; shared/models/PAPER-MODELS.md",
}
