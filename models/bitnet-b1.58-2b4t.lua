-- BitNet b1.58 2B4T, Microsoft's native 1.58-bit model trained on 4T tokens: grouped-query
-- attention (20 heads, 5 KV heads), squared-ReLU gated FFN, extra sub-norms, tied embedding.
return {
  name = "bitnet-b1.58-2b4t",
  style = "bitnet",
  dim = 2560,
  ffn_dim = 6912,
  n_layers = 30,
  n_heads = 20,
  n_kv_heads = 5,
  vocab_size = 128256,
  ffn_act = "relu2",
  tied_embedding = true,
  source = "microsoft/bitnet-b1.58-2B-4T config; shared/models/PAPER-MODELS.md",
}
