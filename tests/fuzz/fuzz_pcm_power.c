/* Fuzz target: the pcm-power text parser (harness/meters/pcm_power_text.c), whole-file and
 * incremental as the live sidecar reads it, and the integration over a region.
 *
 * The input is pcm-power's text output, with or without the relay's time stamps.  It is parsed
 * once whole, then again incrementally in two reads split at a point the last byte picks (the
 * sidecar polls a file still being written).  Seeds: tests/data/pcm_power_sample.txt, plain and
 * stamped (run.sh). */
#include <stdint.h>

#include "fuzz_input.h"
#include "meters/pcm_power_text.h"

enum { MAX_SAMPLES = 256 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bb_pcm_power_sample s[MAX_SAMPLES];
    char err[512];
    bb_pcm_power_region region;
    int n = bb_pcm_parse_power_text(fuzz_input_path(data, size), s, MAX_SAMPLES, err, sizeof err);
    if (n > 0) bb_pcm_power_window(s, n, s[0].t - 1, s[n - 1].t, &region);

    size_t cut = size ? (size_t)data[size - 1] * size / 256 : 0;
    bb_pcm_power_reader r = {0};
    n = bb_pcm_read_power_text(&r, fuzz_input_path(data, cut), s, 0, MAX_SAMPLES, err, sizeof err);
    if (n >= 0) n = bb_pcm_read_power_text(&r, fuzz_input_path(data, size), s, n, MAX_SAMPLES, err, sizeof err);
    if (n > 0) bb_pcm_power_window(s, n, s[0].t, s[n - 1].t + 1, &region);
    return 0;
}
