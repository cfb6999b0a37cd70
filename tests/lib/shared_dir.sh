# Sourced by the shell tests that read the test data directory (docs/getting-started.md, "Test
# data": the tiny models, llama2.c's and llama.cpp's golden outputs): $SHARED is
# $BITBENCH_SHARED_DIR, else the folder shared beside the source tree, as shared_dir() of
# tests/files.h finds it for the C tests.
SHARED="${BITBENCH_SHARED_DIR:-${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}/../shared}"
