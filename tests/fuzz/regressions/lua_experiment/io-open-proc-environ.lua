local e = io.open("/proc/self/environ"):read("a")
bitbench.experiment { name = e, sweeps = { { kernels = "f32", shapes = { {16, 16} } } } }
