/* Writing text into HTML so that no string from a file can become markup (issue 33).
 *
 * Every string `bitbench report` puts in its page -- cells of results.csv, e2e.csv, run.json's
 * cpu_model, kernel names, a paper report's text -- comes from a results folder, which is
 * untrusted input: a run copied from elsewhere may hold "<script>" in any cell.  The page's
 * markup is ours; a string from a file is always text, in an element or in a double-quoted
 * attribute value, never in a tag, a comment, a <style> or a <script>.
 *
 * By HTML's rules (WHATWG HTML, "Serialising HTML fragments": escaping a string) text and
 * attribute values are safe when '&', '<', '>', '"' and '\'' are written as character references;
 * that is all the output holds of those five characters.  Besides: bytes that are not
 * well-formed UTF-8 become U+FFFD (the page declares UTF-8; a stray byte would otherwise make a
 * browser guess), and control characters other than tab and line break become U+FFFD too (HTML
 * forbids them in text; NUL would end the string for a C reader). */
#ifndef BB_HTML_ESCAPE_H
#define BB_HTML_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* The n bytes of s, escaped, to f. */
void bb_html_escape_n(FILE *f, const char *s, size_t n);
/* The NUL-terminated s (NULL writes nothing), escaped, to f. */
void bb_html_escape(FILE *f, const char *s);

#endif
