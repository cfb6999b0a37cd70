/* A place bitbench chose inside a folder it did not create (RESULTS_DIR/plots, RUN_DIR/report.html,
 * plots/roofline.png) must not be a symbolic link: output_file.h writes through a link (a path
 * the person named may be one, by their choice), but a link found in someone else's results folder
 * would have bitbench write wherever its author pointed it (issue 29).  Such places are refused,
 * not followed, with one line. */
#ifndef BB_NOT_A_LINK_H
#define BB_NOT_A_LINK_H

#include <stddef.h>

/* 0 when path is absent or is not a symbolic link; else -1 with one line in err naming path,
 * what it points to, and that it is `what` (e.g. "the plots folder"), not written through. */
int bb_not_a_link(const char *path, const char *what, char *err, size_t errlen);

#endif
