/* Fuzz target: what `bitbench run --repeat RUN_DIR` reads of a run folder from elsewhere
 * (harness/run/run_repeat.c): its run.json (the input), whose "sources" name the texts to check —
 * experiment.lua and models/NAME.lua, each against its recorded sha256 — and the folder's texts
 * read as `db import` and `compare` read them (results/run_texts.c).  A name from the input must
 * never become a path outside the folder: every accepted name passes bb_run_text_name_ok, which is
 * also run on the input itself.  Outside means a component ".." ("models/../x"), an absolute path
 * or a hidden component ("models/.x"); two dots inside a file name ("models/a..lua", the model
 * "a.") stay inside the folder.
 *
 * The folder is made once in /tmp (an experiment.lua and a models/tiny.lua) and removed at exit;
 * run.json is rewritten for each input.  Seeds: tests/fuzz/regressions/run_folder (a good run.json, names with "..",
 * absolute paths, hidden files, a wrong sha256). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_input.h"
#include "results/run_texts.h"
#include "run/run_repeat.h"

static char dir[64];

/* Could name lead out of the run folder or to a hidden file?  A component "..", an absolute path,
 * a component beginning with '.'. */
static int leaves_folder(const char *name)
{
    if (name[0] == '/' || name[0] == '.') return 1;
    for (const char *p = strchr(name, '/'); p; p = strchr(p + 1, '/'))
        if (p[1] == '.' || p[1] == '/' || p[1] == '\0') return 1;
    return 0;
}

static void put(const char *name, const void *data, size_t size)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) exit(1);
    if (size) fwrite(data, 1, size, f);
    fclose(f);
}

/* The folder goes when the process ends: nothing is left behind. */
static void remove_dir(void)
{
    static const char *const names[] = {"models/tiny.lua", "experiment.lua", "run.json", "models", ""};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[160];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        atexit(remove_dir);
        snprintf(dir, sizeof dir, "/tmp/bb_fuzz_run_folder_%d", (int)getpid());
        char models[96];
        snprintf(models, sizeof models, "%s/models", dir);
        if (mkdir(dir, 0700) != 0 || mkdir(models, 0700) != 0) exit(1);
        put("experiment.lua", "-- x\n", 5);
        put("models/tiny.lua", "return {}\n", 10);
    }
    put("run.json", data, size);
    char err[4096];
    bb_repeat r;
    if (bb_repeat_prepare(dir, &r, err, sizeof err) == 0 && strncmp(r.file, dir, strlen(dir))) abort();
    bb_run_text *t;
    int n;
    if (bb_run_texts_read(dir, &t, &n, err, sizeof err) == 0) {
        for (int i = 0; i < n; i++)
            if (!bb_run_text_name_ok(t[i].name) || leaves_folder(t[i].name)) abort();
        bb_run_texts_free(t, n);
    }
    char *name = fuzz_input_string(data, size);
    if (bb_run_text_name_ok(name) && leaves_folder(name)) abort();
    free(name);
    return 0;
}
