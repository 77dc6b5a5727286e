#!/usr/bin/env bash
# Runs every test once, in five test processes at the same time (the suites are sorted by
# Scripts/test-suites.py, from their @Suite lines):
#
#   live-audio, the suites tagged .realTime (PulseAudio daemons, streaming servers, `--realtime`
#   live-other  examples) in two processes, each one suite and one test at a time, with the FFmpeg leak
#            gate on: those that start a PulseAudio daemon at normal priority, the others (streaming
#            servers and encoders) at nice 5, so that a player or a capture gets most of the CPU when
#            both want it (a debug-built player beside a streaming suite at the same priority underran
#            until what the monitor heard no longer matched the file). Each suite starts its own daemon or
#            server on free loopback ports, so the two do not meet; they mostly wait on real time;
#   gated-1, the other suites marked .ffmpegLeakGate, in two shards of about equal time, each one test
#   gated-2  at a time with the leak gate on: the gate compares a process-wide count before and after each
#            test, so it needs a process where one test runs at a time, and these are those processes
#            (no second run of these suites);
#   unit     everything else, in parallel, at most $UNIT_WIDTH tests at once,
#
# but the suites tagged .valgrind, which run programs under valgrind's memcheck (about 8 s of start-up a
# program here): CI runs them (--memcheck, below, as `make memcheck` in `make gates`).
#
# The gated and unit processes run at the lowest CPU priority (nice 19, in the idle scheduling class), so that the live suites, which
# mostly wait on real time, get the CPU when their streams need it and the others use what is left: on
# two cores the live suites' waits overlap the rest instead of adding to it.
#
# Why the parallel width is bounded: a test's .timeLimit starts when Swift Testing starts the test, and
# an unbounded parallel run starts hundreds at once on two cores, so a trivial test's clock runs out while
# it waits for a thread. With a bound, a test's clock starts when it can run. And each process has an
# outer bound, $TEST_PROCESS_MINUTES: a test that hangs in a blocking call cannot be cancelled by its time
# limit (Swift Testing records the issue, then waits for the test), so the process is stopped and the
# phase fails with the issue in its log, instead of running into CI's limit.
#
# Usage: Scripts/run-tests.sh [--sanitize address|thread [--part rest|live] | --memcheck]
#   With --memcheck, only the .valgrind suites run, from the debug build, in two processes side by side
#   (each one test at a time, with the leak gate on, at normal priority: one of them records from a
#   PulseAudio daemon in real time).
#   With --sanitize, the tests of .build-asan or .build-tsan run in three processes: rest (every suite
#   but the live ones, in parallel, at most $SANITIZER_WIDTH tests at once), then the live ones this
#   sanitizer runs (each real-time suite runs under one of the two) in two shards side by side (see
#   below). ThreadSanitizer skips the test targets of the modules Swift 6 proves free of data races
#   (below). Neither runs ExampleTests, whose example programs' own code the compiler proves safe
#   (Scripts/test-suites.py unsanitized): the library code they run is run under both by the library's
#   test targets. (A sanitized build leaves out the test targets its run skips: Scripts/sanitized-build.sh.)
#   The leak gate is off (the sanitizers judge memory), and the .valgrind suites (valgrind cannot run a
#   sanitized program) are skipped. The sanitizer's options come from the environment (the Makefile).
# Each process's whole output is in $TEST_LOGS/<run>-<group>.log; when one fails, its failed tests and
# the log's last lines are printed at the end. Exit status: 0 when all passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
TEST_LOGS=${TEST_LOGS:-$PWD/.build/test-logs}
mkdir -p "$TEST_LOGS"
UNIT_WIDTH=${UNIT_WIDTH:-4}
SANITIZER_WIDTH=${SANITIZER_WIDTH:-3}

mode="" part=all
if [ "${1:-}" = "--sanitize" ]; then mode=$2; fi
if [ "${1:-}" = "--memcheck" ]; then mode=memcheck; fi
if [ "${3:-}" = "--part" ]; then part=$4; fi
case "$part" in
all | rest | live) ;;
*)
    echo "run-tests.sh: unknown part '$part' (rest or live)" >&2
    exit 2
    ;;
esac
case "$mode" in
"") scratch=.build/debug run=tests minutes=${TEST_PROCESS_MINUTES:-20} ;;
memcheck) scratch=.build/debug run=memcheck minutes=${TEST_PROCESS_MINUTES:-20} ;;
# Sanitized builds are optimised (Scripts/sanitized-build.sh says why).
address) scratch=.build-asan/release run=address minutes=${TEST_PROCESS_MINUTES:-30} ;;
thread) scratch=.build-tsan/release run=thread minutes=${TEST_PROCESS_MINUTES:-30} ;;
*)
    echo "run-tests.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
bundle="$scratch/MediaPipelinePackageTests.xctest"
[ -x "$bundle" ] || {
    echo "run-tests.sh: $bundle is not built (swift build --build-tests first)" >&2
    exit 2
}

live=$(Scripts/test-suites.py realtime) || exit 2
valgrind=$(Scripts/test-suites.py valgrind) || exit 2
gated=$(Scripts/test-suites.py gated) || exit 2
gated1=$(Scripts/test-suites.py gated 1/2) || exit 2
gated2=$(Scripts/test-suites.py gated 2/2) || exit 2
swift_testing=("$bundle" --testing-library swift-testing)

# group NAME NICENESS ENVIRONMENT... -- ARGUMENTS...: starts one test process in the background.
pids=()
names=()
group() {
    local name=$1 niceness=$2
    shift 2
    local environment=()
    while [ "$1" != "--" ]; do
        environment+=("$1")
        shift
    done
    shift
    echo "---- $run-$name: started (whole output: $TEST_LOGS/$run-$name.log)"
    # The lowest priority (19) is also the idle scheduling class (chrt --idle): a waking real-time
    # test then preempts these at once, where at nice 19 alone it waited behind them for up to a time
    # slice (a player's flash 32 ms late, screen frames dropped, monitor recordings that no longer
    # matched: one of these in each of four fresh-clone runs).
    local idle=()
    [ "$niceness" = 19 ] && idle=(chrt --idle 0)
    (
        start=$(date +%s)
        env "${environment[@]}" timeout -k 10 "${minutes}m" "${idle[@]}" nice -n "$niceness" "${swift_testing[@]}" "$@" \
            >"$TEST_LOGS/$run-$name.log" 2>&1
        status=$?
        [ $status -eq 124 ] && echo "---- $run-$name: stopped after $minutes minutes" >>"$TEST_LOGS/$run-$name.log"
        echo "---- $run-$name: $(grep -a -E '(✔|✘) Test run with' "$TEST_LOGS/$run-$name.log" | tail -n 1 |
            sed -E 's/^[^A-Za-z]*//') (exit $status, $(($(date +%s) - start)) s)"
        exit $status
    ) &
    pids+=($!)
    names+=("$name")
}

# With a sanitizer: no leak gate (the sanitizers judge memory), no .valgrind suites (valgrind cannot
# run a sanitized program).
if [ -z "$mode" ] || [ "$mode" = memcheck ]; then
    gate=MEDIAPIPELINE_LEAK_GATE=1 skip=()
else
    unsanitized=$(Scripts/test-suites.py unsanitized) || exit 2
    gate=MEDIAPIPELINE_LEAK_GATE=0 skip=(--skip "$valgrind|$unsanitized")
fi
# ThreadSanitizer skips the test targets of the modules Swift 6's checking already proves free of data
# races (Scripts/test-suites.py race-free: no @unchecked, nonisolated(unsafe), Unmanaged, pthread_...);
# AddressSanitizer and the plain run run them.
racefree=""
if [ "$mode" = thread ]; then racefree="|$(Scripts/test-suites.py race-free)" || exit 2; fi
failed=()
# Waits for the processes started so far, noting the ones that failed.
wait_all() {
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || failed+=("${names[$i]}")
    done
    pids=()
    names=()
}

# Under a sanitizer the real-time suites run after the rest, in two shards side by side: instrumented
# code is two (ASan) to several (TSan) times slower, and even at nice 19 the others' load made the player
# miss real time (AudioPlayerDeviceTests: gaps, and audio lost between the player and the monitor), so
# they keep the machine to themselves. Not even a build at idle priority (SCHED_IDLE) can run beside them,
# though they leave about 80% of the CPU idle: with ThreadSanitizer's build beside them, what PulseAudio's
# monitor heard of the player no longer matched what it played (AudioPlaybackSinkTests,
# AudioPlayerDeviceTests). `--part rest` and `--part live` run one of the two.
if [ -z "$mode" ]; then
    group live-audio 0 "$gate" -- --no-parallel --filter "$(Scripts/test-suites.py realtime audio)"
    group live-other 5 "$gate" -- --no-parallel --filter "$(Scripts/test-suites.py realtime other)"
    group gated-1 19 "$gate" -- --no-parallel --filter "$gated1"
    group gated-2 19 "$gate" -- --no-parallel --filter "$gated2"
    group unit 19 -- --experimental-maximum-parallelization-width "$UNIT_WIDTH" --skip "$live|$gated|$valgrind"
elif [ "$mode" = memcheck ]; then
    group memcheck-1 0 "$gate" -- --no-parallel --filter "$(Scripts/test-suites.py valgrind 1/2)"
    group memcheck-2 0 "$gate" -- --no-parallel --filter "$(Scripts/test-suites.py valgrind 2/2)"
elif [ "$part" != live ]; then
    # Without the gate nothing needs a process of its own: the gated and unit suites share one parallel
    # process, whose width keeps both cores busy to the end instead of waiting on the longer shard.
    group rest 19 -- --experimental-maximum-parallelization-width "$SANITIZER_WIDTH" --skip "$live|$valgrind|$unsanitized$racefree"
fi
wait_all
if [ -n "$mode" ] && [ "$mode" != memcheck ] && [ "$part" != rest ]; then
    # Each real-time suite runs under one of the two sanitizers, not both (Scripts/test-suites.py
    # sanitized-realtime): they mostly wait on real time, and the library code they run is run under both
    # by the other suites. Two shards side by side: each suite still runs alone in its process, and each
    # suite starts its own daemon or server on free loopback ports, so the two do not meet.
    group live-1 0 "$gate" -- --no-parallel --filter "$(Scripts/test-suites.py sanitized-realtime "$mode" 1/2)" "${skip[@]}"
    group live-2 0 "$gate" -- --no-parallel --filter "$(Scripts/test-suites.py sanitized-realtime "$mode" 2/2)" "${skip[@]}"
    wait_all
fi
[ ${#failed[@]} -eq 0 ] && exit 0

for name in "${failed[@]}"; do
    log="$TEST_LOGS/$run-$name.log"
    echo "---- failed in the $run-$name tests (whole output: $log) ----"
    grep -a -E '✘|error:|Fatal error|^Crash|exited with|signal [0-9]' "$log" | grep -a -v ' passed after ' | head -60
    echo "---- its last lines ----"
    tail -n 5 "$log"
done
exit 1
