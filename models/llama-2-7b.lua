-- Llama-2-7B: the float baseline of the bitnet.cpp and T-MAC papers.
return {
  name = "llama-2-7b",
  style = "llama",
  dim = 4096,
  ffn_dim = 11008,
  n_layers = 32,
  n_heads = 32,
  n_kv_heads = 32,
  vocab_size = 32000,
  ffn_act = "silu",
  tied_embedding = false,
  source = "meta-llama/Llama-2-7b-hf config; shared/models/PAPER-MODELS.md",
}
