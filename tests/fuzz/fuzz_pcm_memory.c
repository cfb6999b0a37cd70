/* Fuzz target: the pcm-memory CSV parser (harness/meters/pcm_csv.c), whole-file and
 * incremental as the live sidecar reads it, and the window averaging over what it returns.
 *
 * The input is a pcm-memory -csv file.  It is parsed once whole, then again incrementally in
 * two reads split at a point the last byte picks (a sidecar polls a file still being written,
 * so the reader resumes in the middle of a row).  Seeds: tests/data/pcm_memory_sample.csv. */
#include <stdint.h>

#include "fuzz_input.h"
#include "meters/pcm_csv.h"

enum { MAX_SAMPLES = 256 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bb_pcm_sample s[MAX_SAMPLES];
    char err[512];
    double rd, wr;
    int n = bb_pcm_parse_memory_csv(fuzz_input_path(data, size), s, MAX_SAMPLES, err, sizeof err);
    if (n > 0) bb_pcm_window(s, n, s[0].t - 1, s[n - 1].t, 0.1, &rd, &wr);

    size_t cut = size ? (size_t)data[size - 1] * size / 256 : 0;
    bb_pcm_memory_reader r = {0};
    n = bb_pcm_read_memory_csv(&r, fuzz_input_path(data, cut), s, 0, MAX_SAMPLES, err, sizeof err);
    if (n >= 0) n = bb_pcm_read_memory_csv(&r, fuzz_input_path(data, size), s, n, MAX_SAMPLES, err, sizeof err);
    if (n > 0) bb_pcm_window(s, n, s[0].t, s[n - 1].t + 1, 1.0, &rd, &wr);
    return 0;
}
