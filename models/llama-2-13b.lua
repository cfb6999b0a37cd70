-- Llama-2-13B.
return {
  name = "llama-2-13b",
  style = "llama",
  dim = 5120,
  ffn_dim = 13824,
  n_layers = 40,
  n_heads = 40,
  n_kv_heads = 40,
  vocab_size = 32000,
  ffn_act = "silu",
  tied_embedding = false,
  source = "meta-llama/Llama-2-13b-hf config; shared/models/PAPER-MODELS.md",
}
