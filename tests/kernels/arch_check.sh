#!/bin/sh
# tests/kernels/arch_check.sh LIB BINDIR SPEC... - each SPEC is
# NAME,NAME,...:ARCH,ARCH,... (kernel files and the CMake architectures they
# are built for): LIB must hold each file's machine code (cuobjdump
# --list-elf) for every ARCH that is not "-virtual" and its PTX (--list-ptx)
# for every ARCH that is not "-real". Exit 77 when no cuobjdump is found
# (PATH, then BINDIR) or an ARCH is not a number (all, native).
lib=$1 bindir=$2
shift 2
cuobjdump=$(command -v cuobjdump || true)
[ -n "$cuobjdump" ] || [ ! -x "$bindir/cuobjdump" ] || cuobjdump=$bindir/cuobjdump
if [ -z "$cuobjdump" ]; then
    echo "arch_check: SKIP: no cuobjdump"
    exit 77
fi
elf=$("$cuobjdump" --list-elf "$lib") || exit 1
ptx=$("$cuobjdump" --list-ptx "$lib") || exit 1
echo "$elf"
echo "$ptx"
bad=0
want() {   # want LISTING FILE
    if echo "$1" | grep -q " $2\$"; then
        echo "arch_check: $2"
    else
        echo "arch_check: FAIL: no $2 in $lib"
        bad=1
    fi
}
for spec in "$@"; do
    names=$(echo "${spec%%:*}" | tr , ' ')
    for a in $(echo "${spec#*:}" | tr , ' '); do
        n=${a%%-*}
        case $n in ''|*[!0-9a]*) echo "arch_check: SKIP: architecture '$a' is not a number"; exit 77 ;; esac
        for f in $names; do
            case $a in *-virtual) ;; *) want "$elf" "$f.sm_$n.cubin" ;; esac
            case $a in *-real) ;; *) want "$ptx" "$f.sm_$n.ptx" ;; esac
        done
    done
done
exit $bad
