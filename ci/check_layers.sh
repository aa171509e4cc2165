#!/usr/bin/env bash
# ci/check_layers.sh [ROOT]: check #include lines against the layer table of
# STYLE.md section 1. ROOT defaults to the repository holding this script.
#
#   L5 tools     bench/, mpi_shim/launcher      public headers only (the
#                                               launcher: and mpi_shim/boot)
#   L4 MPI shim  mpi_shim/                      include/ (and its own files) only
#                binding -> engine -> transport -> boot
#   L3 I/O       src/io/
#   L2 services  src/sync/ src/timer/ src/signal/ src/cont/
#   L1 sched     src/sched/
#   L0 context   src/arch/
#      util      src/util/                      usable by every layer of src/
#
# Rules checked, for every .c, .h and .S file under src/, mpi_shim/, bench/
# and include/:
#   - inside src/, dependencies point down: a layer includes only its own
#     layer's files, lower layers, util and the public include/. Modules of
#     one layer (the L2 services) may use each other, but not both ways.
#   - util includes nothing from src/ outside util.
#   - a directory of src/ is used from another one only through its export
#     header: arch/ctx.h, sched/sched.h, sync/sync.h, timer/timer.h, io/io.h...
#     (<dir>/<dir>.h; arch exports ctx.h; util exports all of its headers).
#   - nothing outside src/ includes src/ (mpi_shim, bench and the public
#     headers see only include/, plus mpi_shim/include for bench); the public
#     headers include only public headers.
#   - inside mpi_shim/, dependencies point down too:
#       binding -> engine -> transport -> boot
#     (each may include the ones after it), everyone may include the shim's
#     public headers (mpi_shim/include), and the launcher uses only those
#     and the boot protocol it speaks (mpi_shim/boot).
# An include is resolved the way the compiler would: "x.h" first beside the
# including file, then along the include path of its part of the tree;
# anything not found in the tree is a system header and is ignored.
set -u -o pipefail

ROOT="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
ROOT="$(cd "$ROOT" && pwd)" || exit 2
cd "$ROOT" || exit 2

violations=0
nfiles=0
nincludes=0
declare -A sideways=()   # "from>to" for includes between modules of one layer

# rank DIR: layer number of a src/ directory; util is -1; unknown prints nothing.
rank() {
    case "$1" in
        util) echo -1 ;;
        arch) echo 0 ;;
        sched) echo 1 ;;
        sync|timer|signal|cont) echo 2 ;;
        io) echo 3 ;;
    esac
}

layer_name() {
    case "$1" in
        util) echo "util" ;;
        arch) echo "L0 arch" ;;
        sched) echo "L1 sched" ;;
        sync|timer|signal|cont) echo "L2 $1" ;;
        io) echo "L3 io" ;;
        *) echo "$1" ;;
    esac
}

export_header() {
    case "$1" in
        arch) echo "ctx.h" ;;
        *) echo "$1.h" ;;
    esac
}

# shim_rank DIR: layer of an mpi_shim/ directory, bottom 0; unknown prints
# nothing.
shim_rank() {
    case "$1" in
        boot) echo 0 ;;
        transport) echo 1 ;;
        engine) echo 2 ;;
        binding) echo 3 ;;
    esac
}

# violation FILE LINE SPEC MESSAGE
violation() {
    printf '%s:%s: #include %s: %s\n' "$1" "$2" "$3" "$4"
    violations=$((violations + 1))
}

# part VAR FILE: set VAR to the part of the tree FILE belongs to
# (src:<dir>, mpi_shim, bench, include). Sets a variable instead of printing,
# to spare a fork per include.
part() {
    local d=""
    case "$2" in
        src/*/*) d="${2#src/}"; d="src:${d%%/*}" ;;
        src/*) d="src:" ;;
        mpi_shim/*) d="mpi_shim" ;;
        bench/*) d="bench" ;;
        include/*) d="include" ;;
    esac
    printf -v "$1" '%s' "$d"
}

# search_path PART: append to the array `dirs` the include directories the
# build gives that part.
search_path() {
    case "$1" in
        src:*) dirs+=(src include) ;;
        mpi_shim) dirs+=(mpi_shim/include mpi_shim include) ;;
        bench) dirs+=(include mpi_shim/include) ;;
        include) dirs+=(include) ;;
    esac
}

# resolve FILE KIND SPEC: set RESOLVED to the tree-relative path the include
# names, or to "" for a system header.
RESOLVED=""
resolve() {
    local file="$1" kind="$2" spec="$3" dir p
    local dirs=()
    RESOLVED=""
    [[ "$kind" == '"' ]] && dirs+=("${file%/*}")
    part p "$file"
    search_path "$p"
    for dir in "${dirs[@]}"; do
        if [[ -f "$ROOT/$dir/$spec" ]]; then
            RESOLVED="$dir/$spec"
            if [[ "$spec" == *./* ]]; then
                RESOLVED="$(realpath -m --relative-to="$ROOT" "$ROOT/$RESOLVED")"
            fi
            return
        fi
    done
    # Not found on the part's own path: does it name a file of src/ anyway
    # (e.g. "sched/sched.h" from mpi_shim, or a path through ../src)?
    if [[ "$spec" == */* && -f "$ROOT/src/$spec" ]]; then
        RESOLVED="src/$spec"
    elif [[ -f "$ROOT/mpi_shim/include/$spec" ]]; then
        RESOLVED="mpi_shim/include/$spec"   # e.g. <mpi.h> from src/
    fi
}

# check_shim FILE LINE SHOWN TARGET: an include from one file of mpi_shim/
# to another.
check_shim() {
    local file="$1" line="$2" shown="$3" target="$4" fdir tdir r_from r_to
    fdir="${file#mpi_shim/}"; fdir="${fdir%%/*}"
    tdir="${target#mpi_shim/}"; tdir="${tdir%%/*}"
    [[ "$fdir" == "$tdir" || "$tdir" == include ]] && return 0
    if [[ "$fdir" == launcher ]]; then
        [[ "$tdir" == boot ]] && return 0
        violation "$file" "$line" "$shown" \
            "the launcher (L5) uses public headers and the boot protocol (mpi_shim/boot/) only, not $target"
        return 0
    fi
    r_from="$(shim_rank "$fdir")"
    r_to="$(shim_rank "$tdir")"
    if [[ -z "$r_from" || -z "$r_to" ]]; then
        violation "$file" "$line" "$shown" \
            "mpi_shim/$fdir/ -> mpi_shim/$tdir/: not in the shim's layers (binding -> engine -> transport -> boot)"
    elif ((r_to > r_from)); then
        violation "$file" "$line" "$shown" \
            "mpi_shim/$fdir must not depend on mpi_shim/$tdir above it (binding -> engine -> transport -> boot)"
    fi
}

# check FILE LINE KIND SPEC
check() {
    local file="$1" line="$2" kind="$3" spec="$4" target from to fdir tdir r_from r_to
    local shown="$kind$spec\""
    [[ "$kind" == '<' ]] && shown="<$spec>"
    resolve "$file" "$kind" "$spec"
    target="$RESOLVED"
    [[ -n "$target" ]] || return 0   # a system header
    nincludes=$((nincludes + 1))
    part from "$file"
    part to "$target"

    if [[ "$from" != src:* ]]; then
        case "$from:$to" in
            *:include) return 0 ;;
            mpi_shim:mpi_shim) check_shim "$file" "$line" "$shown" "$target"; return 0 ;;
            bench:bench) return 0 ;;
            bench:mpi_shim)
                [[ "$target" == mpi_shim/include/* ]] && return 0 ;;
        esac
        case "$from" in
            include) violation "$file" "$line" "$shown" \
                "public headers include only public headers, not $target" ;;
            mpi_shim) violation "$file" "$line" "$shown" \
                "mpi_shim includes only include/ (the public API), not $target; add what it needs to the public API" ;;
            bench) violation "$file" "$line" "$shown" \
                "benchmarks (L5) use only public headers, not $target" ;;
        esac
        return 0
    fi

    fdir="${from#src:}"
    [[ "$to" == include ]] && return 0
    if [[ "$to" != src:* ]]; then
        violation "$file" "$line" "$shown" "nothing in src/ includes $target (mpi_shim sits above src/)"
        return 0
    fi
    tdir="${to#src:}"
    [[ "$fdir" == "$tdir" ]] && return 0

    r_from="$(rank "$fdir")"
    r_to="$(rank "$tdir")"
    if [[ -z "$r_to" ]]; then
        violation "$file" "$line" "$shown" "src/$tdir/ is not in the layer table (STYLE.md section 1)"
        return 0
    fi
    if [[ "$r_to" != -1 && "$(basename "$target")" != "$(export_header "$tdir")" ]]; then
        violation "$file" "$line" "$shown" \
            "src/$tdir/ is used from other directories only through $tdir/$(export_header "$tdir"); $target is private to it"
    fi
    if [[ "$r_to" == -1 ]]; then
        return 0
    elif [[ "$r_from" == -1 ]]; then
        violation "$file" "$line" "$shown" "util is below every layer; it must not include $(layer_name "$tdir") ($target)"
    elif ((r_to > r_from)); then
        violation "$file" "$line" "$shown" \
            "$(layer_name "$fdir") must not depend on $(layer_name "$tdir") above it (dependencies point down only; reach up through a hook)"
    elif ((r_to == r_from)); then
        sideways["$fdir>$tdir"]="$file:$line"
    fi
}

while IFS= read -r -d '' file; do
    file="${file#./}"
    nfiles=$((nfiles + 1))
    fpart=""
    part fpart "$file"
    if [[ "$file" == src/* && -z "$(rank "${fpart#src:}")" ]]; then
        printf '%s: file outside the layer directories of STYLE.md section 1 (src/<layer>/)\n' "$file"
        violations=$((violations + 1))
        continue
    fi
    while IFS= read -r hit; do
        lineno="${hit%%:*}"
        text="${hit#*:}"
        if [[ "$text" =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*([\"\<])([^\"\>]+)[\"\>] ]]; then
            check "$file" "$lineno" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
        fi
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include' "$file")
done < <(find src mpi_shim bench include -type f \
              \( -name '*.c' -o -name '*.h' -o -name '*.S' -o -name '*.h.in' \) \
              -print0 2>/dev/null | sort -z)

# Modules of one layer may use each other, but only one way round.
for edge in "${!sideways[@]}"; do
    a="${edge%>*}"; b="${edge#*>}"
    if [[ -n "${sideways[$b>$a]:-}" && "$a" < "$b" ]]; then
        printf '%s and %s: src/%s and src/%s include each other; one of them must go through a hook\n' \
            "${sideways[$edge]}" "${sideways[$b>$a]}" "$a" "$b"
        violations=$((violations + 1))
    fi
done

if ((violations)); then
    printf 'check_layers: %d violation(s) of the layer rules (STYLE.md section 1)\n' "$violations"
    exit 1
fi
printf 'check_layers: ok (%d files, %d project includes)\n' "$nfiles" "$nincludes"
