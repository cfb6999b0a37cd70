local t = {} for i = 1, 1e9 do t[i] =M string.rep("x", 4000000 + i) end
