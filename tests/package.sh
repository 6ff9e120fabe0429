#!/bin/sh
# tests/package.sh BUILD_DIR - the install and the Debian package as a user
# gets them: `cmake --install` into a fresh prefix (files, SONAME links, no
# build paths), programs built against it with pkg-config and with
# find_package(tiledblas), a BLAS program under LD_PRELOAD of the installed
# library, and the .deb made by cpack, unpacked with dpkg-deb -x and checked
# the same way. As root with dpkg (CI), the .deb is also installed with
# dpkg -i, used by name (LD_PRELOAD=libtiledblas.so.0), removed with
# dpkg -r (no file left) and purged; a trap purges it on every way out, and
# a machine that already has libtiledblas or any of its files is left
# alone (that part is skipped, with a message). Exit 0 pass, 1 fail.
# Needs TB_CMAKE, TB_CPACK, TB_CC, TB_GENERATOR, TB_VERSION, TB_LIBDIR,
# TB_INCLUDEDIR, TB_BINDIR, TB_DOCDIR (the build's GNUInstallDirs) and
# TB_SGEMM_CHECK (tests/sgemm_check, an ordinary program linked to OpenBLAS).
set -u
build=$(cd "${1:?usage: package.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/lib.sh"
ver=${TB_VERSION:?} libdir=${TB_LIBDIR:?} incdir=${TB_INCLUDEDIR:?}
bindir=${TB_BINDIR:?} docdir=${TB_DOCDIR:?} check=${TB_SGEMM_CHECK:?}
so=libtiledblas.so
ok() { echo "ok: $*"; }

# The files every install must hold, under root R (a prefix).
check_tree() { # R WHAT
    r=$1 what=$2
    [ -f "$r/$libdir/$so.$ver" ] && [ ! -L "$r/$libdir/$so.$ver" ] || fail "$what: no $libdir/$so.$ver"
    [ "$(readlink "$r/$libdir/$so.0")" = "$so.$ver" ] || fail "$what: $libdir/$so.0 is not a link to $so.$ver"
    [ "$(readlink "$r/$libdir/$so")" = "$so.0" ] || fail "$what: $libdir/$so is not a link to $so.0"
    soname=$(readelf -d "$r/$libdir/$so.$ver" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [ "$soname" = "$so.0" ] || fail "$what: SONAME is '$soname', not $so.0"
    cmp -s "$r/$incdir/tiledblas.h" "$src/include/tiledblas.h" || fail "$what: no $incdir/tiledblas.h"
    [ -x "$r/$bindir/tiledblas" ] || fail "$what: no $bindir/tiledblas"
    [ -f "$r/$libdir/pkgconfig/tiledblas.pc" ] || fail "$what: no $libdir/pkgconfig/tiledblas.pc"
    for f in tiledblasConfig.cmake tiledblasConfigVersion.cmake tiledblasTargets.cmake; do
        [ -f "$r/$libdir/cmake/tiledblas/$f" ] || fail "$what: no $libdir/cmake/tiledblas/$f"
    done
    cmp -s "$r/$docdir/LICENSE" "$src/LICENSE" || fail "$what: no $docdir/LICENSE"
    grep -q 'BSD 3-Clause' "$r/$docdir/LICENSE" || fail "$what: LICENSE is not BSD-3-Clause"
    # Nothing installed points back into the build or source tree.
    leak=$(grep -rlF -e "$build" -e "$src" "$r/$libdir/pkgconfig" "$r/$libdir/cmake" || true)
    [ -z "$leak" ] || fail "$what: build or source paths in $leak"
    for f in "$r/$libdir/$so.$ver" "$r/$bindir/tiledblas"; do
        readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -qF -e "$build" -e "$src" && fail "$what: $f has a build RPATH"
    done
    ok "$what: library $so.$ver with links $so.0 and $so (SONAME $so.0), header, command, .pc, CMake config, LICENSE"
}

# A BLAS program under LD_PRELOAD=$1: right results, and every call seen by
# the preloaded library (one decision line each at TILEDBLAS_VERBOSE=2).
check_preload() { # PRELOAD WHAT [VAR=VALUE ...]
    pl=$1 what=$2; shift 2
    env "$@" LD_PRELOAD="$pl" TILEDBLAS_VERBOSE=2 "$check" --calls 40 >"$tmp/pre.out" 2>"$tmp/pre.err" \
        || fail "$what: sgemm_check fails under LD_PRELOAD=$pl: $(grep -v ' -> ' "$tmp/pre.err" | head -3)"
    n=$(grep -c '^tiledblas: sgemm.* -> \(gpu\|cpu\) ' "$tmp/pre.err" || true)
    [ "$n" = 40 ] || fail "$what: $n decision lines for 40 calls under LD_PRELOAD=$pl: $(head -3 "$tmp/pre.err")"
    ok "$what: sgemm_check under LD_PRELOAD=$pl: 40 calls intercepted, results right"
}

# The installed command finds the installed library (next to it, ../$libdir).
check_command() { # R WHAT
    "$1/$bindir/tiledblas" run --verbose 2 -- "$check" --calls 5 >/dev/null 2>"$tmp/run.err" \
        || fail "$2: tiledblas run fails: $(head -3 "$tmp/run.err")"
    n=$(grep -c '^tiledblas: sgemm.* -> ' "$tmp/run.err" || true)
    [ "$n" = 5 ] || fail "$2: tiledblas run: $n decision lines for 5 calls: $(head -3 "$tmp/run.err")"
    "$1/$bindir/tiledblas" info >"$tmp/info" 2>&1 || fail "$2: tiledblas info fails: $(head -3 "$tmp/info")"
    grep -qF "$(readlink -f "$1/$libdir/$so.$ver")" "$tmp/info" \
        || grep -qF "$1/$libdir/$so" "$tmp/info" || fail "$2: tiledblas info does not name the installed library: $(head -5 "$tmp/info")"
    ok "$2: $bindir/tiledblas run and info use $libdir/$so.0"
}

# A program of the C API, to build against the install.
cat >"$tmp/use.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <tiledblas.h>
int main(void)
{
    float x = 0;
    Dl_info info;
    if (strcmp(tiledblas_version(), TILEDBLAS_VERSION) != 0) return 1;
    /* An illegal argument is refused (argument 1) before any GPU work. */
    if (tiledblas_sgemm_device('X', 'N', 1, 1, 1, 1.0f, &x, 1, &x, 1, 0.0f, &x, 1, NULL) != 1) return 2;
    if (!dladdr((void *)tiledblas_version, &info) || !info.dli_fname) return 3;
    printf("%s %s\n", tiledblas_version(), info.dli_fname);
    return 0;
}
EOF
# Runs the program PROG built against prefix P: it must report the version and
# the library of that prefix.
check_use() { # PROG P WHAT
    out=$(LD_LIBRARY_PATH="$2/$libdir" "$1") || fail "$3: the program fails (exit $?)"
    [ "${out%% *}" = "$ver" ] || fail "$3: version '${out%% *}', not $ver"
    [ "$(readlink -f "${out#* }")" = "$(readlink -f "$2/$libdir/$so.$ver")" ] \
        || fail "$3: the program loaded ${out#* }, not the installed library"
    ok "$3: built, runs, loads $libdir/$so.0"
}

# 1. cmake --install into a fresh prefix.
p=$tmp/prefix
"${TB_CMAKE:?}" --install "$build" --prefix "$p" >"$tmp/install.log" 2>&1 || fail "cmake --install: $(tail -5 "$tmp/install.log")"
check_tree "$p" "cmake --install --prefix"
grep -qx "prefix=$p" "$p/$libdir/pkgconfig/tiledblas.pc" || fail "tiledblas.pc does not say prefix=$p: $(grep prefix= "$p/$libdir/pkgconfig/tiledblas.pc")"

# 2. pkg-config.
if command -v pkg-config >/dev/null 2>&1; then
    export PKG_CONFIG_PATH="$p/$libdir/pkgconfig"
    [ "$(pkg-config --modversion tiledblas)" = "$ver" ] || fail "pkg-config --modversion tiledblas is not $ver"
    flags=$(pkg-config --cflags --libs tiledblas) || fail "pkg-config --cflags --libs tiledblas fails"
    # shellcheck disable=SC2086
    "${TB_CC:?}" -o "$tmp/use_pc" "$tmp/use.c" $flags 2>"$tmp/cc.err" || fail "cc use.c $flags: $(head -5 "$tmp/cc.err")"
    check_use "$tmp/use_pc" "$p" "pkg-config ($flags)"
    unset PKG_CONFIG_PATH
else
    fail "pkg-config not found (scripts/test.sh installs it)"
fi

# 3. find_package(tiledblas): a version above the installed one is refused.
mkdir "$tmp/cm"
cp "$tmp/use.c" "$tmp/cm/use.c"
cat >"$tmp/cm/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.16)
project(use_tiledblas C)
find_package(tiledblas 99 QUIET)
if(tiledblas_FOUND)
  message(FATAL_ERROR "find_package(tiledblas 99) accepted version \${tiledblas_VERSION}")
endif()
find_package(tiledblas $ver EXACT REQUIRED)
add_executable(use use.c)
target_link_libraries(use PRIVATE tiledblas::tiledblas)
EOF
"$TB_CMAKE" -S "$tmp/cm" -B "$tmp/cm/build" -G "${TB_GENERATOR:?}" -DCMAKE_C_COMPILER="$TB_CC" \
    -DCMAKE_PREFIX_PATH="$p" >"$tmp/cm.log" 2>&1 || fail "find_package project: $(tail -8 "$tmp/cm.log")"
"$TB_CMAKE" --build "$tmp/cm/build" >>"$tmp/cm.log" 2>&1 || fail "find_package project build: $(tail -8 "$tmp/cm.log")"
check_use "$tmp/cm/build/use" "$p" "find_package(tiledblas) + tiledblas::tiledblas"

# 4. A BLAS program under the installed library, and the installed command.
check_preload "$p/$libdir/$so.0" "cmake --install"
check_command "$p" "cmake --install"

# 5. The Debian package, unpacked (never installed here).
if ! command -v dpkg-deb >/dev/null 2>&1; then
    echo "SKIP (part): dpkg-deb not found: the .deb is neither built nor checked"
    pass "install, pkg-config, find_package and preload checked (the .deb skipped)"
fi
"${TB_CPACK:?}" -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/deb" >"$tmp/cpack.log" 2>&1 \
    || fail "cpack -G DEB: $(tail -8 "$tmp/cpack.log")"
deb=$(ls "$tmp"/deb/libtiledblas_"$ver"_*.deb 2>/dev/null | head -1)
[ -f "$deb" ] || fail "cpack made no libtiledblas_${ver}_<arch>.deb: $(ls "$tmp/deb")"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = libtiledblas ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$ver" ] || fail "Version: $(field Version)"
[ "$(field Maintainer)" = "libtiledblas authors" ] || fail "Maintainer: $(field Maintainer)"
field Depends | grep -q '^libc6\b\|[ ,]libc6\b' || fail "Depends has no libc6: '$(field Depends)'"
# Installed-Size (KiB) near what the files take: within 1.3x of their bytes
# (CPack alone counted each link to the library as a copy: about 3x).
isize=$(field Installed-Size)
fbytes=$(dpkg-deb -c "$deb" | awk '$1 ~ /^-/ {s += $3} END {print s + 0}')
awk -v i="$isize" -v b="$fbytes" 'BEGIN { k = b / 1024; exit !(i + 0 > 0 && i <= 1.3 * k && i >= k / 1.3) }' ||
    fail "Installed-Size: $isize KiB for $fbytes bytes of files (want within 1.3x)"
ok ".deb: Installed-Size $isize KiB for $fbytes bytes of files"
field Description | grep -q "single and double" || fail "Description does not say single and double: $(field Description | head -1)"
dpkg-deb -e "$deb" "$tmp/control" || fail "dpkg-deb -e"
grep -qx 'activate-noawait ldconfig' "$tmp/control/triggers" 2>/dev/null \
    || fail "the package has no ldconfig trigger: $(cat "$tmp/control/triggers" 2>&1)"
outside=$(dpkg-deb -c "$deb" | awk '{print $6}' | grep -v '^\./$' | grep -v '^\./usr/' || true)
[ -z "$outside" ] || fail "files outside /usr: $outside"
dpkg-deb -x "$deb" "$tmp/x" || fail "dpkg-deb -x"
check_tree "$tmp/x/usr" ".deb ($(basename "$deb"), Depends: $(field Depends))"
grep -qx "prefix=/usr" "$tmp/x/usr/$libdir/pkgconfig/tiledblas.pc" || fail ".deb: tiledblas.pc does not say prefix=/usr"
# /usr/$libdir must be a directory the loader searches (built in, or in
# ld.so.conf, which the ldconfig trigger reads), so that the name alone works.
interp=$(readelf -l "$check" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
dirs=$({ "$interp" --help 2>/dev/null | sed -n 's/^ *\(\/[^ ]*\) (system search path)$/\1/p'
         cat /etc/ld.so.conf /etc/ld.so.conf.d/*.conf 2>/dev/null | grep '^/'; } | sed 's,/*$,,')
printf '%s\n' "$dirs" | grep -qx "/usr/$libdir" || fail ".deb: /usr/$libdir is not in the loader's search path ($(echo $dirs))"
ok ".deb: /usr/$libdir is in the loader's search path"
# By name, as a user writes it once the package is installed; the unpacked
# directory stands in for /usr/$libdir.
check_preload "$so.0" ".deb, by name" LD_LIBRARY_PATH="$tmp/x/usr/$libdir"
check_preload "$tmp/x/usr/$libdir/$so.0" ".deb"
check_command "$tmp/x/usr" ".deb"

# 6. The .deb installed on this machine with dpkg, used, and removed.
done_what="install, pkg-config, find_package, preload and the .deb (unpacked) checked"
if [ "$(id -u)" != 0 ]; then
    echo "SKIP (part): not root: the .deb is not installed with dpkg here (CI runs this part as root)"
    pass "$done_what"
fi
command -v dpkg >/dev/null 2>&1 || { echo "SKIP (part): dpkg not found: the .deb is not installed"; pass "$done_what"; }
# The package's files and links, and its directories that do not exist yet
# (which dpkg -r must take away again).
files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {sub(/^\./, "", $6); print $6}')
# What this machine's dpkg configuration filters out (path-exclude, unless a
# path-include takes it back: minimal images drop /usr/share/doc) is not
# installed, so it is not looked for.
filters=$(cat /etc/dpkg/dpkg.cfg /etc/dpkg/dpkg.cfg.d/* 2>/dev/null | grep -E '^path-(ex|in)clude=')
dpkg_keeps() { # FILE: the last rule that matches decides
    keep=1
    while IFS='=' read -r rule pat; do
        # shellcheck disable=SC2254 # pat is a glob
        case $1 in $pat) [ "$rule" = path-exclude ] && keep=0 || keep=1 ;; esac
    done <<EOF2
$filters
EOF2
    [ $keep = 1 ]
}
kept=""
for f in $files; do dpkg_keeps "$f" && kept="$kept $f" || echo "note: $f is filtered out by this machine's dpkg configuration"; done
files=$kept
newdirs=$(dpkg-deb -c "$deb" | awk '$1 ~ /^d/ {sub(/^\./, "", $6); print $6}' |
          while read -r d; do [ -e "$d" ] || echo "${d%/}"; done)
# The package's state as dpkg knows it (the last word of its Status:
# installed, config-files, not-installed); nothing when dpkg has forgotten it.
pkg_state() { dpkg-query -W -f='${Status}' libtiledblas 2>/dev/null | awk '{ print $NF }'; }
status=$(pkg_state)
if [ -n "$status" ] && [ "$status" != not-installed ]; then
    echo "SKIP (part): libtiledblas is already known to dpkg here ($status): left alone, not installed over"
    pass "$done_what"
fi
for f in $files; do
    if [ -e "$f" ] || [ -L "$f" ]; then
        echo "SKIP (part): $f exists already: left alone, the .deb not installed over it"
        pass "$done_what"
    fi
done
# dpkg, waiting (up to 2 minutes) while apt or another dpkg holds its lock.
dpkg_run() {
    tries=0
    until dpkg "$@" >"$tmp/dpkg.log" 2>&1; do
        grep -q 'by another process' "$tmp/dpkg.log" && [ $tries -lt 60 ] || return 1
        tries=$((tries + 1))
        sleep 2
    done
}
# From the moment dpkg -i starts until the package is purged, any exit (a
# failed check, or INT, TERM, HUP) purges it first. SIGKILL cannot be
# caught: a ctest timeout can still leave it installed.
installed=0
cleanup() {
    if [ "$installed" = 1 ]; then
        installed=0
        dpkg_run --purge libtiledblas || echo "FAIL: dpkg --purge libtiledblas after a failure: $(tail -3 "$tmp/dpkg.log")"
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
installed=1
dpkg_run -i "$deb" || fail "dpkg -i $(basename "$deb"): $(tail -5 "$tmp/dpkg.log")"
status=$(dpkg-query -W -f='${Status}' libtiledblas 2>&1)
[ "$status" = "install ok installed" ] || fail "dpkg -i: status '$status'"
for f in $files; do
    [ -e "$f" ] || fail "dpkg -i: no $f"
done
[ "$(readlink -f "/usr/$libdir/$so.0")" = "/usr/$libdir/$so.$ver" ] || fail "dpkg -i: /usr/$libdir/$so.0 does not lead to $so.$ver"
cmp -s "/usr/$libdir/$so.$ver" "$tmp/x/usr/$libdir/$so.$ver" || fail "dpkg -i: /usr/$libdir/$so.$ver is not the packaged library"
# The ldconfig trigger ran: the loader's cache names the library (as
# /lib/... where /lib is a link to /usr/lib).
cached=$(ldconfig -p | sed -n "s/^[[:space:]]*$so\.0 (.*) => \(.*\)$/\1/p" | head -1)
[ -n "$cached" ] && [ "$(readlink -f "$cached")" = "/usr/$libdir/$so.$ver" ] ||
    fail "dpkg -i: ldconfig's cache has no $so.0 leading to /usr/$libdir/$so.$ver: $(ldconfig -p | grep tiledblas)"
ok "dpkg -i: installed, /usr/$libdir/$so.0 -> $so.$ver, in ldconfig's cache"
check_preload "$so.0" "dpkg -i, by name"
check_command /usr "dpkg -i"
[ "$(pkg-config --modversion tiledblas 2>/dev/null)" = "$ver" ] ||
    fail "dpkg -i: pkg-config (no PKG_CONFIG_PATH) does not find tiledblas $ver"
ok "dpkg -i: pkg-config finds tiledblas $ver with no PKG_CONFIG_PATH"
dpkg_run -r libtiledblas || fail "dpkg -r libtiledblas: $(tail -5 "$tmp/dpkg.log")"
for f in $files; do
    [ ! -e "$f" ] && [ ! -L "$f" ] || fail "dpkg -r left $f"
done
for d in $newdirs; do
    [ ! -e "$d" ] || fail "dpkg -r left the directory $d"
done
# dpkg keeps a removed package with maintainer scripts (postrm) as
# 'config-files' until it is purged, and some versions forget one without
# them at once; purged, every version forgets it.
status=$(pkg_state)
[ -z "$status" ] || [ "$status" = config-files ] || [ "$status" = not-installed ] ||
    fail "dpkg -r: status '$status'"
dpkg_run --purge libtiledblas || fail "dpkg --purge libtiledblas: $(tail -5 "$tmp/dpkg.log")"
installed=0
status=$(pkg_state)
[ -z "$status" ] || [ "$status" = not-installed ] || fail "dpkg --purge: status '$status', not forgotten"
! ldconfig -p | grep -q "$so" || fail "dpkg -r: ldconfig's cache still lists $(ldconfig -p | grep "$so")"
LD_PRELOAD="$so.0" /bin/true 2>"$tmp/gone.err"
grep -q "object '$so.0' from LD_PRELOAD cannot be preloaded" "$tmp/gone.err" ||
    fail "dpkg -r: LD_PRELOAD=$so.0 still loads something: $(cat "$tmp/gone.err")"
ok "dpkg -r, --purge: $(echo $files | wc -w) files and links gone, directories $(echo $newdirs) gone, dpkg forgot the package, the loader finds no $so.0"
pass "$done_what; the .deb installed with dpkg, used by name, removed and purged"
