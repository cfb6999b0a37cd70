return "llama"
