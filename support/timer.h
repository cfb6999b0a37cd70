/* Wall-clock time and the CPU's constant-rate counter, always available: the TSC on x86-64, the
 * generic timer's virtual count CNTVCT_EL0 on aarch64 (at CNTFRQ_EL0's rate, tens of MHz to
 * 1 GHz; the timer meter reports the rate it sees).  Neither is the core clock. */
#ifndef BB_TIMER_H
#define BB_TIMER_H

#include <stdint.h>
#include <time.h>

static inline double bb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline uint64_t bb_rdtsc(void)
{
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
    uint64_t t;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(t));
    return t;
#else
    return 0;
#endif
}

#endif
