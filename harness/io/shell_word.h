/* A string as one word of a POSIX shell command line (issue 29: strings reach a shell only escaped
 * by its rules).  Two uses: the values bitbench writes into its Slurm job scripts
 * (cluster/slurm_script.h), and the commands its messages and report page suggest ("redraw with:
 * bitbench plot ... DIR"), which a person copies into a shell: a folder name from someone else's
 * experiment (its `out`) holding $(...) or a backquote must stay a name there.
 *
 * Inside single quotes a POSIX shell takes every byte as it is, the quote itself ending them; a
 * quote inside is written '\'' (close, an escaped quote, open again).  A line break inside stays a
 * line break of the word (the Slurm writer refuses control characters before it quotes). */
#ifndef BB_SHELL_WORD_H
#define BB_SHELL_WORD_H

#include <stdio.h>

/* s in single quotes, always. */
void bb_shell_quote(FILE *f, const char *s);

/* s as it is when every byte is one a shell takes literally ([A-Za-z0-9] and "_@%+=:,./-") and
 * it is not empty, else as bb_shell_quote writes it: the short form for the usual path. */
void bb_shell_word(FILE *f, const char *s);

/* A path as bb_shell_word writes it, with "./" in front when it begins with '-' (which the command
 * would take for an option). */
void bb_shell_path(FILE *f, const char *path);

/* A path in a command printed on a terminal for a person to copy: as bb_shell_path, unless the
 * path holds a byte a terminal would act on (support/term_text.h: C0 and C1 controls, DEL, bytes
 * that are not UTF-8).  Such a path is written in ANSI-C quotes, $'...', every byte outside
 * printable ASCII as \xNN and ' and \ escaped: pure printable ASCII, which bash, zsh and ksh read
 * back to the same bytes (a POSIX sh before the 2024 edition has no $'...'; such a folder name is
 * in any case one that no sh user typed). */
void bb_shell_path_shown(FILE *f, const char *path);

#endif
