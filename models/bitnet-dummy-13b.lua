-- bitnet.cpp's 13B dummy-model preset: the sizes of its Table 7 (bitnet.cpp), run with
-- synthetic ternary weights.  Plain multi-head attention (kv heads = heads), vocab 32002 and a tied
-- f16 embedding as in its runs.
return {
  name = "bitnet-dummy-13b",
  style = "bitnet",
  dim = 5120,
  ffn_dim = 13824,
  n_layers = 40,
  n_heads = 40,
  n_kv_heads = 40,
  vocab_size = 32002,
  ffn_act = "silu",
  tied_embedding = true,
  source = "bitnet.cpp Table 7 preset 13B; shared/models/PAPER-MODELS.md",
}
