/* Fuzz target: strings as shell words (harness/io/shell_word.c), the writer behind the values of
 * the Slurm job scripts and the commands bitbench suggests for a person to copy into a shell.
 *
 * Input: a mode byte (0 bb_shell_word, 1 bb_shell_quote, 2 bb_shell_path, 3 bb_shell_path_shown),
 * then the string (up to the first NUL).  The word written is read back by the POSIX shell's
 * quoting rules (XCU 2.2): outside quotes a backslash takes the next byte literally and a single
 * quote opens a string that only the next single quote ends; any other byte outside quotes must
 * be one a shell takes as itself in a word ([A-Za-z0-9] and "_@%+=:,./-": no blank, no expansion,
 * glob, redirection, operator, comment or tilde, no byte that is not ASCII).  bb_shell_path_shown
 * may also write bash's $'...' (XCU 2.2.4 of the 2024 edition): \\, \' and \xH or \xHH escapes
 * inside.  Properties (a failure aborts): the word is not empty, it decodes to the string (the
 * paths: "./" and the string when it begins with '-', and then never to a word beginning with
 * '-'), bb_shell_quote's word is quoted whole, and bb_shell_path_shown's word is shown by a
 * terminal as it is (support/term_text.h changes nothing in it). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "io/shell_word.h"
#include "support/term_text.h"

static void fail(const char *what, const char *input, const char *word)
{
    fprintf(stderr, "fuzz_shell_word: %s\n--- input\n%s\n--- word\n%s\n", what, input, word ? word : "");
    abort();
}

/* The word read back; NULL (after fail) on a byte a shell would not take as itself. */
static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static char *decode(const char *word, const char *input, bool ansi_c)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-";
    size_t n = strlen(word);
    char *out = malloc(n + 1);
    if (!out) exit(1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = word[i];
        if (ansi_c && c == '$' && word[i + 1] == '\'') { /* $'...': only the escapes the writer uses */
            for (i += 2;; i++) {
                if (i >= n) fail("a $' quote that is not closed", input, word);
                if (word[i] == '\'') break;
                if (word[i] != '\\') {
                    out[o++] = word[i];
                    continue;
                }
                char e = word[++i];
                if (e == '\\' || e == '\'') {
                    out[o++] = e;
                } else if (e == 'x' && hex_digit(word[i + 1]) >= 0) {
                    int v = hex_digit(word[++i]);
                    if (hex_digit(word[i + 1]) >= 0) v = v * 16 + hex_digit(word[++i]);
                    if (v == 0) fail("a NUL escaped in $'...' (bash would end the word there)", input, word);
                    out[o++] = (char)v;
                } else {
                    fail("an escape in $'...' the writer does not use", input, word);
                }
            }
        } else if (c == '\'') {
            const char *end = strchr(word + i + 1, '\'');
            if (!end) fail("a single quote that is not closed", input, word);
            size_t len = (size_t)(end - (word + i + 1));
            memcpy(out + o, word + i + 1, len);
            o += len;
            i += len + 1;
        } else if (c == '\\') {
            if (i + 1 == n) fail("a backslash at the end of the word", input, word);
            out[o++] = word[++i];
        } else if (strchr(plain, c)) {
            out[o++] = c;
        } else {
            fail("a byte outside quotes that a shell would not take as itself", input, word);
        }
    }
    out[o] = 0;
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int mode = data[0] % 4;
    char *input = fuzz_input_string(data + 1, size - 1); /* ends at the first NUL */
    char *word = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&word, &len);
    if (!f) exit(1);
    if (mode == 0) bb_shell_word(f, input);
    else if (mode == 1) bb_shell_quote(f, input);
    else if (mode == 2) bb_shell_path(f, input);
    else bb_shell_path_shown(f, input);
    if (fclose(f)) exit(1);
    if (len == 0) fail("an empty word (the argument would vanish)", input, word);
    if (strlen(word) != len) fail("a NUL inside the word", input, word);
    if (mode == 1 && (word[0] != '\'' || word[len - 1] != '\'')) fail("bb_shell_quote's word not quoted whole", input, word);
    if (mode == 3) {
        char *shown = NULL;
        size_t shown_len = 0;
        FILE *m = open_memstream(&shown, &shown_len);
        if (!m) exit(1);
        bb_term_fputs(word, m);
        if (fclose(m)) exit(1);
        if (strcmp(shown, word)) fail("a path for the terminal that the terminal would not show as it is", input, word);
        free(shown);
    }
    char *got = decode(word, input, mode == 3);
    const char *want = input;
    char *prefixed = NULL;
    if (mode >= 2 && input[0] == '-') {
        prefixed = malloc(strlen(input) + 3);
        if (!prefixed) exit(1);
        snprintf(prefixed, strlen(input) + 3, "./%s", input);
        want = prefixed;
    }
    if (strcmp(got, want)) fail("the word decodes to another string", input, word);
    if (mode >= 2 && got[0] == '-') fail("a path word that begins with '-'", input, word);
    free(prefixed);
    free(got);
    free(word);
    free(input);
    return 0;
}
