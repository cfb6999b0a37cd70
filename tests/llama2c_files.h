/* llama2.c files written by tests: a tokenizer file of the test's own pieces (its format is
 * llama2.c's tokenizer.bin, which models/tokenizer.h reads: the longest piece's length, then per
 * token its score, its length and its bytes, all little-endian 32-bit but the bytes). */
#ifndef BB_TEST_LLAMA2C_FILES_H
#define BB_TEST_LLAMA2C_FILES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Write n pieces to path, piece i with score -i (earlier pieces merge first), declaring max_len as
 * the longest piece; exits the test when the file cannot be written. */
static inline void write_llama2c_tokenizer(const char *path, const char *const *pieces, int n, int32_t max_len)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(&max_len, 4, 1, f) == 1;
    for (int i = 0; ok && i < n; i++) {
        float score = (float)-i;
        int32_t len = (int32_t)strlen(pieces[i]);
        ok = fwrite(&score, 4, 1, f) == 1 && fwrite(&len, 4, 1, f) == 1 &&
             fwrite(pieces[i], 1, (size_t)len, f) == (size_t)len;
    }
    if (!f || fclose(f) || !ok) {
        perror(path);
        exit(1);
    }
}

#endif
