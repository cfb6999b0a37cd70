-- MobileLLM-1.5B: deep and thin (54 layers), 25 heads / 5 KV heads of 64, shared embedding.
-- The Intel up-convert paper's smallest GEMV is its 1600x1600 projection.
return {
  name = "mobilellm-1.5b",
  style = "llama",
  dim = 1600,
  ffn_dim = 4352,
  n_layers = 54,
  n_heads = 25,
  n_kv_heads = 5,
  vocab_size = 32000,
  ffn_act = "silu",
  tied_embedding = true,
  source = "facebook/MobileLLM-1.5B model card (54 layers, 25/5 heads, dim 1600, shared embeddings, 1.51B params); ffn_dim 4352 per shared/models/PAPER-MODELS.md, consistent with the 1.51B total",
}
