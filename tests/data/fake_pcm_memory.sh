#!/bin/sh
# A stand-in for pcm-memory in the meter tests: the same arguments (INTERVAL -csv=FILE -f) and
# pcm-memory 202302's CSV layout for one socket with two channels in the default partial-writes
# mode (see harness/meters/pcm_csv.h): two header rows, then one row per interval stamped with the
# local date and time, values padded to 8 (System: 10) characters; constant bandwidths (System
# Read 1234.50, Write 617.25 MB/s), until SIGINT or SIGTERM.
dt=$1
out=${2#-csv=}
printf ',,SKT0,SKT0,SKT0,SKT0,SKT0,SKT0,SKT0,SKT0,System,System,System\n' >"$out"
printf 'Date,Time,Ch0Read,Ch0Write,Ch1Read,Ch1Write,Mem Read (MB/s),Mem Write (MB/s),P. Write (T/s),Memory (MB/s),Read,Write,Memory\n' >>"$out"
trap 'exit 0' INT TERM
while :; do
    sleep "$dt"
    printf '%s,%8.2f,%8.2f,%8.2f,%8.2f,%8.2f,%8.2f,%10d,%8.2f,%10.2f,%10.2f,%10.2f\n' \
        "$(date +%Y-%m-%d,%H:%M:%S.%3N)" 617.25 308.62 617.25 308.63 1234.50 617.25 1520 1851.75 1234.50 617.25 1851.75 >>"$out"
done
