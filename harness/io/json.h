/* A small JSON emitter: nested objects and arrays, strings escaped per RFC 8259, numbers with
 * full precision (%.17g), NaN and infinities written as null (JSON has no such numbers: a value
 * that was not measured is null, never 0).  Output is indented two spaces per level. */
#ifndef BB_JSON_H
#define BB_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define BB_JSON_MAX_DEPTH 32

typedef struct {
    FILE *f;
    int depth;
    bool has_items[BB_JSON_MAX_DEPTH]; /* per level: an item was written, a comma is due */
} bb_json;

void bb_json_init(bb_json *j, FILE *f);
/* In an object, `key` names the member; in an array or at the top level it must be NULL. */
void bb_json_object_begin(bb_json *j, const char *key);
void bb_json_object_end(bb_json *j);
void bb_json_array_begin(bb_json *j, const char *key);
void bb_json_array_end(bb_json *j);
void bb_json_string(bb_json *j, const char *key, const char *v); /* NULL: null */
void bb_json_number(bb_json *j, const char *key, double v);
void bb_json_int(bb_json *j, const char *key, long long v);
void bb_json_bool(bb_json *j, const char *key, bool v);
void bb_json_null(bb_json *j, const char *key);
/* Finish the document (a newline after the top-level value). */
void bb_json_finish(bb_json *j);

/* Write s as a JSON string literal (with the quotes). */
void bb_json_write_escaped(FILE *f, const char *s);

#endif
