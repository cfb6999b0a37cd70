#include "results/run_texts.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/sha256.h"
#include "support/input_file.h"
#include "support/output_file.h"

static int model_name_ok(const char *s, size_t len)
{
    if (!len || s[0] == '.') return 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
              ch == '_' || ch == '-'))
            return 0;
    }
    return 1;
}

int bb_run_text_name_ok(const char *name)
{
    if (!strcmp(name, BB_RUN_EXPERIMENT_TEXT) || !strcmp(name, BB_RUN_DIFF_TEXT)) return 1;
    const char *prefix = BB_RUN_MODELS_DIR "/";
    size_t pl = strlen(prefix), len = strlen(name);
    return len > pl + 4 && len < BB_RUN_TEXT_NAME_MAX && !strncmp(name, prefix, pl) &&
           !strcmp(name + len - 4, ".lua") && model_name_ok(name + pl, len - pl - 4);
}

static void hex_sha256(const char *text, size_t len, char hex[65])
{
    bb_sha256 s;
    uint8_t d[32];
    bb_sha256_init(&s);
    bb_sha256_update(&s, text, len);
    bb_sha256_final(&s, d);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

int bb_run_texts_add(bb_run_text **v, int *n, const char *name, const char *text, size_t len, char *err,
                     size_t errlen)
{
    if (!bb_run_text_name_ok(name)) {
        snprintf(err, errlen, "'%s' is not a text a run folder holds (experiment.lua, models/NAME.lua, source.diff)",
                 name);
        return -1;
    }
    bb_run_text *grown = realloc(*v, sizeof **v * (size_t)(*n + 1));
    char *copy = malloc(len + 1);
    if (grown) *v = grown;
    if (!grown || !copy) {
        free(copy);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(copy, text, len);
    copy[len] = 0;
    bb_run_text *t = &(*v)[(*n)++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->text = copy;
    t->len = len;
    hex_sha256(copy, len, t->sha256);
    return 0;
}

static int read_one(const char *dir, const char *name, bb_run_text **v, int *n, char *err, size_t errlen)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (access(path, F_OK) != 0) return 0;
    size_t len;
    char *text = bb_input_read_all(path, "run text", BB_RUN_TEXT_MAX_BYTES, &len, err, errlen);
    if (!text) return -1;
    int rc = bb_run_texts_add(v, n, name, text, len, err, errlen);
    free(text);
    return rc;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int bb_run_texts_read(const char *dir, bb_run_text **v, int *n, char *err, size_t errlen)
{
    *v = NULL;
    *n = 0;
    if (errlen) err[0] = 0;
    if (read_one(dir, BB_RUN_EXPERIMENT_TEXT, v, n, err, errlen)) goto fail;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, BB_RUN_MODELS_DIR);
    DIR *d = opendir(path);
    if (d) { /* sorted, so that a run reads back the same whatever order the folder lists */
        char **names = NULL;
        int nn = 0, bad = 0;
        for (struct dirent *e; (e = readdir(d)) && !bad;) {
            char name[sizeof BB_RUN_MODELS_DIR + 1 + sizeof e->d_name];
            snprintf(name, sizeof name, "%s/%s", BB_RUN_MODELS_DIR, e->d_name);
            if (!bb_run_text_name_ok(name)) continue;
            char **g = realloc(names, sizeof *g * (size_t)(nn + 1));
            if (!g || !(g[nn] = strdup(name))) bad = 1;
            else nn++;
            if (g) names = g;
        }
        closedir(d);
        qsort(names, (size_t)nn, sizeof *names, cmp_name);
        for (int i = 0; i < nn && !bad; i++) bad = read_one(dir, names[i], v, n, err, errlen);
        for (int i = 0; i < nn; i++) free(names[i]);
        free(names);
        if (bad) {
            if (!err[0]) snprintf(err, errlen, "out of memory reading %s", path);
            goto fail;
        }
    }
    if (read_one(dir, BB_RUN_DIFF_TEXT, v, n, err, errlen)) goto fail;
    return 0;
fail:
    bb_run_texts_free(*v, *n);
    *v = NULL;
    *n = 0;
    return -1;
}

int bb_run_texts_write(const char *dir, const bb_run_text *v, int n, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        char path[4400];
        if (!bb_run_text_name_ok(v[i].name)) {
            snprintf(err, errlen, "'%s' is not a text a run folder holds", v[i].name);
            return -1;
        }
        if (!strncmp(v[i].name, BB_RUN_MODELS_DIR "/", strlen(BB_RUN_MODELS_DIR) + 1)) {
            snprintf(path, sizeof path, "%s/%s", dir, BB_RUN_MODELS_DIR);
            if (mkdir(path, 0777) != 0 && errno != EEXIST) {
                snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
                return -1;
            }
        }
        snprintf(path, sizeof path, "%s/%s", dir, v[i].name);
        bb_output_file o;
        FILE *f = bb_output_begin(&o, path, err, errlen);
        if (!f) return -1;
        if (v[i].len && fwrite(v[i].text, 1, v[i].len, f) != v[i].len) {
            snprintf(err, errlen, "cannot write %s: %s (the previous file, if any, is unchanged)", path,
                     strerror(errno));
            bb_output_abort(&o);
            return -1;
        }
        if (bb_output_commit(&o, err, errlen)) return -1;
    }
    return 0;
}

const bb_run_text *bb_run_texts_find(const bb_run_text *v, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i].name, name)) return &v[i];
    return NULL;
}

void bb_run_texts_free(bb_run_text *v, int n)
{
    for (int i = 0; i < n; i++) free(v[i].text);
    free(v);
}
