-- bitnet.cpp's 350M dummy-model preset: the sizes of its Table 7 (bitnet.cpp), run with
-- synthetic ternary weights.  Plain multi-head attention (kv heads = heads), vocab 32002 and a tied
-- f16 embedding as in its runs.
return {
  name = "bitnet-dummy-350m",
  style = "bitnet",
  dim = 1024,
  ffn_dim = 3072,
  n_layers = 24,
  n_heads = 16,
  n_kv_heads = 16,
  vocab_size = 32002,
  ffn_act = "silu",
  tied_embedding = true,
  source = "bitnet.cpp Table 7 preset 350M; shared/models/PAPER-MODELS.md",
}
