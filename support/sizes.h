/* Sizes of the text buffers that the same kind of text passes through in several files, named
 * once.  (A buffer used for one purpose in one place keeps its number there.) */
#ifndef BB_SIZES_H
#define BB_SIZES_H

/* One error line that may list every registered kernel, variant or model name with a suggestion
 * (bb_kernel_resolve, bb_model_config_resolve, bb_model_source_open). */
#define BB_ERR_MAX 1536

/* A run's directory: a results directory (a path of up to 1024 bytes, bb_experiment.out), '/',
 * the experiment's name and "-YYYYmmdd-HHMMSS". */
#define BB_RUN_DIR_MAX 1200

#endif
