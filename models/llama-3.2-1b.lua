-- Llama-3.2-1B: grouped-query attention, tied embedding.
return {
  name = "llama-3.2-1b",
  style = "llama",
  dim = 2048,
  ffn_dim = 8192,
  n_layers = 16,
  n_heads = 32,
  n_kv_heads = 8,
  vocab_size = 128256,
  ffn_act = "silu",
  tied_embedding = true,
  source = "meta-llama/Llama-3.2-1B config; shared/models/PAPER-MODELS.md",
}
