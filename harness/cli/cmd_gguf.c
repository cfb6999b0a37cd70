/* bitbench gguf FILE.gguf: what a GGUF file holds, after full validation (like llama.cpp's
 * gguf_dump): version, alignment, every metadata key with its type and a short value (arrays as
 * TYPE[count] and their first elements), every tensor with type, shape, offset and bytes. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "models/gguf.h"
#include "models/gguf_types.h"
#include "support/term_text.h"

#define SHOW_CHARS 48   /* of a string value */
#define SHOW_ELEMENTS 5 /* of an array */

/* A string of the file (a value, a key, a tensor name: a GGUF from elsewhere may carry terminal
 * control sequences in general.name) for a terminal: its first max bytes through bb_term_text
 * (support/term_text.h: control bytes, C1 and bytes that are not UTF-8 as \xNN). */
static void put_text(const char *s, uint64_t n, uint64_t max)
{
    char raw[256], shown[256 * 8 + 1];
    size_t k = (size_t)(n < max ? n : max), at = 0;
    while (at <= k) { /* NUL-separated pieces, each NUL shown as \x00 */
        size_t len = strnlen(s + at, k - at);
        memcpy(raw, s + at, len);
        raw[len] = 0;
        fputs(bb_term_text(raw, shown, sizeof shown), stdout);
        at += len + 1;
        if (at <= k) fputs("\\x00", stdout);
    }
}

static void put_str(const char *s, uint64_t n)
{
    putchar('\'');
    put_text(s, n, SHOW_CHARS);
    putchar('\'');
    if (n > SHOW_CHARS) printf("...(%" PRIu64 " bytes)", n);
}

/* A fixed-size scalar at p: integers exactly, floats with %g, bools as words. */
static void put_scalar(uint32_t type, const uint8_t *p)
{
    int64_t v;
    if (type == BB_GGUF_BOOL) {
        fputs(p[0] ? "true" : "false", stdout);
    } else if (type == BB_GGUF_FLOAT32) {
        float f;
        memcpy(&f, p, 4);
        printf("%.9g", f);
    } else if (type == BB_GGUF_FLOAT64) {
        double d;
        memcpy(&d, p, 8);
        printf("%.17g", d);
    } else if (type == BB_GGUF_UINT64) {
        uint64_t u;
        memcpy(&u, p, 8);
        printf("%" PRIu64, u);
    } else if (bb_gguf_read_int(type, p, &v)) {
        printf("%" PRId64, v);
    }
}

static void put_array(const bb_gguf_array *a, int depth)
{
    printf("%s[%" PRIu64 "] [", bb_gguf_vtype_name(a->type), a->count);
    for (uint64_t i = 0; i < a->count && i < SHOW_ELEMENTS; i++) {
        if (i) fputs(", ", stdout);
        bb_gguf_array sub;
        if (a->type == BB_GGUF_STRING) {
            bb_gguf_str s = bb_gguf_array_str(a, i);
            put_str(s.ptr, s.len);
        } else if (bb_gguf_array_sub(a, i, &sub)) {
            if (depth < 2) put_array(&sub, depth + 1);
            else fputs("...", stdout);
        } else {
            put_scalar(a->type, a->data + i * bb_gguf_vtype_size(a->type));
        }
    }
    fputs(a->count > SHOW_ELEMENTS ? ", ...]" : "]", stdout);
}

static void put_kv(const bb_gguf_kv *kv)
{
    char key[201 * 8];
    {
        char raw[201];
        size_t k = kv->key.len < 200 ? (size_t)kv->key.len : 200;
        memcpy(raw, kv->key.ptr, k);
        raw[k] = 0;
        printf("  %-44s ", bb_term_text(raw, key, sizeof key));
    }
    if (kv->type == BB_GGUF_ARRAY) {
        put_array(&kv->array, 0);
    } else {
        printf("%-8s ", bb_gguf_vtype_name(kv->type));
        if (kv->type == BB_GGUF_STRING) {
            uint64_t n;
            memcpy(&n, kv->value, 8);
            put_str((const char *)kv->value + 8, n);
        } else {
            put_scalar(kv->type, kv->value);
        }
    }
    putchar('\n');
}

static void put_tensor(uint64_t i, const bb_gguf_tensor *t)
{
    char shape[96];
    int o = snprintf(shape, sizeof shape, "[");
    for (int d = 0; d < t->n_dims && o < (int)sizeof shape; d++)
        o += snprintf(shape + o, sizeof shape - (size_t)o, "%s%" PRIu64, d ? ", " : "", t->ne[d]);
    if (o < (int)sizeof shape) snprintf(shape + o, sizeof shape - (size_t)o, "]");
    const bb_ggml_type *ty = bb_ggml_type_by_id(t->type);
    char name[1024];
    printf("  %4" PRIu64 " %-32s %-7s %-20s %12" PRIu64 " %12" PRIu64 "%s\n", i, bb_term_text(t->name, name, sizeof name),
           ty->name, shape, t->offset,
           t->n_bytes, ty->decodes ? "" : "  (not decoded by bitbench)");
}

int bb_cmd_gguf(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: bitbench gguf FILE.gguf\n  validate a GGUF file and list its metadata and tensors\n");
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: bitbench gguf FILE.gguf (one file)\n");
        return 2;
    }
    char err[512];
    bb_gguf *g = bb_gguf_open(argv[1], err, sizeof err);
    if (!g) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("%s: GGUF version %u, %" PRIu64 " bytes, alignment %u, data section at %" PRIu64 "\n", argv[1],
           bb_gguf_version(g), bb_gguf_file_size(g), bb_gguf_alignment(g), bb_gguf_data_offset(g));
    printf("metadata (%" PRIu64 " keys):\n", bb_gguf_kv_count(g));
    for (uint64_t i = 0; i < bb_gguf_kv_count(g); i++) put_kv(bb_gguf_kv_at(g, i));
    printf("tensors (%" PRIu64 "):\n  %4s %-32s %-7s %-20s %12s %12s\n", bb_gguf_tensor_count(g), "#", "name", "type",
           "shape (ne0 first)", "offset", "bytes");
    for (uint64_t i = 0; i < bb_gguf_tensor_count(g); i++) put_tensor(i, bb_gguf_tensor_at(g, i));
    bb_gguf_close(g);
    return 0;
}
