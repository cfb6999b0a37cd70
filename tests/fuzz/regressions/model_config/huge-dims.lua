return { name = "x", style = "llama", dim = 2^31, ffn_dim = 2^40, n_layers = 1e308, n_heads = -1, n_kv_heads = 0, vocab = 0/0, source = "s" }
