local s = string.rep("ab", 1 << 40)
