/* Reading JSON (RFC 8259) back: the run sidecar (run.json, for --resume) and the machine profile
 * (machine-profile.json, for `bitbench plot`).  The whole document becomes a tree of values;
 * members are found by name, so readers do not depend on the writer's layout or key order.
 * json.h is the writer. */
#ifndef BB_JSON_READ_H
#define BB_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { BB_JV_NULL, BB_JV_BOOL, BB_JV_NUM, BB_JV_STR, BB_JV_ARR, BB_JV_OBJ } bb_jv_type;

typedef struct bb_jv {
    bb_jv_type type;
    bool b;                          /* BOOL */
    double num;                      /* NUM */
    char *str;                       /* STR, decoded (UTF-8) */
    int n;                           /* ARR, OBJ: number of items */
    char **keys;                     /* OBJ: the member names */
    struct bb_jv *items;             /* ARR, OBJ */
} bb_jv;

/* Parse a document; NULL with err ("offset N: what was expected") when it is not JSON. */
bb_jv *bb_json_parse(const char *text, char *err, size_t errlen);
/* The largest JSON file bb_json_load reads: run.json and the sidecars are kilobytes; 64 MiB bounds
 * what a shared run directory can cost (the file is read whole, then parsed into a tree). */
#define BB_JSON_MAX_BYTES ((uint64_t)64 << 20)

/* Read and parse a file, only a regular one of at most BB_JSON_MAX_BYTES (support/input_file.h);
 * NULL with err naming the file. */
bb_jv *bb_json_load(const char *path, char *err, size_t errlen);
void bb_jv_free(bb_jv *v);

/* The member named key of an object (the first, if repeated); NULL when v is not an object or
 * has no such member. */
const bb_jv *bb_jv_get(const bb_jv *v, const char *key);
/* A member's string (NULL unless it is a string) and number (NAN unless it is a number). */
const char *bb_jv_str(const bb_jv *v, const char *key);
double bb_jv_num(const bb_jv *v, const char *key);

#endif
