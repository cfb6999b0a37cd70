#include "nibble_records.h"

const bb_il_layout bb_nibble_x8_layout = {
    .rows = BB_NIBBLE_X8_ROWS,
    .block_values = BB_QK,
    .block_bytes = BB_NIBBLE_BLOCK_BYTES,
    .nsections = 2,
    .sections = {{2, 1}, {BB_NIBBLE_X8_CHUNK, BB_QK / 2 / BB_NIBBLE_X8_CHUNK}}, /* d, then the qs in chunks */
};
