#!/bin/sh
# No shell anywhere (issue 29): the sources of bitbench (harness, models, support, kernels,
# baselines) call neither system() nor popen(), nor start a shell by name, and the files that
# start programs are exactly these, each with what chooses the program it runs:
#   harness/cli/cmd_plot.c        gnuplot, found on PATH
#   harness/cli/cmd_slurm.c       this bitbench (/proc/self/exe) for the check; sbatch, on PATH
#   harness/meters/pcm_sidecar.c  the PCM tools: $BB_PCM_MEMORY / $BB_PCM_POWER, else PATH (meter_pcm.c)
#   harness/peers/peer_exec.c     a peer's program: --peer NAME=PATH, its environment variable,
#                                 else PATH (peer.c); never the experiment file
#   harness/report/html_svg.c     this bitbench (/proc/self/exe), `plot`, for the report's images
#   harness/run/source_diff.c     git, on PATH, in the source tree the build came from
# A new place that starts a program fails here until it is added to this list, with what chooses
# its program (docs/reliability.md, "Threat model").  Each runs an argument vector.
src=${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}
cd "$src" || { echo "FAIL: no source directory $src"; exit 1; }
fail=0
for d in harness models support kernels baselines; do
    [ -d "$d" ] || { echo "FAIL: no folder $d/ in $src"; exit 1; }
done
hits=$(grep -rn --include='*.c' --include='*.h' 'system(\|popen(' harness models support kernels baselines)
if [ -n "$hits" ]; then
    echo "FAIL: system() or popen() (a command line a shell would read):"
    echo "$hits"
    fail=1
fi
shells=$(grep -rn --include='*.c' --include='*.h' '"/bin/sh"\|"sh", "-c"\|"/bin/bash"\|"bash", "-c"' harness models support kernels baselines)
if [ -n "$shells" ]; then
    echo "FAIL: a shell started by name:"
    echo "$shells"
    fail=1
fi
allowed="harness/cli/cmd_plot.c harness/cli/cmd_slurm.c harness/meters/pcm_sidecar.c harness/peers/peer_exec.c
harness/report/html_svg.c harness/run/source_diff.c"
spawners=$(grep -rl --include='*.c' 'posix_spawn\|\bexecv\|\bexecl\|\bexecle\|\bfexecve\|\bfork(\|\bvfork(\|\bclone(' \
    harness models support kernels baselines | sort)
[ -n "$spawners" ] || { echo "FAIL: no file starts a program: the pattern no longer matches the sources"; exit 1; }
for f in $spawners; do
    case " $(echo $allowed) " in
    *" $f "*) ;;
    *) echo "FAIL: $f starts a program and is not in tests/test_no_shell.sh's list (say what chooses the program)"; fail=1 ;;
    esac
done
[ "$fail" -eq 0 ] && echo "test_no_shell: passed ($(echo "$spawners" | wc -l) files start programs, each listed)"
exit "$fail"
