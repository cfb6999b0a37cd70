-- Llama-3-8B: grouped-query attention, 8 KV heads, 128256-token vocabulary.
return {
  name = "llama-3-8b",
  style = "llama",
  dim = 4096,
  ffn_dim = 14336,
  n_layers = 32,
  n_heads = 32,
  n_kv_heads = 8,
  vocab_size = 128256,
  ffn_act = "silu",
  tied_embedding = false,
  source = "meta-llama/Meta-Llama-3-8B config; shared/models/PAPER-MODELS.md",
}
