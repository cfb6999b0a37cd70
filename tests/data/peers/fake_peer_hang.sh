#!/bin/sh
# A peer that hangs (a child of it too, holding its output open): the runner's time limit must
# end the whole process group.
echo "llama-bench: loading..." >&2
sleep 300 &
sleep 300
