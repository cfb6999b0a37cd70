-- bitnet.cpp's 100B dummy-model preset: the sizes of its Table 7 (bitnet.cpp), run with
-- synthetic ternary weights.  Plain multi-head attention (kv heads = heads), vocab 32002 and a tied
-- f16 embedding as in its runs.
return {
  name = "bitnet-dummy-100b",
  style = "bitnet",
  dim = 8192,
  ffn_dim = 45568,
  n_layers = 72,
  n_heads = 64,
  n_kv_heads = 64,
  vocab_size = 32002,
  ffn_act = "silu",
  tied_embedding = true,
  source = "bitnet.cpp Table 7 preset 100B; shared/models/PAPER-MODELS.md",
}
