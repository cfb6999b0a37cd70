-- bitnet.cpp's 125M dummy-model preset: the sizes of its Table 7 (bitnet.cpp), run with
-- synthetic ternary weights.  Plain multi-head attention (kv heads = heads), vocab 32002 and a tied
-- f16 embedding as in its runs.
return {
  name = "bitnet-dummy-125m",
  style = "bitnet",
  dim = 768,
  ffn_dim = 3072,
  n_layers = 11,
  n_heads = 12,
  n_kv_heads = 12,
  vocab_size = 32002,
  ffn_act = "silu",
  tied_embedding = true,
  source = "bitnet.cpp Table 7 preset 125M; shared/models/PAPER-MODELS.md",
}
