/* The kinds of plot (plot_kinds.h), in the order `bitbench plot` draws them. */
#include "report/plot_kinds.h"

const char *const bb_plot_kinds[BB_PLOT_NKINDS] = {"roofline", "threads",     "gemv_bw",  "tokens",
                                                    "ebw",      "e2e_threads", "e2e_depth"};
