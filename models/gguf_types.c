/* The ggml type table and decoding to float (gguf_types.h). */
#include "gguf_types.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/fp16.h"
#include "kernels/common/q6_k.h"
#include "kernels/kernel.h"

/* ggml.h enum ggml_type and ggml-common.h block sizes.  I2_S is bitnet.cpp's (see the header);
 * 39 is upstream's MXFP4 (bitnet.cpp's fork used 39 for its TL2, which it never writes to files:
 * TL1/TL2 come from ggml_bitnet_transform_tensor at load time). */
static const bb_ggml_type types[] = {
    {0, "F32", 1, 4, 0, true},        {1, "F16", 1, 2, 0, true},         {2, "Q4_0", 32, 18, 0, true},
    {3, "Q4_1", 32, 20, 0, false},    {6, "Q5_0", 32, 22, 0, false},     {7, "Q5_1", 32, 24, 0, false},
    {8, "Q8_0", 32, 34, 0, true},     {9, "Q8_1", 32, 36, 0, false},     {10, "Q2_K", 256, 84, 0, true},
    {11, "Q3_K", 256, 110, 0, false}, {12, "Q4_K", 256, 144, 0, false},  {13, "Q5_K", 256, 176, 0, false},
    {14, "Q6_K", 256, 210, 0, true},  {15, "Q8_K", 256, 292, 0, false},  {16, "IQ2_XXS", 256, 66, 0, false},
    {17, "IQ2_XS", 256, 74, 0, false}, {18, "IQ3_XXS", 256, 98, 0, false}, {19, "IQ1_S", 256, 50, 0, false},
    {20, "IQ4_NL", 32, 18, 0, true},  {21, "IQ3_S", 256, 110, 0, false}, {22, "IQ2_S", 256, 82, 0, false},
    {23, "IQ4_XS", 256, 136, 0, false}, {24, "I8", 1, 1, 0, false},      {25, "I16", 1, 2, 0, false},
    {26, "I32", 1, 4, 0, false},      {27, "I64", 1, 8, 0, false},       {28, "F64", 1, 8, 0, false},
    {29, "IQ1_M", 256, 56, 0, false}, {30, "BF16", 1, 2, 0, true},       {34, "TQ1_0", 256, 54, 0, true},
    {35, "TQ2_0", 256, 66, 0, true},  {36, "I2_S", 128, 32, 32, true},   {39, "MXFP4", 32, 17, 0, false},
};

const bb_ggml_type *bb_ggml_type_by_id(uint32_t id)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].id == id) return &types[i];
    return NULL;
}

const bb_ggml_type *bb_ggml_type_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(types[i].name, name)) return &types[i];
    return NULL;
}

const char *bb_ggml_decoded_types(void)
{
    static char list[160];
    if (!list[0]) {
        size_t used = 0;
        for (size_t i = 0; i < sizeof types / sizeof types[0] && used < sizeof list; i++)
            if (types[i].decodes)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", types[i].name);
    }
    return list;
}

/* The bitbench kernel whose unpack reads this GGUF block format as it is stored. */
static const char *unpack_kernel(uint32_t id)
{
    switch (id) {
    case BB_GGML_Q4_0: return "q4_0";
    case BB_GGML_Q8_0: return "q8_0";
    case BB_GGML_Q2_K: return "q2_k";
    case BB_GGML_IQ4_NL: return "iq4_nl";
    case BB_GGML_TQ1_0: return "tq1_0";
    case BB_GGML_TQ2_0: return "tq2_0";
    case BB_GGML_I2_S: return "i2_s";
    default: return NULL;
    }
}

/* Rows whose bytes are read in place when aligned (block structs hold uint16 / float fields). */
static void decode_plain(uint32_t id, const uint8_t *src, uint64_t nvals, float *dst)
{
    if (id == BB_GGML_F32) {
        memcpy(dst, src, nvals * sizeof(float));
    } else if (id == BB_GGML_F16 || id == BB_GGML_BF16) {
        for (uint64_t i = 0; i < nvals; i++) {
            uint16_t h;
            memcpy(&h, src + 2 * i, 2);
            dst[i] = id == BB_GGML_F16 ? bb_fp16_to_fp32(h) : bb_bf16_to_fp32(h);
        }
    } else { /* Q6_K */
        bb_q6_k_dequant((const bb_block_q6_K *)src, nvals / 256, dst);
    }
}

int bb_ggml_decode_rows(const bb_ggml_type *t, const uint8_t *data, uint64_t tensor_values, uint64_t row_len,
                        uint64_t r0, uint64_t n, float *dst, char *err, size_t errlen)
{
    uint64_t row_bytes = row_len / t->block * t->block_bytes;
    const uint8_t *src = data + r0 * row_bytes;
    const char *kname = unpack_kernel(t->id);
    if (!kname) {
        /* F32/F16/BF16 are read byte-wise; Q6_K blocks need 2-byte alignment */
        if (t->id != BB_GGML_Q6_K || ((uintptr_t)src & 1) == 0) {
            decode_plain(t->id, src, n * row_len, dst);
            return 0;
        }
    }
    const bb_kernel *k = kname ? bb_kernel_by_name(kname) : NULL;
    if (kname && !k) {
        snprintf(err, errlen, "type %s: kernel '%s' is not registered", t->name, kname);
        return -1;
    }
    if (row_len > INT_MAX) {
        snprintf(err, errlen, "type %s: row length %llu is larger than %d", t->name, (unsigned long long)row_len,
                 INT_MAX);
        return -1;
    }
    /* In place when the rows are 4-byte aligned (kernels read uint16/float fields) and the type
     * has no per-tensor tail; else row by row through an aligned copy (I2_S gets its scale
     * appended, as the i2_s kernel expects it after the codes). */
    if (t->tail_bytes == 0 && ((uintptr_t)src & 3) == 0 && (row_bytes & 3) == 0) {
        for (uint64_t r = 0; r < n; r += 65536) {
            uint64_t c = n - r < 65536 ? n - r : 65536;
            k->unpack(src + r * row_bytes, (int)c, (int)row_len, dst + r * row_len);
        }
        return 0;
    }
    uint8_t *tmp = malloc(row_bytes + 64);
    if (!tmp) {
        snprintf(err, errlen, "type %s: out of memory for a %llu-byte row", t->name, (unsigned long long)row_bytes);
        return -1;
    }
    memset(tmp, 0, row_bytes + 64);
    if (t->id == BB_GGML_I2_S) memcpy(tmp + row_bytes, data + tensor_values / 4, sizeof(float));
    for (uint64_t r = 0; r < n; r++) {
        memcpy(tmp, src + r * row_bytes, row_bytes);
        if (k) k->unpack(tmp, 1, (int)row_len, dst + r * row_len);
        else decode_plain(t->id, tmp, row_len, dst + r * row_len);
    }
    free(tmp);
    return 0;
}
