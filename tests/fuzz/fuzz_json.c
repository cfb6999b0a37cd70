/* Fuzz target: the JSON reader (harness/io/json_read.c) that reads run.json for --resume and
 * merge, and machine-profile.json for `bitbench plot`.
 *
 * The input is a document, parsed from memory (bb_json_parse) and then from a file
 * (bb_json_load, the path --resume takes); the tree is walked whole, every object's members
 * looked up by their own names.  Seeds: run.json of a --smoke run, tests/data/plot_results and
 * tests/data/peers (run.sh). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "io/json_read.h"

static volatile double sink;

static void walk(const bb_jv *v, int depth)
{
    switch (v->type) {
    case BB_JV_STR: sink += (double)strlen(v->str); break;
    case BB_JV_NUM: sink += isfinite(v->num) ? v->num : 0; break;
    case BB_JV_OBJ:
        for (int i = 0; i < v->n; i++) {
            if (!bb_jv_get(v, v->keys[i])) abort(); /* a member is found by its own name */
            (void)bb_jv_str(v, v->keys[i]);
            (void)bb_jv_num(v, v->keys[i]);
        }
        /* fall through */
    case BB_JV_ARR:
        for (int i = 0; i < v->n; i++) walk(&v->items[i], depth + 1);
        break;
    default: break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    char *text = fuzz_input_string(data, size);
    bb_jv *v = bb_json_parse(text, err, sizeof err);
    free(text);
    if (v) {
        walk(v, 0);
        bb_jv_free(v);
    }
    v = bb_json_load(fuzz_input_path(data, size), err, sizeof err);
    bb_jv_free(v);
    return 0;
}
