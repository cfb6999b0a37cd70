-- bitnet.cpp's 1B dummy-model preset: the sizes of its Table 7, run with
-- synthetic ternary weights.  Plain multi-head attention (kv heads = heads), vocab 32002 and a tied
-- f16 embedding as in its runs.
return {
  name = "bitnet-dummy-1b",
  style = "bitnet",
  dim = 2048,
  ffn_dim = 3584,
  n_layers = 24,
  n_heads = 32,
  n_kv_heads = 32,
  vocab_size = 32002,
  ffn_act = "silu",
  tied_embedding = true,
  source = "bitnet.cpp Table 7 preset 1B; shared/models/PAPER-MODELS.md",
}
