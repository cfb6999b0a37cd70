/* Where bitbench's own scripts are (scripts/: the gnuplot scripts of `bitbench plot`, the
 * paper-table modules scripts/reproduce/ *.lua and scripts/lib/ of `bitbench report`).
 *
 * They are code -- a gnuplot script can run any program (gnuplot's `system`) -- so the folder
 * is chosen by the person running bitbench, never by the folder they run it in (issue 29: a file
 * never chooses a program): $BITBENCH_SOURCE_DIR/scripts when that is set, else scripts/ beside
 * the executable's folder (a build inside the source tree, an installation), else the scripts/ of
 * the source tree this binary was built from.  The working directory is never searched: a
 * results folder or an experiment repository from someone else may hold a scripts/ of its own. */
#ifndef BB_SCRIPTS_DIR_H
#define BB_SCRIPTS_DIR_H

#include <stddef.h>

/* The folder as an absolute path (realpath) into out.  0, or -1 with one line in err naming the
 * places looked at. */
int bb_scripts_dir(char *out, size_t len, char *err, size_t errlen);

#endif
