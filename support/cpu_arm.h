/* Which Arm CPU this is, from its Main ID Register (MIDR_EL1): the implementer and part numbers
 * named as Linux's arch/arm64/include/asm/cputype.h and the vendors' manuals name them.  Arm's
 * /proc/cpuinfo has no "model name": it lists these numbers ("CPU implementer : 0x41", "CPU part
 * : 0xd0c"), and a part this table does not know is reported by its numbers. */
#ifndef BB_CPU_ARM_H
#define BB_CPU_ARM_H

#include <stddef.h>

typedef struct {
    unsigned implementer, variant, part, revision;
} bb_arm_midr;

/* The fields of a MIDR_EL1 value. */
bb_arm_midr bb_arm_midr_split(unsigned long midr);
/* From /proc/cpuinfo text (the first processor's lines); 0, or -1 when it has no "CPU
 * implementer" and "CPU part" (not an Arm kernel's cpuinfo). */
int bb_arm_midr_from_cpuinfo(const char *text, bb_arm_midr *id);
/* "ARM", "Apple", "Ampere" ...; NULL when unknown. */
const char *bb_arm_implementer_name(unsigned implementer);
/* "Neoverse N1", "Cortex-A72" ...; NULL when unknown. */
const char *bb_arm_part_name(unsigned implementer, unsigned part);
/* "Neoverse N1 r3p1", or "Arm CPU implementer 0x41 part 0xd99 r0p0" for an unknown part. */
void bb_arm_cpu_model(const bb_arm_midr *id, char *buf, size_t len);

#endif
