/* Strings from files, rendered for a terminal (issue 29).  An experiment's name, a kernel or model
 * name from a CSV, run.json's cpu_model, a GGUF's general.name: a shared file can carry terminal
 * control sequences (ESC [ ... cursor movement and colours, OSC 8 links, OSC 0 window titles, a
 * C1 CSI), which a terminal would obey if bitbench printed them raw.  Human text on stdout and
 * stderr prints such strings through these functions; CSV and JSON have their own escaping.
 *
 * The rendering: valid UTF-8 is copied, except the C1 controls U+0080..U+009F (bytes c2 80..c2
 * 9f); bytes 0x00..0x1f other than tab, 0x7f, the C1 controls and every byte that is not part of
 * a valid UTF-8 sequence (a stray continuation byte, an overlong or truncated sequence, a
 * surrogate, beyond U+10FFFF) are shown as \xNN, one per byte.  The result is valid UTF-8 with
 * no control character but tab.  A backslash is copied as it is (the rendering is for reading,
 * not for parsing back). */
#ifndef BB_TERM_TEXT_H
#define BB_TERM_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* s rendered into out (len > 0 bytes, always NUL-terminated; a rendering that does not fit is cut
 * before the first unit that does not fit, never inside an escape or a UTF-8 sequence).  Returns
 * out, for use as a printf argument. */
const char *bb_term_text(const char *s, char *out, size_t len);

/* s rendered onto f, whatever its length. */
void bb_term_fputs(const char *s, FILE *f);

/* The same, but each line break '\n' of s is written as one (for a table of several lines that
 * bitbench composed around names from files). */
void bb_term_fputs_lines(const char *s, FILE *f);

/* The terminal columns of a rendering (bb_term_text's output): one per code point, which lines up
 * a table's columns for the text that names hold (a wide East Asian character, two columns on
 * most terminals, is counted as one). */
int bb_term_columns(const char *shown);

#endif
