/* Is this process running under an emulator?  Under one (qemu-user in CI, running the aarch64
 * build on an x86-64 host) every timing measures the emulator, not the CPU, so results say so
 * (run.json: machine.emulated) and bitbench warns.
 *
 * What is checked, each a positive sign only:
 *   - the host's own view of the process's memory (/proc/thread-self/maps, which qemu-user does
 *     not rewrite as it does /proc/self/maps) maps an emulator binary (a file named qemu-*);
 *   - /proc/cpuinfo describes another architecture than the one this program was built for
 *     (qemu-user passes the host's through);
 *   - on aarch64, MIDR_EL1's implementer is 0, "reserved for software use" (QEMU's 'max' CPU).
 * A full-system emulator (qemu-system with TCG and a real CPU model) shows none of these: "no
 * sign" is not proof, and the reason says what was checked. */
#ifndef BB_EMULATION_H
#define BB_EMULATION_H

#include <stddef.h>

typedef enum {
    BB_EMULATION_UNKNOWN = -1, /* the process's maps could not be read and nothing else showed */
    BB_EMULATION_NONE_SEEN = 0,
    BB_EMULATION_YES = 1,
} bb_emulation;

/* Checks this process; reason gets one line: the sign found, or what was checked. */
bb_emulation bb_emulation_detect(char *reason, size_t len);

/* The pieces, on text (for tests).  The path of a mapped emulator binary in maps text, copied to
 * path; 0, or -1 when none is mapped. */
int bb_emulation_maps_emulator(const char *maps, char *path, size_t len);
/* 1 when cpuinfo text describes a CPU of another architecture than this build's
 * (x86-64: vendor_id / flags lines; aarch64: CPU implementer / Features lines), else 0. */
int bb_emulation_cpuinfo_foreign(const char *cpuinfo);

#endif
