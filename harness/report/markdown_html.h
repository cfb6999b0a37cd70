/* Markdown as bitbench writes it -- the paper-table reports of scripts/reproduce/ *.lua and
 * `bitbench compare`'s table -- turned into HTML for `bitbench report`.
 *
 * Only the forms those writers use: pipe tables (a header row, its |---| line, body rows),
 * headings (#), list items (- or *), paragraphs (a line break kept as <br>), and inline **bold** and
 * `code`.  Everything else
 * is text.  Every character of the input reaches the page through bb_html_escape
 * (html_escape.h), so markdown from a foreign results folder cannot add markup; the tags are
 * ours. */
#ifndef BB_MARKDOWN_HTML_H
#define BB_MARKDOWN_HTML_H

#include <stdio.h>

void bb_markdown_html(FILE *f, const char *md);

#endif
