/* support/term_text.c: strings from files rendered for a terminal (issue 29). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "support/term_text.h"

static void is(const char *in, const char *want)
{
    char out[256];
    bb_term_text(in, out, sizeof out);
    CHECK(!strcmp(out, want), "'%s' rendered as '%s', want '%s'", in, out, want);
}

int main(void)
{
    is("i2_s@avx2", "i2_s@avx2");
    is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* UTF-8 as it is */
    is("a\tb", "a\tb");
    is("\x1b[2J\x1b[31mred", "\\x1b[2J\\x1b[31mred");                           /* CSI */
    is("\x1b]8;;http://x\x07link\x1b]8;;\x07", "\\x1b]8;;http://x\\x07link\\x1b]8;;\\x07"); /* OSC 8 */
    is("\x1b]0;title\x1b\\", "\\x1b]0;title\\x1b\\");                            /* OSC 0 ended by ST */
    is("line\nbreak\r", "line\\x0abreak\\x0d");
    is("del\x7f", "del\\x7f");
    is("c1 \xc2\x9b" "2J \xc2\x9d", "c1 \\xc2\\x9b2J \\xc2\\x9d");             /* C1 CSI, OSC */
    is("raw \x9b" "2J", "raw \\x9b2J");                                          /* a lone byte: not UTF-8 */
    is("\xc0\x80 \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82", "\\xc0\\x80 \\xed\\xa0\\x80 \\xf4\\x90\\x80\\x80 \\xe2\\x82");
    /* bounded: cut before a unit that does not fit, never inside one */
    char small[6];
    bb_term_text("ab\x1b" "cd", small, sizeof small);
    CHECK(!strcmp(small, "ab"), "cut inside an escape: '%s'", small);
    bb_term_text("a\xe2\x82\xac", small, 4);
    CHECK(!strcmp(small, "a"), "cut inside a UTF-8 sequence: '%s'", small);
    bb_term_text(NULL, small, sizeof small);
    CHECK(!strcmp(small, ""), "NULL renders as nothing");
    /* the unbounded form */
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    bb_term_fputs("x\x1b[Hy", m);
    fclose(m);
    CHECK(buf && !strcmp(buf, "x\\x1b[Hy"), "bb_term_fputs: '%s'", buf ? buf : "");
    free(buf);
    /* the lines form keeps line breaks, nothing else */
    buf = NULL;
    m = open_memstream(&buf, &n);
    bb_term_fputs_lines("| a\x1b[2J |\n| \r\x07 |\n", m);
    fclose(m);
    CHECK(buf && !strcmp(buf, "| a\\x1b[2J |\n| \\x0d\\x07 |\n"), "bb_term_fputs_lines: '%s'", buf ? buf : "");
    free(buf);
    return check_summary("test_term_text");
}
