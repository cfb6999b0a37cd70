/* SHA-256 (FIPS 180-4), to fingerprint experiment files in results. */
#ifndef BB_SHA256_H
#define BB_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t h[8];
    uint64_t bytes;
    uint8_t block[64];
    size_t used;
} bb_sha256;

void bb_sha256_init(bb_sha256 *s);
void bb_sha256_update(bb_sha256 *s, const void *data, size_t len);
void bb_sha256_final(bb_sha256 *s, uint8_t digest[32]);
/* Hex digest of a whole file into hex[65]; returns 0 or -1 when unreadable. */
int bb_sha256_file(const char *path, char hex[65]);

#endif
