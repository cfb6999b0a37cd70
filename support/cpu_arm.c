#include "cpu_arm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bb_arm_midr bb_arm_midr_split(unsigned long midr)
{
    bb_arm_midr id = {
        .implementer = (unsigned)(midr >> 24) & 0xff,
        .variant = (unsigned)(midr >> 20) & 0xf,
        .part = (unsigned)(midr >> 4) & 0xfff,
        .revision = (unsigned)midr & 0xf,
    };
    return id;
}

/* The number after "key<tabs>: " on the first line that has the key (the first processor's, on a
 * big.LITTLE system the first core's); -1 when no line has it. */
static long cpuinfo_field(const char *text, const char *key)
{
    size_t klen = strlen(key);
    for (const char *line = text; *line;) {
        if (strncmp(line, key, klen) == 0 && (line[klen] == ' ' || line[klen] == '\t' || line[klen] == ':')) {
            const char *colon = strchr(line, ':');
            return colon ? strtol(colon + 1, NULL, 0) : -1;
        }
        const char *nl = strchr(line, '\n');
        if (!nl) break;
        line = nl + 1;
    }
    return -1;
}

int bb_arm_midr_from_cpuinfo(const char *text, bb_arm_midr *id)
{
    long impl = cpuinfo_field(text, "CPU implementer"), part = cpuinfo_field(text, "CPU part");
    if (impl < 0 || part < 0) return -1;
    long variant = cpuinfo_field(text, "CPU variant"), rev = cpuinfo_field(text, "CPU revision");
    id->implementer = (unsigned)impl;
    id->part = (unsigned)part;
    id->variant = variant < 0 ? 0 : (unsigned)variant;
    id->revision = rev < 0 ? 0 : (unsigned)rev;
    return 0;
}

const char *bb_arm_implementer_name(unsigned implementer)
{
    switch (implementer) {
    case 0x00: return "software-defined (an emulator's own CPU model)"; /* "reserved for software use" */
    case 0x41: return "ARM";
    case 0x42: return "Broadcom";
    case 0x46: return "Fujitsu";
    case 0x48: return "HiSilicon";
    case 0x4e: return "NVIDIA";
    case 0x51: return "Qualcomm";
    case 0x61: return "Apple";
    case 0xc0: return "Ampere";
    default: return NULL;
    }
}

static const struct {
    unsigned implementer, part;
    const char *name;
} parts[] = {
    {0x41, 0xd03, "Cortex-A53"},  {0x41, 0xd04, "Cortex-A35"},  {0x41, 0xd05, "Cortex-A55"},
    {0x41, 0xd07, "Cortex-A57"},  {0x41, 0xd08, "Cortex-A72"},  {0x41, 0xd09, "Cortex-A73"},
    {0x41, 0xd0a, "Cortex-A75"},  {0x41, 0xd0b, "Cortex-A76"},  {0x41, 0xd0c, "Neoverse N1"},
    {0x41, 0xd0d, "Cortex-A77"},  {0x41, 0xd40, "Neoverse V1"}, {0x41, 0xd41, "Cortex-A78"},
    {0x41, 0xd44, "Cortex-X1"},   {0x41, 0xd46, "Cortex-A510"}, {0x41, 0xd47, "Cortex-A710"},
    {0x41, 0xd48, "Cortex-X2"},   {0x41, 0xd49, "Neoverse N2"}, {0x41, 0xd4d, "Cortex-A715"},
    {0x41, 0xd4e, "Cortex-X3"},   {0x41, 0xd4f, "Neoverse V2"}, {0x41, 0xd80, "Cortex-A520"},
    {0x41, 0xd81, "Cortex-A720"}, {0x41, 0xd82, "Cortex-X4"},   {0x41, 0xd84, "Neoverse V3"},
    {0x41, 0xd8e, "Neoverse N3"},
    {0x61, 0x022, "Apple M1 Icestorm"}, {0x61, 0x023, "Apple M1 Firestorm"},
    {0x61, 0x032, "Apple M2 Blizzard"}, {0x61, 0x033, "Apple M2 Avalanche"},
    {0xc0, 0xac3, "AmpereOne"},
    {0x00, 0x051, "QEMU 'max'"}, /* QEMU's own model: implementer 0, part 'Q' */
};

const char *bb_arm_part_name(unsigned implementer, unsigned part)
{
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].implementer == implementer && parts[i].part == part) return parts[i].name;
    return NULL;
}

void bb_arm_cpu_model(const bb_arm_midr *id, char *buf, size_t len)
{
    const char *name = bb_arm_part_name(id->implementer, id->part);
    if (name)
        snprintf(buf, len, "%s r%up%u", name, id->variant, id->revision);
    else
        snprintf(buf, len, "Arm CPU implementer 0x%02x part 0x%03x r%up%u", id->implementer, id->part,
                 id->variant, id->revision);
}
