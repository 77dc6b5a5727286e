# MediaPipeline: `make demo` and `make test` do all set-up on a fresh Debian 12 machine with Swift 6.
# They install the Debian packages that are missing (FFmpeg's development libraries, and the tools the
# tests use as judges: ffmpeg/ffprobe, faad, GStreamer, sndfile-programs, sox), then build and run.

SWIFT ?= swift
# Recipes use bash (pipefail in the test recipe).
SHELL := /bin/bash
OUT ?= $(CURDIR)/out

# FFmpeg's, libpulse's, SDL2's and libsrt's libraries and headers, for building (SDL2: MediaDisplay's preview window;
# libsrt: MediaIngest's SRT listener); a font for FFmpeg's drawtext filter (text overlays).
BUILD_PACKAGES = pkg-config libavcodec-dev libavdevice-dev libavfilter-dev libavformat-dev libavutil-dev libswresample-dev \
	libswscale-dev libpulse-dev libsdl2-dev libsrt-gnutls-dev fonts-dejavu-core
# Tools nobody here wrote, which the tests use to judge our output (lame writes the MP3 fixtures); valgrind checks the FFmpeg
# interop for leaks and bad pointers; `time` for the benchmarks; PulseAudio's daemon and its paplay/parecord/pactl for the
# live-audio tests (each test starts a private daemon with a null sink); a private X server (Xvfb), an X client that
# draws (ffplay, from ffmpeg) and screenshots taken without this library (xwd, ImageMagick's convert and display) for
# the screen-capture tests; python3-xlib sends a preview window the close message a window manager would.
ORACLE_PACKAGES = ffmpeg faad gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-base-apps gstreamer1.0-plugins-good \
	gstreamer1.0-plugins-bad gstreamer1.0-libav sndfile-programs sox libsox-fmt-all lame mediainfo time valgrind \
	pulseaudio pulseaudio-utils nginx libnginx-mod-rtmp srt-tools xvfb x11-apps x11-utils imagemagick \
	python3-xlib python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-ugly

.PHONY: all deps build test gates typecheck-times memcheck memcheck-run sanitize-run-address sanitize-run-thread demo bench bench-check bench-thresholds clean docs docs-check format lint soak leak-check \
	sanitize sanitize-address sanitize-thread mutants fuzz fuzz-build fuzz-replay fuzz-corpus

all: build

# Installs whichever of the packages is missing (apt-get update first), as root or through sudo.
deps:
	@missing=""; \
	for p in $(BUILD_PACKAGES) $(ORACLE_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing missing Debian packages:$$missing"; \
		if [ "$$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
		$$SUDO apt-get update && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y --no-install-recommends $$missing; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "Swift 6 is required (https://www.swift.org/install/linux/)"; exit 1; }

build: deps
	$(SWIFT) build

# The contributor's loop, under 12 minutes from a fresh clone here (README, "Tests"): swift-format and the
# suite rules (`make lint`), a debug build of everything (the tests run the example executables), then
# every test once (Scripts/run-tests.sh): the real-time suites one at a time, the FFmpeg suites one at a
# time under the leak gate in two shards, the rest (the fuzz corpora's replay among them) in parallel, all at
# once. Each phase's time is printed, and a table of them at the end. What only CI runs (valgrind, docs, the
# allocation gate, the sanitizers) is `make gates`.
PHASE = Scripts/phase.sh

test: deps
	@$(PHASE) --reset
	@$(PHASE) lint $(MAKE) --no-print-directory lint
	@$(PHASE) build $(SWIFT) build --build-tests
	@$(PHASE) tests Scripts/run-tests.sh
	@$(PHASE) --summary

# What CI runs after `make test` (.ci/run; README, "Tests", has the times): the example programs under valgrind
# (`make memcheck`), the documentation with warnings as errors, the allocation gate (a release build of
# Benchmarks/), and the library's tests, fuzz corpora included,
# under AddressSanitizer+LeakSanitizer and under ThreadSanitizer (optimised builds: Scripts/sanitized-build.sh;
# ThreadSanitizer skips the test targets of the modules Swift 6 proves free of data races: Scripts/run-tests.sh).
gates: deps
	@$(PHASE) memcheck $(MAKE) --no-print-directory memcheck-run
	@$(PHASE) docs-check $(MAKE) --no-print-directory docs-check
	@$(PHASE) bench-check $(MAKE) --no-print-directory bench-check
	@$(PHASE) address-build env SWIFT=$(SWIFT) Scripts/sanitized-build.sh address
	@$(PHASE) address-tests $(MAKE) --no-print-directory sanitize-run-address
	@$(PHASE) thread-build env SWIFT=$(SWIFT) Scripts/sanitized-build.sh thread
	@$(PHASE) thread-tests $(MAKE) --no-print-directory sanitize-run-thread
	@$(PHASE) --summary

# The leak gate (Sources/MediaTestSupport/FFmpegLeakGate.swift): with $(LEAK_GATE) set, every test of a suite marked
# `.ffmpegLeakGate` fails when FFmpegResources.liveCount is not back at its value from before the test. The count is
# process-wide, so Scripts/run-tests.sh sets it only in its two test processes that run one test at a time.
# `make leak-check` runs just those suites under the gate.
LEAK_GATE = MEDIAPIPELINE_LEAK_GATE=1

# The suites tagged .valgrind (Scripts/run-tests.sh --memcheck): the example programs of the debug build under
# valgrind's memcheck, every FFmpeg allocation freed and no invalid read or write in the interop
# (Documentation/Reliability.md, "Leak gate and memcheck"). Not in `make test`: valgrind's start-up costs about
# 8 s a program here, 160 s of CPU for the 16 programs; CI runs it in `make gates`.
memcheck: deps
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory memcheck-run

# The same on the debug build `make test` left (`make gates` runs after it: .ci/run), without the 20 s SwiftPM takes
# here to find that nothing needs building.
memcheck-run:
	Scripts/run-tests.sh --memcheck

leak-check:
	$(call run_tests,leak-check,--no-parallel --filter "$$(Scripts/test-suites.py gated)|$$(Scripts/test-suites.py realtime)",$(LEAK_GATE))

# The library's tests, run as `make test` runs them (Scripts/run-tests.sh), under AddressSanitizer (with LeakSanitizer)
# and then under ThreadSanitizer, each in its own optimised build folder (.build-asan, .build-tsan). (Swift on Linux refuses
# -sanitize=undefined.) ExampleTests are not run there: the examples' own code is proven safe by the compiler, and the
# library code they run is run by the library's tests (Scripts/test-suites.py unsanitized). So a sanitized build is the
# test bundle and the few example programs other suites run (Scripts/sanitized-build.sh). Every sanitized process
# writes its reports to $(TEST_LOGS)/<sanitizer>/report.<pid> instead of stderr, so a report in a child whose exit
# status a test does not check still fails the target; the suppressions, each with why it is not ours, are in
# Tests/Sanitizers/. The .valgrind suites run valgrind, which cannot run a sanitized program: they are skipped.
SAN_OPTIONS = log_path=$(TEST_LOGS)/$(1)/report:print_suppressions=0:suppressions=$(CURDIR)/Tests/Sanitizers/$(2).supp
# max_allocation_size_mb: one allocation over 512 MB is a report, the limit libFuzzer's runs have (-malloc_limit_mb),
# so that the fuzz corpora's replay in the test bundle (FuzzCorpusReplayTests) catches a size field that makes a
# parser ask for too much, and so does every other test.
SANITIZER_ENV_address = ASAN_OPTIONS=detect_leaks=1:max_allocation_size_mb=512:$(call SAN_OPTIONS,address,asan) \
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/Sanitizers/lsan.supp
SANITIZER_ENV_thread = TSAN_OPTIONS=$(call SAN_OPTIONS,thread,tsan)
# What in a sanitizer's log file is a report (the rest is the suppression statistics that print_suppressions=0 keeps
# short). A process with a report exits with status 66 (TSan) or 1 (ASan), so `swift test` fails too; the test
# runner's failure branch then prints the reports.
SANITIZER_REPORT = ERROR: |WARNING: ThreadSanitizer|runtime error
SANITIZER_BUILD_address = .build-asan
SANITIZER_BUILD_thread = .build-tsan

sanitize: deps
	$(MAKE) sanitize-address
	$(MAKE) sanitize-thread

sanitize-address sanitize-thread: sanitize-%:
	SWIFT=$(SWIFT) Scripts/sanitized-build.sh $*
	$(MAKE) --no-print-directory sanitize-run-$*

# The tests of a sanitized build (Scripts/run-tests.sh --sanitize), then the reports. PART=rest or PART=live runs
# one part (the reports of an earlier part are kept for a live part, and looked at again).
PART ?= all
sanitize-run-address sanitize-run-thread: sanitize-run-%:
	@[ "$(PART)" = live ] || rm -rf $(TEST_LOGS)/$*
	@mkdir -p $(TEST_LOGS)/$*
	@$(SANITIZER_ENV_$*) Scripts/run-tests.sh --sanitize $* --part $(PART) || { \
		reports=$$(grep -l -a -E '$(SANITIZER_REPORT)' $(TEST_LOGS)/$*/report.* 2>/dev/null); \
		if [ -n "$$reports" ]; then echo "---- sanitizer reports ----"; head -n 60 $$reports; fi; exit 1; }
	@reports=$$(grep -l -a -E '$(SANITIZER_REPORT)' $(TEST_LOGS)/$*/report.* 2>/dev/null); \
	if [ -n "$$reports" ]; then \
		echo "---- $* sanitizer reports ($(TEST_LOGS)/$*/) ----"; head -n 40 $$reports; exit 1; \
	else echo "No $* sanitizer report."; fi

# Runs `swift test --skip-build $(2)` with the environment assignments $(3), keeping its whole output in
# .build/test-logs/$(1).log; when it fails, the failed tests and their issues, the log's last lines and the reports of
# a sanitizer run (in $(TEST_LOGS)/<sanitizer>/) are printed again at the end, where a CI log's tail shows them.
TEST_LOGS = $(CURDIR)/.build/test-logs
define run_tests
	@mkdir -p $(TEST_LOGS)
	@set -o pipefail; $(3) $(SWIFT) test --skip-build $(2) 2>&1 | tee $(TEST_LOGS)/$(1).log || { \
		echo "---- failed in the $(1) tests (whole output: $(TEST_LOGS)/$(1).log) ----"; \
		grep -a -E '✘|error:|Fatal error|^Crash|exited with|signal [0-9]' $(TEST_LOGS)/$(1).log \
			| grep -a -v ' passed after ' | head -60; \
		echo "---- its last lines ----"; tail -n 5 $(TEST_LOGS)/$(1).log; \
		reports=$$(grep -l -a -E '$(SANITIZER_REPORT)' $(TEST_LOGS)/$(firstword $(subst -, ,$(1)))/report.* 2>/dev/null); \
		if [ -n "$$reports" ]; then echo "---- sanitizer reports ----"; head -n 60 $$reports; fi; \
		exit 1; }
endef

# The DocC documentation of the ten library modules (articles, and the programs in Snippets/ they
# show), as one static website in $(DOCS_OUT): serve it with `python3 -m http.server -d $(DOCS_OUT)` and
# open http://localhost:8000/documentation/mediapipeline/ (see README, "Documentation"). Warnings are
# errors: every symbol link must resolve, every parameter be documented. Links to another module's
# symbols are written absolute, ``/MediaCore/MediaError``: they resolve against that module's archive.
DOCS_OUT ?= $(CURDIR)/.build/docs
DOCS_TARGETS = MediaCore MediaBitstream MediaFormats MediaStreaming MediaFFmpeg MediaAudio MediaPulse MediaDisplay MediaIngest \
	MediaPipeline

docs: deps
	$(SWIFT) package --allow-writing-to-directory $(DOCS_OUT) generate-documentation \
		$(foreach target,$(DOCS_TARGETS),--target $(target)) --enable-experimental-combined-documentation \
		--warnings-as-errors --transform-for-static-hosting --output-path $(DOCS_OUT)

# What `make test` runs: the documentation builds without a warning. (The snippets are compiled by
# `swift build`, which builds every Snippets/*.swift as an executable.)
docs-check: docs

# Encodes five seconds of a generated 440 Hz tone to AAC, ten seconds of the generated test pattern
# to H.264, and both together into an MP4, and shows what ffprobe says about the files.
demo: deps
	$(SWIFT) build -c release --product aac-encoder
	$(SWIFT) build -c release --product h264-encoder
	$(SWIFT) build -c release --product av-encoder
	$(SWIFT) build -c release --product live-streamer
	@mkdir -p $(OUT)
	$(SWIFT) run -c release aac-encoder --tone 440 --duration 5 --bitrate 128000 --output $(OUT)/tone-440.aac
	$(SWIFT) run -c release h264-encoder --pattern --size 1280x720 --fps 24 --frames 240 --bitrate 1500000 --keyint 48 \
		--preset veryfast --output $(OUT)/pattern-720p.h264
	$(SWIFT) run -c release av-encoder --pattern --size 1280x720 --fps 30 --tone 440 --duration 10 --bitrate 1500000 \
		--keyint 60 --preset veryfast --output $(OUT)/av-720p.mp4
	$(SWIFT) run -c release live-streamer --to $(OUT)/hls/live.m3u8 --pattern --size 640x360 --fps 30 --tone 440 \
		--duration 6 --bitrate 1000000 --hls-list-size 0 --quiet
	@echo
	@echo "ffprobe says:"
	@ffprobe -v error -count_packets -show_entries stream=codec_name,profile,sample_rate,channels,nb_read_packets \
		-of default=noprint_wrappers=1 $(OUT)/tone-440.aac
	@ffprobe -v error -count_frames -show_entries stream=codec_name,profile,width,height,nb_read_frames \
		-of default=noprint_wrappers=1 $(OUT)/pattern-720p.h264
	@ffprobe -v error -count_packets -show_entries stream=codec_name,duration,nb_read_packets \
		-of default=noprint_wrappers=1 $(OUT)/av-720p.mp4
	@ffprobe -v error -count_frames -show_entries stream=codec_name,nb_read_frames \
		-of default=noprint_wrappers=1 $(OUT)/hls/live.m3u8
	@echo
	@echo "Wrote $(OUT)/tone-440.aac      (play it with: ffplay $(OUT)/tone-440.aac)"
	@echo "Wrote $(OUT)/pattern-720p.h264 (play it with: ffplay $(OUT)/pattern-720p.h264)"
	@echo "Wrote $(OUT)/av-720p.mp4       (play it with: ffplay $(OUT)/av-720p.mp4)"
	@echo "Wrote $(OUT)/hls/live.m3u8     (6 s streamed in real time as HLS; play it with: ffplay $(OUT)/hls/live.m3u8)"

# Side-by-side timing against the ffmpeg CLI; see Benchmarks/README.md.
# Release builds with the Swift runtime linked in (`--static-swift-stdlib`), the way a Linux command-line
# tool is shipped: it saves the ~2 ms of loading the runtime's shared libraries at every start, which
# matters on the 30 ms Annex-B rewrite; FFmpeg's libraries stay shared, as the CLI's are.
BENCH_BUILD = $(SWIFT) build -c release --static-swift-stdlib

bench: deps
	$(BENCH_BUILD) --product aac-encoder
	$(BENCH_BUILD) --product mux-benchmark
	$(BENCH_BUILD) --product h264-encoder
	$(BENCH_BUILD) --product graph-benchmark
	$(BENCH_BUILD) --product av-encoder
	$(BENCH_BUILD) --product transcode
	$(BENCH_BUILD) --product audio-convert
	$(BENCH_BUILD) --product audio-recorder
	$(BENCH_BUILD) --product live-streamer
	$(BENCH_BUILD) --product av-mixer
	$(BENCH_BUILD) --product camera-recorder
	$(BENCH_BUILD) --product media-player
	$(BENCH_BUILD) --product media-relay
	Benchmarks/run.sh

# Soak (not part of `make test`: about 15 minutes): each file-based example on a one-hour generated input
# against a one-minute one (peak memory within 5 %), then 10,000 open/encode/close runs in one process (flat memory,
# no FFmpeg object or descriptor left). See Benchmarks/soak.sh and Documentation/Reliability.md.
SOAK_PRODUCTS = aac-encoder caf-recorder caf-info audio-convert media-info h264-encoder av-encoder transcode soak-loop
soak: deps
	$(foreach product,$(SOAK_PRODUCTS),$(BENCH_BUILD) --product $(product) &&) true
	Benchmarks/soak.sh

# Mallocs per sample of every parser, muxer and stage (Benchmarks/Package.swift, a package of its own on
# ordo-one/benchmark; release build in Benchmarks/.build) against the counts checked in under Benchmarks/Thresholds.
# Fails on any difference: more mallocs is a regression; fewer, run `make bench-thresholds` and commit the new
# counts. Pinned to two CPUs (where there are more), as FFmpeg's H.264 decoder starts a frame thread per CPU.
BENCH_PACKAGE = cd Benchmarks && $$(nproc | awk '$$1 > 2 { print "taskset -c 0,1" }') $(SWIFT) package

bench-check: deps
	@mkdir -p $(TEST_LOGS)
	@set -o pipefail; $(BENCH_PACKAGE) benchmark thresholds check --no-progress 2>&1 | tee $(TEST_LOGS)/bench-check.log \
		|| { grep -q benchmarkThresholdImprovement $(TEST_LOGS)/bench-check.log \
			&& echo "Fewer mallocs than Benchmarks/Thresholds: run make bench-thresholds and commit the new counts."; \
			exit 1; }

# Rewrites Benchmarks/Thresholds from a run (`--format metricP90AbsoluteThresholds`), after a change that
# allocates less (or, said so in its commit, more).
bench-thresholds: deps
	$(BENCH_PACKAGE) --allow-writing-to-package-directory benchmark thresholds update --no-progress

# swift-format (shipped with the Swift toolchain) with the configuration in .swift-format: 4 spaces, 120
# columns, the rules the code already followed. `make format` rewrites the files in place; `make lint`
# (run by `make test`) fails on any difference or rule warning, on a test suite with no time limit or a
# misplaced real-time tag (Scripts/test-suites.py check), on a mutant that no longer applies, and on an
# architecture article whose module map disagrees with Package.swift or the folders
# (Scripts/architecture-map.py check).
FORMAT_PATHS = Package.swift Sources Tests Examples Snippets Benchmarks/Package.swift Benchmarks/Benchmarks Benchmarks/graph-benchmark \
	Benchmarks/mux-benchmark Benchmarks/soak-loop Fuzz/Package.swift Fuzz/Sources

# Hand-made mutation testing (not part of `make test`: about one module rebuild per mutant):
# applies each mutant in Tests/Mutants/mutants.txt, builds, runs the suites it names, restores the
# source and prints KILLED/SURVIVED per mutant; fails if any survived. `make mutants MUTANTS="id ..."`
# runs only those.
mutants: deps
	Scripts/mutants.sh $(MUTANTS)

format:
	$(SWIFT) format format --configuration .swift-format --in-place --recursive --parallel $(FORMAT_PATHS)

lint:
	$(SWIFT) format lint --configuration .swift-format --strict --recursive --parallel $(FORMAT_PATHS)
	Scripts/test-suites.py check
	Scripts/mutants.sh --check
	Scripts/architecture-map.py check

# The functions and expressions the type checker spends more than TYPECHECK_MS on, slowest first, from a
# debug build of everything in a build folder of its own (.build-typecheck, so the usual one keeps its
# flags). A few test expressions of mixed literals once took 5-12 s each (`#expect(abs(Double(a) - b) /
# c <= 0.02)`, a `flatMap` over ranges of sums): typed locals bring each under 0.1 s. Run it when the
# build phase of `make test` grows.
TYPECHECK_MS ?= 400
typecheck-times: deps
	$(SWIFT) build --build-tests --scratch-path .build-typecheck -Xswiftc -Xfrontend \
		-Xswiftc -warn-long-function-bodies=$(TYPECHECK_MS) -Xswiftc -Xfrontend \
		-Xswiftc -warn-long-expression-type-checking=$(TYPECHECK_MS) 2>&1 | \
		sed -nE 's#^$(CURDIR)/([^:]+:[0-9]+):[0-9]+: warning: (.*) took ([0-9]+)ms.*#\3 ms\t\1\t\2#p' | \
		sort -u | sort -rn

# Fuzzing (Fuzz/Package.swift, a package of its own; see Documentation/Reliability.md, "Fuzzing"): one
# libFuzzer target per parser, built with Swift's -sanitize=fuzzer,address. `make fuzz` runs each for
# FUZZ_RUNS executions or FUZZ_TIME seconds, whichever comes first; what it adds to the corpus goes to
# $(FUZZ_SCRATCH)/<target>, what crashes to Fuzz/Crashes/. A size field of 2^63 must not allocate, so
# any malloc over 512 MB is a finding. `make fuzz-replay` runs every target over its checked-in corpus,
# Fuzz/Corpus/<target>, and fails on any crash (neither `make test` nor CI runs it: the test bundle's
# FuzzCorpusReplayTests replays the same corpora through the same calls, also under AddressSanitizer). `make fuzz-corpus` merges fresh seeds
# (Fuzz/make-seeds.sh: fixtures, ../shared/conformance, tiny ffmpeg/sox/lame files) and the scratch
# finds into Fuzz/Corpus, keeping only the inputs that add coverage.
FUZZ_RUNS ?= 10000000
FUZZ_TIME ?= 900
FUZZ_TARGETS ?= $(patsubst Fuzz/Sources/Fuzz%/main.swift,%,$(wildcard Fuzz/Sources/Fuzz*/main.swift))
FUZZ_SCRATCH ?= $(CURDIR)/.build/fuzz
FUZZ_BIN = $(CURDIR)/Fuzz/.build/release
FUZZ_LIMITS = -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=10

fuzz-build: deps
	cd Fuzz && $(SWIFT) build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library

fuzz: fuzz-build
	@mkdir -p Fuzz/Crashes; failed=""; \
	for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_SCRATCH)/$$t; echo "---- fuzzing $$t"; \
		$(FUZZ_BIN)/Fuzz$$t -runs=$(FUZZ_RUNS) -max_total_time=$(FUZZ_TIME) $(FUZZ_LIMITS) \
			-artifact_prefix=Fuzz/Crashes/$$t- $(FUZZ_SCRATCH)/$$t Fuzz/Corpus/$$t || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "Fuzzing found crashes in:$$failed (inputs in Fuzz/Crashes/)"; exit 1; fi

fuzz-replay: fuzz-build
	@failed=""; for t in $(FUZZ_TARGETS); do \
		$(FUZZ_BIN)/Fuzz$$t -runs=0 $(FUZZ_LIMITS) Fuzz/Corpus/$$t 2>&1 | grep -a -E "INITED|ERROR|SUMMARY" \
			| sed "s/^/$$t: /"; [ $${PIPESTATUS[0]} -eq 0 ] || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "The fuzz corpus crashes:$$failed"; exit 1; fi

fuzz-corpus: fuzz-build
	rm -rf $(FUZZ_SCRATCH)-seeds && Fuzz/make-seeds.sh $(FUZZ_SCRATCH)-seeds
	@for t in $(FUZZ_TARGETS); do mkdir -p Fuzz/Corpus/$$t $(FUZZ_SCRATCH)/$$t $(FUZZ_SCRATCH)-seeds/$$t; \
		$(FUZZ_BIN)/Fuzz$$t -merge=1 -max_len=65536 $(FUZZ_LIMITS) Fuzz/Corpus/$$t $(FUZZ_SCRATCH)-seeds/$$t \
			$(FUZZ_SCRATCH)/$$t 2>&1 | grep -a -E "MERGE-OUTER: [0-9]+ new files" | sed "s/^/$$t: /"; \
	done

clean:
	rm -rf .build Benchmarks/.build Fuzz/.build $(OUT)
