/* KV cache element types (kv_type.h). */
#include "kv_type.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/common/fp16.h"

static const char *const names[BB_KV_TYPES] = {"f32", "f16", "bf16", "q8_0"};

const char *bb_kv_type_name(bb_kv_type t) { return t >= 0 && t < BB_KV_TYPES ? names[t] : "?"; }

int bb_kv_type_parse(const char *s, bb_kv_type *out, char *err, size_t errlen)
{
    for (int i = 0; i < BB_KV_TYPES; i++)
        if (s && !strcmp(s, names[i])) {
            *out = (bb_kv_type)i;
            return 0;
        }
    snprintf(err, errlen, "KV cache type '%s' is not one of f32, f16, bf16, q8_0", s ? s : "");
    return -1;
}

size_t bb_kv_row_bytes(bb_kv_type t, int hd)
{
    switch (t) {
    case BB_KV_F32: return 4 * (size_t)hd;
    case BB_KV_F16:
    case BB_KV_BF16: return 2 * (size_t)hd;
    case BB_KV_Q8_0: return (size_t)hd / BB_KV_Q8_0_BLOCK * BB_KV_Q8_0_BYTES;
    default: return 0;
    }
}

int bb_kv_type_check(bb_kv_type t, int hd, char *err, size_t errlen)
{
    if (t < 0 || t >= BB_KV_TYPES) {
        snprintf(err, errlen, "KV cache type %d is not one of f32, f16, bf16, q8_0", (int)t);
        return -1;
    }
    if (t == BB_KV_Q8_0 && hd % BB_KV_Q8_0_BLOCK) {
        snprintf(err, errlen, "KV cache type q8_0 needs a head dimension that is a multiple of 32; this model's is %d "
                 "(use f32, f16 or bf16)", hd);
        return -1;
    }
    return 0;
}

/* ggml's q8_0 row quantization, from the format's description (kv_type.h). */
static void store_q8_0(uint8_t *dst, const float *x, int hd)
{
    for (int b = 0; b < hd / BB_KV_Q8_0_BLOCK; b++, x += BB_KV_Q8_0_BLOCK, dst += BB_KV_Q8_0_BYTES) {
        float amax = 0.0f;
        for (int i = 0; i < BB_KV_Q8_0_BLOCK; i++) amax = fmaxf(amax, fabsf(x[i]));
        float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
        uint16_t dh = bb_fp32_to_fp16(d);
        memcpy(dst, &dh, 2);
        for (int i = 0; i < BB_KV_Q8_0_BLOCK; i++) dst[2 + i] = (uint8_t)(int8_t)roundf(x[i] * id);
    }
}

void bb_kv_store_row(bb_kv_type t, void *dst, const float *src, int hd,
                     void (*to_f16)(uint16_t *dst, const float *src, int n))
{
    switch (t) {
    case BB_KV_F32: memcpy(dst, src, sizeof(float) * (size_t)hd); break;
    case BB_KV_F16: to_f16(dst, src, hd); break;
    case BB_KV_BF16:
        for (int i = 0; i < hd; i++) ((uint16_t *)dst)[i] = bb_fp32_to_bf16(src[i]);
        break;
    case BB_KV_Q8_0: store_q8_0(dst, src, hd); break;
    default: break;
    }
}

void bb_kv_load_row(bb_kv_type t, float *dst, const void *src, int hd)
{
    const uint16_t *h = src;
    const uint8_t *q = src;
    for (int i = 0; i < hd; i++) switch (t) {
        case BB_KV_F32: dst[i] = ((const float *)src)[i]; break;
        case BB_KV_F16: dst[i] = bb_fp16_to_fp32(h[i]); break;
        case BB_KV_BF16: dst[i] = bb_bf16_to_fp32(h[i]); break;
        case BB_KV_Q8_0: {
            const uint8_t *blk = q + (size_t)(i / BB_KV_Q8_0_BLOCK) * BB_KV_Q8_0_BYTES;
            uint16_t d;
            memcpy(&d, blk, 2);
            dst[i] = bb_fp16_to_fp32(d) * (float)(int8_t)blk[2 + i % BB_KV_Q8_0_BLOCK];
            break;
        }
        default: dst[i] = 0; break;
        }
}
