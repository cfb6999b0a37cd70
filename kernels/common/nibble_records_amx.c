/* The AMX driver's weight side for the 8-row nibble records (nibble_records.h), shared by mad's
 * q4_0x8 and codebook's iq4_nl_x8 (their bb_amx_ops). */
#include <immintrin.h>

#include "amx.h"
#include "nibble_records.h"

/* Groups of 8 rows, K/32 records each: row r (a multiple of 8) starts group r/8. */
const void *bb_nibble_x8_amx_row_start(const void *w, int m, int k, int r)
{
    (void)m;
    return bb_nibble_x8_record(w, k, r / BB_NIBBLE_X8_ROWS, 0);
}

void bb_nibble_x8_amx_weight_scales(const void *w, int m, int k, int r, int rows, float *dw)
{
    (void)m;
    /* a record starts with its 8 rows' fp16 scales: one exact F16C conversion per record */
    for (int g = 0; g < rows / BB_NIBBLE_X8_ROWS; g++)
        for (int b = 0; b < k / BB_QK; b++) {
            const uint8_t *rec = bb_nibble_x8_record(w, k, r / BB_NIBBLE_X8_ROWS + g, b);
            _mm256_storeu_ps(dw + b * BB_AMX_STRIP + BB_NIBBLE_X8_ROWS * g, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)rec)));
        }
}
