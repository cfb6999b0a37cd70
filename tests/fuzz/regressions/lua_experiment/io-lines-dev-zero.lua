for l in io.lines("/dev/zero") do end
