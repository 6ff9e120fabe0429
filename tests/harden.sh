#!/bin/sh
# tests/harden.sh CASE - libtiledblas and the `tiledblas` command as a guest
# in other people's processes: one case per call, each saying what it
# proves; exit 0 (pass), 1 (fail) or 77 (skipped, with the reason). From
# CMake: TB_LIB, TB_BIN, TB_TOOL, TB_CALLS (an OpenBLAS program), TB_PROBE
# (a program linked to the library itself), TB_EVIL (a library that marks
# when it is loaded), TB_DTOR_MAIN (a program whose library calls sgemm in
# its destructor).
set -u
lib=$TB_LIB
bin=$TB_BIN
. "$(dirname "$0")/lib.sh"
# Every case writes its scratch files (out, err, ...) in a directory of its
# own: ctest runs the cases side by side.
cd "$tmp" || exit 1
case_name=$1
say() { echo "harden.$case_name: $*"; }
# Runs "$@" with a limit: status 124 means it hung.
limited() { timeout 60 "$@"; }
# Fails unless every line of the file starts with "tiledblas: ".
all_lines_ours() {
    bad=$(grep -v -c '^tiledblas: ' "$1")
    [ "$bad" = 0 ] || fail "$2: $bad line(s) not starting 'tiledblas: ': $(grep -v '^tiledblas: ' "$1" | head -3)"
}
count() { grep -c -- "$1" "$2"; }

case $case_name in
setuid)
    say "proves: a setuid-root program linked to the library, run by nobody, takes no"
    say "TILEDBLAS_* / HOME / XDG_* setting: no file is created (log, stats, trace,"
    say "cache), no library named by TILEDBLAS_CPU_BLAS is loaded, no setting is logged;"
    say "the same program and environment run plainly (as root) do all of that"
    [ "$(id -u)" = 0 ] || skip "needs root to make a setuid-root copy (CI runs as root)"
    command -v setpriv >/dev/null || skip "no setpriv (util-linux) to run as nobody"
    nobody=$(id -u nobody 2>/dev/null) || skip "no user nobody"
    nogroup=$(id -g nobody)
    as_nobody() { setpriv --reuid="$nobody" --regid="$nogroup" --clear-groups "$@"; }
    # The program's directory: one nobody can reach, on a filesystem that
    # honours the setuid bit (the probe below says whether it does).
    d=""
    for base in "$bin" /var/tmp /tmp; do
        d=$(mktemp -d "$base/tb-suid.XXXXXX") || continue
        chmod 755 "$d"
        cp "$TB_PROBE" "$d/probe" && chown root:root "$d/probe" && chmod 4755 "$d/probe" || { rm -rf "$d"; d=""; continue; }
        if as_nobody "$d/probe" >"$tmp/probe" 2>&1 && grep -q "^secure 1 euid 0 uid $nobody" "$tmp/probe"; then
            break
        fi
        say "in $base: $(head -1 "$tmp/probe")"
        rm -rf "$d"; d=""
    done
    [ -n "$d" ] || skip "no directory where nobody can run a setuid-root program (nosuid mounts, or the build tree is closed to nobody)"
    trap 'rm -rf "$tmp" "$d"' EXIT
    # Where the settings point: a directory only root may write to.
    v=$tmp/victim
    mkdir -m 700 "$v"
    set -- TILEDBLAS_LOG="$v/log" TILEDBLAS_STATS="$v/stats" TILEDBLAS_TRACE="$v/trace" \
        TILEDBLAS_VERBOSE=2 TILEDBLAS_MODE="$(printf 'x\nforged line')" TILEDBLAS_CPU_BLAS="$TB_EVIL" \
        TB_EVIL_MARKER="$v/evil-loaded" TILEDBLAS_CACHE_DIR="$v/cache" TILEDBLAS_CALIBRATE=force \
        XDG_CACHE_HOME="$v/xdg" HOME="$v/home" PATH="$PATH"
    limited env -i "$@" setpriv --reuid="$nobody" --regid="$nogroup" --clear-groups "$d/probe" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc = 0 ] || fail "the setuid program exited $rc: $(tail -3 "$tmp/err")"
    grep -q "^secure 1 euid 0" "$tmp/out" || fail "not in secure execution: $(cat "$tmp/out")"
    [ -z "$(ls -A "$v")" ] || fail "files were created: $(ls -A "$v")"
    grep -q "forged line" "$tmp/err" && fail "a setting was logged: $(grep -n forged "$tmp/err")"
    grep -q "TILEDBLAS_MODE" "$tmp/err" && fail "TILEDBLAS_MODE was read: $(cat "$tmp/err")"
    # The control: not setuid, the same settings are believed (so the checks
    # above can fail), and the bad value is logged on one line, escaped.
    limited env -i "$@" "$d/probe" >"$tmp/out" 2>"$tmp/err" || fail "the plain run failed"
    [ -e "$v/evil-loaded" ] || fail "control: TILEDBLAS_CPU_BLAS was not loaded in a plain run"
    [ -s "$v/log" ] || fail "control: no log in a plain run"
    grep -q "^tiledblas: TILEDBLAS_MODE='x\\\\x0aforged line' is not one of" "$v/log" \
        || fail "control: the bad value is not logged escaped: $(head -3 "$v/log")"
    all_lines_ours "$v/log" "control log"
    pass "secure execution: nothing created, no library loaded, nothing logged; the plain run did all three" ;;
planted-files)
    say "proves: symbolic links and FIFOs planted at every path the library or the tool"
    say "writes are neither followed nor waited on: the link targets keep their bytes,"
    say "nothing hangs, each refusal is one warning; 'ab' and 'bench --plot' leave"
    say "nothing in TMPDIR"
    mkdir "$tmp/p" && cd "$tmp/p" || fail "mkdir"
    echo precious >victim
    for f in log stats trace; do ln -s "$tmp/p/victim" "link-$f"; mkfifo "fifo-$f"; done
    for kind in link fifo; do
        limited env TILEDBLAS_LOG="$tmp/p/$kind-log" TILEDBLAS_STATS="$tmp/p/$kind-stats" \
            TILEDBLAS_TRACE="$tmp/p/$kind-trace" LD_PRELOAD="$lib" "$TB_CALLS" --calls 8 --threads 2 \
            >out 2>err
        rc=$?
        [ $rc = 0 ] || fail "$kind: exit status $rc (124: it hung)"
        grep -q "tool_calls: 8 calls ok" out || fail "$kind: results changed"
        for var in LOG STATS TRACE; do
            [ "$(count "TILEDBLAS_$var='$tmp/p/$kind-" err)" = 1 ] || fail "$kind: not one warning for TILEDBLAS_$var: $(cat err)"
        done
        grep -q "stats for tool_calls" err || fail "$kind: the report did not fall back to stderr"
    done
    # A FIFO with a reader is refused too (opening it would succeed).
    (exec 3<>fifo-trace; limited env TILEDBLAS_TRACE="$tmp/p/fifo-trace" LD_PRELOAD="$lib" "$TB_CALLS" --calls 4 >out 2>err) \
        || fail "FIFO with a reader: failed or hung"
    grep -q "TILEDBLAS_TRACE='$tmp/p/fifo-trace' cannot be opened (not a regular file" err || fail "FIFO with a reader was not refused: $(cat err)"
    # A device: the report is not lost into it.
    limited env TILEDBLAS_STATS=/dev/full LD_PRELOAD="$lib" "$TB_CALLS" --calls 4 >out 2>err || fail "/dev/full: failed"
    grep -q "TILEDBLAS_STATS='/dev/full' cannot be opened (not a regular file" err || fail "/dev/full not refused: $(cat err)"
    grep -q "stats for tool_calls" err || fail "/dev/full: the report was lost"
    # The tool: run --trace LINK does not empty the target; ab --log LINK and
    # bench --csv/--plot LINK are refused.
    limited "$TB_TOOL" run --trace "$tmp/p/link-trace" -- "$TB_CALLS" --calls 4 >out 2>err || fail "run --trace link: status $?"
    grep -q "run: --trace $tmp/p/link-trace: a symbolic link" err || fail "run --trace link: no message: $(cat err)"
    limited "$TB_TOOL" run --trace "$tmp/p/fifo-trace" -- "$TB_CALLS" --calls 4 >out 2>err || fail "run --trace fifo: status $? (124: hung)"
    limited "$TB_TOOL" ab --runs 1 --log "$tmp/p/link-log" -- "$TB_CALLS" --calls 2 >out 2>err
    [ $? = 1 ] || fail "ab --log link: not refused"
    limited "$TB_TOOL" bench --sizes 16 --reps 1 --csv "$tmp/p/link-stats" >out 2>err
    [ $? = 1 ] || fail "bench --csv link: not refused"
    if command -v gnuplot >/dev/null; then
        ln -s "$tmp/p/victim" pic.png
        limited "$TB_TOOL" bench --sizes 16 --reps 1 --plot "$tmp/p/pic.png" >out 2>err
        [ $? = 1 ] || fail "bench --plot link: not refused"
        grep -q "cannot write $tmp/p/pic.png: a symbolic link" err || fail "bench --plot link: no message: $(tail -2 err)"
    fi
    # animate --svg/--html LINK are refused too.
    ln -s "$tmp/p/victim" pic.svg
    limited "$TB_TOOL" animate --m 33 --n 17 --k 5 --svg "$tmp/p/pic.svg" >out 2>err
    [ $? = 1 ] || fail "animate --svg link: not refused"
    grep -q "cannot write $tmp/p/pic.svg: a symbolic link" err || fail "animate --svg link: no message: $(tail -2 err)"
    [ "$(cat victim)" = precious ] || fail "a link's target was written: $(head -c 200 victim)"
    # Nothing left in TMPDIR (the stats files, CMD's log, the plot's CSV).
    mkdir "$tmp/t"
    TMPDIR=$tmp/t limited "$TB_TOOL" ab --runs 1 -- "$TB_CALLS" --calls 2 >out 2>err || fail "ab: status $?"
    grep -q "were not kept: --log FILE keeps them" out || fail "ab does not say CMD's output was not kept"
    TMPDIR=$tmp/t limited "$TB_TOOL" ab --runs 1 -- sh -c 'echo the-last-words; exit 3' >out 2>err
    [ $? = 1 ] || fail "ab with a failing command: not status 1"
    grep -q "the-last-words" err || fail "ab did not show a failing run's output before removing it"
    if command -v gnuplot >/dev/null; then
        TMPDIR=$tmp/t limited "$TB_TOOL" bench --sizes 16 --reps 1 --plot "$tmp/p/b.png" >out 2>err || fail "bench --plot: status $?"
        [ -s b.png ] || fail "bench --plot drew nothing"
    fi
    [ -z "$(ls -A "$tmp/t")" ] || fail "left in TMPDIR: $(ls -A "$tmp/t")"
    pass "links and FIFOs refused with one warning each, targets intact, no hang, TMPDIR left empty" ;;
gnuplot-name)
    say "proves: a plot file name is never read by gnuplot: names with a backquoted"
    say "command, quotes and a newline are written as named and run nothing (bench and ab)"
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    mkdir "$tmp/g" && cd "$tmp/g" || fail "mkdir"
    name='x`touch INJECTED`.png'
    limited "$TB_TOOL" bench --sizes 32 --reps 1 --plot "$name" >out 2>err || fail "bench: status $?: $(tail -2 err)"
    [ -e INJECTED ] && fail "bench --plot ran the backquoted command"
    head -c 8 "$name" | grep -q PNG || fail "bench did not write '$name'"
    # An absolute name whose backquotes hold a '/': the '/' names a missing
    # directory, so it is refused with a clear error (and runs nothing).
    limited "$TB_TOOL" bench --sizes 32 --reps 1 --plot "$tmp/g/y\`touch $tmp/g/INJECTED\`.png" >out 2>err
    [ $? = 1 ] || fail "bench: a name in a missing directory was not refused"
    grep -q "tiledblas: plot: cannot write" err || fail "no clear error: $(tail -2 err)"
    [ -e INJECTED ] && fail "bench --plot ran the backquoted command (absolute name)"
    name2="$(printf 'q"\\`touch INJECTED`\n@x.svg')"
    limited "$TB_TOOL" ab --runs 1 --plot "$name2" -- "$TB_CALLS" --calls 2 >out 2>err || fail "ab: status $?: $(tail -2 err)"
    [ -e INJECTED ] && fail "ab --plot ran the backquoted command"
    grep -q "<svg" "$name2" || fail "ab did not write the SVG under its name"
    pass "backquotes, quotes, backslash, newline and @ in plot names: written as named, nothing run" ;;
run-options)
    say "proves: 'tiledblas run' takes any number of repeated options (40 x --stats,"
    say "200 of each kind), the last of each wins, and the command runs"
    args=$(for i in $(seq 40); do printf -- '--stats '; done)
    # shellcheck disable=SC2086
    limited "$TB_TOOL" run $args -- /bin/true >out 2>err || fail "40 x --stats: status $?: $(tail -3 err)"
    args=$(for i in $(seq 200); do printf -- '--mode gpu --stats --trace %s --verbose 2 --verify-every 3 ' "$tmp/t$i.jsonl"; done)
    # shellcheck disable=SC2086
    limited "$TB_TOOL" run $args --mode cpu --verbose 0 -- sh -c 'echo "$TILEDBLAS_MODE $TILEDBLAS_VERBOSE $TILEDBLAS_TRACE $TILEDBLAS_VERIFY_EVERY"' >out 2>err \
        || fail "1000 options: status $?: $(tail -3 err)"
    [ "$(cat out)" = "cpu 0 $tmp/t200.jsonl 3" ] || fail "the last option of each kind does not win: $(cat out)"
    pass "repeated options: no overflow, the last one of each kind counts" ;;
trace-max)
    say "proves: the trace stops at TILEDBLAS_TRACE_MAX (4K here) with one JSON line"
    say "saying so and one warning, whole lines before it; unset, all 200 calls are traced"
    limited env TILEDBLAS_TRACE="$tmp/t.jsonl" TILEDBLAS_TRACE_MAX=4K LD_PRELOAD="$lib" "$TB_CALLS" --calls 200 --threads 4 >out 2>err \
        || fail "program failed"
    grep -q "tool_calls: 200 calls ok" out || fail "results changed"
    size=$(wc -c <"$tmp/t.jsonl")
    [ "$size" -le $((4096 + 4 * 2048 + 256)) ] || fail "the trace grew to $size bytes"
    [ "$(count '"trace":"stopped"' "$tmp/t.jsonl")" = 1 ] || fail "not one stop line"
    tail -1 "$tmp/t.jsonl" | grep -q '"trace":"stopped".*"max_bytes":4096' || fail "the stop line is not the last: $(tail -1 "$tmp/t.jsonl")"
    [ "$(count 'TILEDBLAS_TRACE reached TILEDBLAS_TRACE_MAX=4096 bytes' err)" = 1 ] || fail "not one warning: $(cat err)"
    rows=$(grep -c '"seq":' "$tmp/t.jsonl")
    [ "$rows" -gt 0 ] && [ "$rows" -lt 200 ] || fail "$rows call lines"
    python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/t.jsonl" || fail "a line is not JSON"
    rm -f "$tmp/t.jsonl"
    limited env TILEDBLAS_TRACE="$tmp/t.jsonl" LD_PRELOAD="$lib" "$TB_CALLS" --calls 200 --threads 4 >out 2>err || fail "program failed"
    [ "$(grep -c '"seq":' "$tmp/t.jsonl")" = 200 ] || fail "the default cap cut a small trace"
    pass "stopped at $size bytes after $rows calls, one stop line, one warning" ;;
settings)
    say "proves: every bad value is reported (14 at once), escaped, each once, on whole"
    say "lines; 0x10 and 1e30 are not sizes; COPY_THREADS=0 is the default; TRACE=1 is"
    say "refused and writes no file '1'; paths of 4096+ bytes are refused, not cut; an"
    say "unopenable log warns once on stderr; a failed report write warns"
    mkdir "$tmp/s" && cd "$tmp/s" || fail "mkdir"
    esc=$(printf 'fast\n\033[31mred')
    limited env TILEDBLAS_MODE="$esc" TILEDBLAS_VERBOSE=7 TILEDBLAS_THRESHOLD=big TILEDBLAS_FAULT=disk \
        TILEDBLAS_DEVICE=-3 TILEDBLAS_DEVICES=0,,1 TILEDBLAS_VERIFY_EVERY=0 TILEDBLAS_SCOPE=diagonal TILEDBLAS_LEARN=maybe \
        TILEDBLAS_DEVICE_MEMORY=0x10 TILEDBLAS_TRACE_MAX=1e30 TILEDBLAS_STREAMS=99 TILEDBLAS_CALIBRATE=sometimes \
        TILEDBLAS_TRACE=1 TILEDBLAS_COPY_THREADS=-1 LD_PRELOAD="$lib" "$TB_CALLS" --calls 4 >../out 2>../err || fail "program failed"
    grep -q "tool_calls: 4 calls ok" ../out || fail "results changed"
    all_lines_ours ../err "bad values"
    for var in MODE VERBOSE THRESHOLD FAULT DEVICE VERIFY_EVERY SCOPE LEARN DEVICE_MEMORY TRACE_MAX STREAMS CALIBRATE TRACE COPY_THREADS; do
        [ "$(count "^tiledblas: TILEDBLAS_$var=" ../err)" = 1 ] || fail "TILEDBLAS_$var: not reported once: $(cat ../err)"
    done
    grep -q "TILEDBLAS_MODE='fast\\\\x0a\\\\x1b\[31mred' is not" ../err || fail "the value is not escaped: $(grep MODE ../err)"
    grep -q "TILEDBLAS_TRACE='1' is not a file name.*nothing is traced" ../err || fail "TRACE=1 not refused"
    [ -e 1 ] && fail "TRACE=1 wrote a file named 1"
    limited env TILEDBLAS_COPY_THREADS=0 TILEDBLAS_DEVICE_MEMORY=512M TILEDBLAS_TRACE_MAX=2G LD_PRELOAD="$lib" "$TB_CALLS" --calls 4 >../out 2>../err || fail "program failed"
    [ -s ../err ] && fail "good values warned: $(cat ../err)"
    # A path of 5000 bytes: refused, and no file with a cut name appears.
    long=$tmp/s/$(printf '%5000s' | tr ' ' a)
    limited env TILEDBLAS_TRACE="$long" TILEDBLAS_STATS="$long" TILEDBLAS_LOG="$long" LD_PRELOAD="$lib" "$TB_CALLS" --calls 4 >../out 2>../err || fail "program failed"
    for var in TRACE STATS LOG; do
        grep -q "^tiledblas: TILEDBLAS_$var='.*' is not a path shorter than 4096 bytes" ../err || fail "long TILEDBLAS_$var not refused: $(cat ../err)"
    done
    [ -z "$(ls -A "$tmp/s")" ] || fail "a file appeared: $(ls -A "$tmp/s" | cut -c1-80)"
    # %p can make a path too long after parsing: refused the same way.
    # (4095 bytes as set, 10 x %p: longer once the pid has 3 digits or more.)
    base=$tmp/s/
    long=$base$(printf "%$((4095 - ${#base} - 20))s" | tr ' ' b)%p%p%p%p%p%p%p%p%p%p
    limited env TILEDBLAS_TRACE="$long" LD_PRELOAD="$lib" "$TB_CALLS" --calls 4 >../out 2>../err || fail "program failed"
    grep -q "TILEDBLAS_TRACE=.* is 4096 bytes or longer once %p is replaced" ../err || fail "long %p path not refused: $(cat ../err)"
    [ -z "$(ls -A "$tmp/s")" ] || fail "a file appeared: $(ls -A "$tmp/s" | cut -c1-80)"
    # An unopenable log: one line on stderr, the messages follow there.
    limited env TILEDBLAS_LOG=/nonexistent-dir/log TILEDBLAS_MODE=fast LD_PRELOAD="$lib" "$TB_CALLS" --calls 4 >../out 2>../err || fail "program failed"
    [ "$(count "^tiledblas: TILEDBLAS_LOG='/nonexistent-dir/log' cannot be opened (.*); messages go to stderr" ../err)" = 1 ] || fail "no warning about the log: $(cat ../err)"
    grep -q "TILEDBLAS_MODE='fast'" ../err || fail "the messages did not follow on stderr"
    # A report that cannot be written (the file size limit is 0; SIGXFSZ
    # ignored, so write() fails with EFBIG): one warning.
    (trap '' XFSZ; ulimit -f 0; env TILEDBLAS_STATS="$tmp/s/r.txt" LD_PRELOAD="$lib" "$TB_CALLS" --calls 4 2>&1 >/dev/null) | cat >"$tmp/err2"
    grep -q "^tiledblas: writing the report to TILEDBLAS_STATS='$tmp/s/r.txt' failed (File too large); it is lost" "$tmp/err2" \
        || fail "a failed report write gave no warning: $(cat "$tmp/err2")"
    pass "all bad values reported once and escaped; sizes, TRACE=1, long paths, log and report failures said" ;;
exit-dtor)
    say "proves: a program whose library calls sgemm 3 times in its destructor exits as"
    say "fast under the preload (TILEDBLAS_STATS=1, and verify mode) as without it"
    now() { date +%s.%N; }
    t0=$(now); limited "$TB_DTOR_MAIN" >out 2>err || fail "plain run failed"; t1=$(now)
    plain=$(awk "BEGIN {print $t1 - $t0}")
    for env in "TILEDBLAS_STATS=1" "TILEDBLAS_MODE=verify"; do
        t0=$(now); limited env $env LD_PRELOAD="$lib" "$TB_DTOR_MAIN" >out 2>err; rc=$?; t1=$(now)
        took=$(awk "BEGIN {print $t1 - $t0}")
        [ $rc = 0 ] || fail "$env: exit status $rc (124: over 60 s)"
        grep -q "dtor_main: lib 1" out || fail "$env: the program did not run"
        say "$env: $took s (plain: $plain s)"
        awk "BEGIN {exit !($took < $plain + 1.0)}" || fail "$env: exit took $took s, plain $plain s"
    done
    pass "exit under the preload within 1 s of the plain run" ;;
*)
    echo "unknown case $case_name"; exit 1 ;;
esac
