#!/bin/sh
# A stand-in for llama.cpp's test-backend-ops (tests have no peer installed): takes only the
# options bitbench gives (perf -o MUL_MAT -b CPU), as the real one refuses others, and prints the
# recorded real output test_backend_ops_c392e50.txt with its shape m=4096 k=14336 replaced by
# $BB_FAKE_M and $BB_FAKE_K (so a test's sweep can use small shapes).  Timings are the recorded ones.
here=$(dirname "$0")
if [ "$*" != "perf -o MUL_MAT -b CPU" ]; then
    echo "Usage: $0 [mode] [-o op] [-b backend]"
    exit 1
fi
sed -e "s/,m=4096,/,m=${BB_FAKE_M:-4096},/" -e "s/,k=14336,/,k=${BB_FAKE_K:-14336},/" "$here/test_backend_ops_c392e50.txt"
