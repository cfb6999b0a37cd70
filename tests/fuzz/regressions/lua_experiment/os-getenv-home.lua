bitbench.experiment { name = os.getenv("HOME"), sweeps = { { kernels = "f32", shapes = { {16, 16} } } } }
