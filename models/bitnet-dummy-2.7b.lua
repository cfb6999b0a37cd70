-- bitnet.cpp's 2.7B dummy-model preset: the sizes of its Table 7 (bitnet.cpp), run with
-- synthetic ternary weights.  Plain multi-head attention (kv heads = heads), vocab 32002 and a tied
-- f16 embedding as in its runs.
return {
  name = "bitnet-dummy-2.7b",
  style = "bitnet",
  dim = 3072,
  ffn_dim = 7680,
  n_layers = 24,
  n_heads = 32,
  n_kv_heads = 32,
  vocab_size = 32002,
  ffn_act = "silu",
  tied_embedding = true,
  source = "bitnet.cpp Table 7 preset 2.7B; shared/models/PAPER-MODELS.md",
}
