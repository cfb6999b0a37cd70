/* Writing what gnuplot reads -- a script of variable assignments and a `load`, and labels in data
 * files -- so that no string from a file can become a gnuplot command (issue 29).
 *
 * Every string in a script is a single-quoted gnuplot literal: inside single quotes gnuplot
 * expands neither backquotes (shell commands) nor backslash escapes nor @macros, and the only
 * special character is the quote itself, written twice.  A line break would end the command
 * early (the rest of the string then runs as commands, `!cmd` among them), so a text string's
 * control characters become spaces, and a path holding one is refused.  Bytes that are not UTF-8
 * become '?', so that the SVG files stay text.  Paths must be absolute: gnuplot reads an output,
 * data or load file name that begins with '|' or '<' as a shell pipe.
 *
 * In a data file a label is a double-quoted field; there gnuplot ends the field at the next '"'
 * whatever precedes it and reads "\\" as one backslash, so a label's '"' becomes ''' and its '\'
 * becomes '/'.  Data is never executed; this keeps each label one field. */
#ifndef BB_GNUPLOT_SCRIPT_H
#define BB_GNUPLOT_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    char *text; /* the script so far, NUL-terminated (NULL while empty) */
    size_t len, cap;
    bool failed; /* out of memory or a name that is not an identifier: the script is not written */
} bb_gp_script;

void bb_gp_script_init(bb_gp_script *s);
void bb_gp_script_free(bb_gp_script *s);

/* `name = 'value'` with value as text: control characters become spaces, bytes that are not
 * UTF-8 '?', quotes doubled.  name must be an identifier of ours ([A-Za-z_][A-Za-z0-9_]*). */
void bb_gp_set_text(bb_gp_script *s, const char *name, const char *value);

/* `name = 'path'`, the path unchanged.  -1 with one line in err (the script unchanged) when it
 * cannot be: not absolute, or holding a control character. */
int bb_gp_set_path(bb_gp_script *s, const char *name, const char *path, char *err, size_t errlen);

/* `name = NUMBER` (NaN for a value that is not finite, so the script still parses); the int form
 * for counts. */
void bb_gp_set_number(bb_gp_script *s, const char *name, double value);
void bb_gp_set_int(bb_gp_script *s, const char *name, long value);

/* `load 'path'`; the same refusals as bb_gp_set_path. */
int bb_gp_load(bb_gp_script *s, const char *path, char *err, size_t errlen);

/* Every line of from, appended (a kind's variables into the script of one terminal). */
void bb_gp_append(bb_gp_script *s, const bb_gp_script *from);

/* The script into path (a file of ours in our temporary folder); -1 with err when it failed to
 * build or to write. */
int bb_gp_script_write(const bb_gp_script *s, const char *path, char *err, size_t errlen);

/* A data-file label: '"', the text of s as in bb_gp_set_text with '"' as ''' and '\' as '/', '"'.
 * The rendered field into out (NUL-terminated; *out freed by the caller); -1 when out of memory. */
int bb_gp_data_label(const char *s, char **out);

/* The same, written to f; -1 on a write error or out of memory. */
int bb_gp_write_data_label(FILE *f, const char *s);

#endif
