-- bitnet.cpp's 30B dummy-model preset: the sizes of its Table 7 (bitnet.cpp), run with
-- synthetic ternary weights.  Plain multi-head attention (kv heads = heads), vocab 32002 and a tied
-- f16 embedding as in its runs.
return {
  name = "bitnet-dummy-30b",
  style = "bitnet",
  dim = 6656,
  ffn_dim = 16384,
  n_layers = 60,
  n_heads = 52,
  n_kv_heads = 52,
  vocab_size = 32002,
  ffn_act = "silu",
  tied_embedding = true,
  source = "bitnet.cpp Table 7 preset 30B; shared/models/PAPER-MODELS.md",
}
