/* The kinds of plot `bitbench plot --kind` draws (cli/cmd_plot.c), which an experiment file's
 * `plots` field may also name (experiment/lua_experiment.c checks them there, before the run). */
#ifndef BB_PLOT_KINDS_H
#define BB_PLOT_KINDS_H

#define BB_PLOT_NKINDS 7
extern const char *const bb_plot_kinds[BB_PLOT_NKINDS];

#endif
