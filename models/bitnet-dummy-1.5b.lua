-- bitnet.cpp's 1.5B dummy-model preset: the sizes of its Table 7 (bitnet.cpp), run with
-- synthetic ternary weights.  Plain multi-head attention (kv heads = heads), vocab 32002 and a tied
-- f16 embedding as in its runs.
return {
  name = "bitnet-dummy-1.5b",
  style = "bitnet",
  dim = 1536,
  ffn_dim = 9216,
  n_layers = 28,
  n_heads = 32,
  n_kv_heads = 32,
  vocab_size = 32002,
  ffn_act = "silu",
  tied_embedding = true,
  source = "bitnet.cpp Table 7 preset 1.5B; shared/models/PAPER-MODELS.md",
}
