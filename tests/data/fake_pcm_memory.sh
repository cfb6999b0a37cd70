#!/bin/sh
# A stand-in for pcm-memory in the meter tests: the same arguments (INTERVAL -csv=FILE), pcm's
# two-row CSV header, one row per interval stamped with the local time, constant bandwidths
# (System Read 1234.5, Write 617.25 MB/s), until SIGINT or SIGTERM.
dt=$1
out=${2#-csv=}
printf ',,SKT0,SKT0,SKT0,System,System,System\nDate,Time,Mem Read (MB/s),Mem Write (MB/s),Memory (MB/s),Read,Write,Memory\n' >"$out"
trap 'exit 0' INT TERM
while :; do
    sleep "$dt"
    date "+%Y-%m-%d,%H:%M:%S.%3N,1234.5,617.25,1851.75,1234.5,617.25,1851.75" >>"$out"
done
