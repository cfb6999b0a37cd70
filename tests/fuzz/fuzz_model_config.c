/* Fuzz target: the model-config loader (models/model_config.c), Lua files such as
 * models/llama-2-7b.lua run in the sandbox (support/lua_sandbox.h) with the bounds of
 * fuzz_lua_bounds.h.
 *
 * The input is a config file.  A config the loader accepts is used as `bitbench list models`
 * and model sweeps use it: its projection shapes and parameter count.  Seeds: models/<name>.lua. */
#include <stdint.h>

#include "fuzz_input.h"
#include "fuzz_lua_bounds.h"
#include "models/model_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_lua_bounds();
    bb_model_config cfg;
    char err[1024];
    if (bb_model_load_file(fuzz_input_path(data, size), &cfg, err, sizeof err) != 0) return 0;
    bb_model_shape shapes[BB_MODEL_MAX_SHAPES];
    int n = bb_model_shapes(&cfg, shapes);
    if (n < 1 || n > BB_MODEL_MAX_SHAPES) abort();
    (void)bb_model_param_count(&cfg);
    (void)bb_model_style_name(cfg.style);
    (void)bb_model_ffn_act_name(cfg.ffn_act);
    return 0;
}
