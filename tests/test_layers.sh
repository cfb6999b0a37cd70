#!/bin/sh
# The layers go one way: kernels/ and baselines/ <- support/ <- models/ <- harness/.  Every
# #include "..." in a source file of a lower layer must name a header of its own layer or one
# below.  The header is found the way the compiler finds it: next to the including file, then
# from the source root, then in the folders the libraries export (kernels/, harness/); so
# "../harness/x.h" and an unqualified name that only exists higher up are caught too.
# Inside harness/ the rooms go one way too (docs/design.md, "The rooms of harness/"), lowest
# first:
#   io <- meters <- bench <- results <- plan <- peers <- run <- archive <- report <- cluster
#      <- experiment <- cli
# a file in a room includes headers of its own room and of rooms before it, never after; every
# harness file lies in one of these rooms (a new room is added here, in its place in the order).
# Prints each offending line (file:line: include) and fails if there is any.
# By hand, for the path-qualified spelling (each prints nothing):
#   grep -rn '#include "harness/' kernels baselines support models
#   grep -rn '#include "models/' kernels baselines support
#   grep -rn '#include "support/' kernels baselines
src=${BITBENCH_SOURCE_DIR:-$(dirname "$0")/..}
src=$(cd "$src" && pwd -P) || { echo "FAIL: no source directory"; exit 1; }
fail() { echo "FAIL: $*"; exit 1; }

# rank of the layer a path (relative to the source root) lies in; empty when in none
rank() {
    case $1 in
    kernels/* | baselines/*) echo 0 ;;
    support/*) echo 1 ;;
    models/*) echo 2 ;;
    harness/*) echo 3 ;;
    esac
}

# The source-root-relative path of the header a quoted include in directory $1 names, or the
# name itself when no such file exists (a generated or system header).
resolve() {
    for d in "$1" "$src" "$src/kernels" "$src/harness"; do
        if [ -f "$d/$2" ]; then
            p=$(realpath "$d/$2")
            echo "${p#"$src"/}"
            return
        fi
    done
    echo "$2"
}

# The rooms of harness/, lowest first.
rooms="io meters bench results plan peers run archive report cluster experiment cli"
room_rank() {
    i=0
    for r in $rooms; do
        [ "$r" = "$1" ] && { echo "$i"; return; }
        i=$((i + 1))
    done
}

bad=$(mktemp)
trap 'rm -f "$bad"' EXIT
checked=0
for layer in kernels baselines support models; do
    [ -d "$src/$layer" ] || fail "no folder $layer/ in $src"
    own=$(rank "$layer/")
    find "$src/$layer" -type f \( -name '*.c' -o -name '*.h' \) | sort | while read -r f; do
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r hit; do
            name=$(echo "$hit" | sed 's/^[^"]*"\([^"]*\)".*/\1/')
            target=$(resolve "$(dirname "$f")" "$name")
            r=$(rank "$target")
            if [ -n "$r" ] && [ "$r" -gt "$own" ]; then
                echo "${f#"$src"/}:${hit%%:*}: includes $target (layer above ${layer}/): ${hit#*:}" >>"$bad"
            fi
        done
    done
    checked=$((checked + $(find "$src/$layer" -type f \( -name '*.c' -o -name '*.h' \) | wc -l)))
done
[ "$checked" -gt 50 ] || fail "only $checked source files found under $src"

[ -d "$src/harness" ] || fail "no folder harness/ in $src"
find "$src/harness" -type f \( -name '*.c' -o -name '*.h' \) | sort | while read -r f; do
    rel=${f#"$src"/harness/}
    room=${rel%%/*}
    if [ "$room" = "$rel" ]; then
        echo "harness/$rel: lies in no room (rooms: $rooms)" >>"$bad"
        continue
    fi
    own=$(room_rank "$room")
    if [ -z "$own" ]; then
        echo "harness/$rel: harness/$room/ is not a room of tests/test_layers.sh (rooms: $rooms)" >>"$bad"
        continue
    fi
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r hit; do
        name=$(echo "$hit" | sed 's/^[^"]*"\([^"]*\)".*/\1/')
        target=$(resolve "$(dirname "$f")" "$name")
        case $target in
        harness/*/*) ;;
        *) continue ;;
        esac
        troom=${target#harness/}
        troom=${troom%%/*}
        r=$(room_rank "$troom")
        if [ -n "$r" ] && [ "$r" -gt "$own" ]; then
            echo "harness/$rel:${hit%%:*}: includes $target (room $troom/ comes after $room/): ${hit#*:}" >>"$bad"
        fi
    done
done
harness_files=$(find "$src/harness" -type f \( -name '*.c' -o -name '*.h' \) | wc -l)
[ "$harness_files" -gt 50 ] || fail "only $harness_files source files found under $src/harness"
checked=$((checked + harness_files))
# Within kernels/: a family folder (kernels/<family>/) may include its own folder, kernels/common/
# and the support-free headers at kernels/ itself (kernel.h, cpu.h), never another family's
# folder; machinery two families share lives in kernels/common/ (docs/design.md), which itself
# includes no family's folder.
families=0
for d in "$src"/kernels/*/; do
    fam=$(basename "$d")
    [ "$fam" = common ] || families=$((families + 1))
    find "$d" -type f \( -name '*.c' -o -name '*.h' \) | sort | while read -r f; do
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r hit; do
            name=$(echo "$hit" | sed 's/^[^"]*"\([^"]*\)".*/\1/')
            target=$(resolve "$(dirname "$f")" "$name")
            case $target in
            kernels/common/* | "kernels/$fam"/*) ;;
            kernels/*/*) echo "${f#"$src"/}:${hit%%:*}: includes $target (another family's folder; shared code goes in kernels/common/): ${hit#*:}" >>"$bad" ;;
            esac
        done
    done
done
[ "$families" -ge 3 ] || fail "only $families kernel family folders found under $src/kernels"
if [ -s "$bad" ]; then
    echo "FAIL: includes of a higher layer (kernels, baselines <- support <- models <- harness),"
    echo "      of a later room of harness/ ($rooms), or of another kernel family; or a harness file in no room:"
    cat "$bad"
    exit 1
fi
echo "test_layers: passed ($checked files)"
