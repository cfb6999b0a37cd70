#!/bin/sh
# A stand-in for pcm-power in the meter tests: the same arguments (INTERVAL -m -1 -p -1) and
# pcm-power 202302's text layout on stdout (see harness/meters/pcm_power_text.h) for two sockets:
# a dashed line at the top of each iteration, then after the interval "Time elapsed" and the
# per-socket energy lines.  Constant power: package 30.00 + 20.25 = 50.25 W, DRAM 4.00 + 2.50 =
# 6.50 W; until SIGINT or SIGTERM.
dt=$1
# per-interval energy consistent with the power; units of 2^-14 J (package) and 2^-16 J (DRAM)
set -- $(awk "BEGIN { d = $dt; printf \"%d %.2f %d %.2f %d %.2f %d %.2f %d\", d * 1000 + 0.5, \
    30 * d, 30 * d * 16384, 4 * d, 4 * d * 65536, 20.25 * d, 20.25 * d * 16384, 2.5 * d, 2.5 * d * 65536 }")
ms=$1
echo "Intel(r) Performance Counter Monitor (fake for the bitbench tests)" >&2
trap 'exit 0' INT TERM
while :; do
    echo "----------------------------------------------------------------------------------------------"
    sleep "$dt"
    echo "Time elapsed: $ms ms"
    echo "Called sleep function for $ms ms"
    echo "S0; Consumed energy units: $3; Consumed Joules: $2; Watts: 30.00; Thermal headroom below TjMax: 41"
    echo "S0; Consumed DRAM energy units: $5; Consumed DRAM Joules: $4; DRAM Watts: 4.00"
    echo "S1; Consumed energy units: $7; Consumed Joules: $6; Watts: 20.25; Thermal headroom below TjMax: 44"
    echo "S1; Consumed DRAM energy units: $9; Consumed DRAM Joules: $8; DRAM Watts: 2.50"
done
