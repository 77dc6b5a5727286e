#!/usr/bin/env python3
"""Times MediaPipeline's aac-encoder against `ffmpeg -c:a aac` on the same WAV, side by side.

Runs both commands alternately RUNS times (default 5) under /usr/bin/time and prints the medians of
wall time, CPU time (user + system) and peak resident memory, and their ratios (ours / ffmpeg's).
Also checks that both outputs are byte-identical, and that our peak memory is flat in the input
length (a 60-minute input against a 1-minute one).

Wall-clock time on a shared 2-core machine varies by ±15 % from run to run, more than the
difference being measured, so the script also counts instructions with valgrind's callgrind on a
1-minute input: a figure that is the same on every run (SKIP_CALLGRIND=1 skips it).

Then (unless SKIP_MUX=1) times mux-benchmark's CAF and ADTS muxing and parsing of 10 minutes of AAC
packets against `ffmpeg -c copy`, checks the outputs, and counts heap allocations per packet with
valgrind's memcheck (1-minute against 2-minute input).

Environment: RUNS (default 5), BENCH_DIR (default /tmp/mediapipeline-bench), SKIP_FLAT=1 to skip
the 60-minute memory check, SKIP_CALLGRIND=1 to skip the instruction counts, SKIP_AAC=1 to skip
the AAC encoder section, SKIP_MUX=1 to skip the muxing section, SKIP_VIDEO=1 to skip the H.264
section (h264-encoder against `ffmpeg -c:v libx264` on 600 frames of 1280x720, and Annex-B
parse + rewrite against `ffmpeg -c copy -f h264`), SKIP_GRAPH=1 to skip the wave-2 section
(graph_section.py: stage hop cost against GStreamer, A/V encode to MP4, the graph's drivers, remux),
SKIP_AUDIOFILE=1 to skip the audio-file section (audio_file_section.py), SKIP_MIXING=1 to skip the fan-in
section (mixing_section.py: av-mixer against GStreamer's audiomixer and ffmpeg's overlay), SKIP_VIDEO_IO=1 to skip
the video in-and-out section (video_io_section.py: camera-recorder --screen against ffmpeg -f x11grab, media-player
against ffplay), SKIP_INGEST=1 to skip the ingest section (ingest_section.py: media-relay against nginx-rtmp
recording and writing HLS for 20 publishers), SKIP_EXPORT=1 to skip the export section (export_section.py:
transcode --export-preset 1280x720 against the equivalent ffmpeg command on a 1080p movie), SKIP_CODECS=1 to
skip the codecs section (codecs_section.py: transcode --video-codec hevc|av1|vp9 against ffmpeg with libx265,
libsvtav1, libvpx-vp9 and the same settings), SKIP_LIVE=1 to skip the two
live sections: live_audio_section.py (audio-recorder against `ffmpeg -f pulse`) and, after
it, live_streaming_section.py (live-streamer against `ffmpeg -re … -f flv` to a local nginx RTMP
server, 720p30 + AAC: CPU, and latency on a normal and a throttled link); LIVE_SECONDS
(default 60) sets their length, LIVE_RUNS (default 1) the repeats of each streaming CPU comparison.
"""
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

RUNS = int(os.environ.get("RUNS", "5"))
WORK = os.environ.get("BENCH_DIR", "/tmp/mediapipeline-bench")
ENCODER = os.path.abspath(".build/release/aac-encoder")
H264ENCODER = os.path.abspath(".build/release/h264-encoder")
MUXBENCH = os.path.abspath(".build/release/mux-benchmark")
TRANSCODE = os.path.abspath(".build/release/transcode")


def make_wav(path, minutes):
    """A 48 kHz stereo s16 WAV of two tones plus noise, so the encoder has real work to do."""
    if os.path.exists(path):
        return
    expr = ("0.4*sin(2*PI*440*t)+0.05*(random(0)-0.5)|"
            "0.4*sin(2*PI*660*t)+0.05*(random(1)-0.5)")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"aevalsrc={expr}:s=48000:d={minutes * 60}",
                    "-c:a", "pcm_s16le", path], check=True)


def make_packets(path, minutes):
    """ADTS AAC-LC 128 kb/s packets of the same signal as make_wav, encoded by ffmpeg."""
    if os.path.exists(path):
        return
    expr = ("0.4*sin(2*PI*440*t)+0.05*(random(0)-0.5)|"
            "0.4*sin(2*PI*660*t)+0.05*(random(1)-0.5)")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"aevalsrc={expr}:s=48000:d={minutes * 60}",
                    "-c:a", "aac", "-b:a", "128k", "-f", "adts", path], check=True)


def timed(command):
    """Runs `command` under /usr/bin/time; returns (wall s, cpu s, peak KiB). Wall time is taken here
    with a monotonic clock (/usr/bin/time rounds it to 10 ms, too coarse for runs of 30 ms)."""
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M"] + command,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stderr}")
    _, user, system, peak = result.stderr.strip().splitlines()[-1].split()
    return wall, float(user) + float(system), int(peak)


def user_and_kernel(commands, runs):
    """Median user-space and kernel CPU seconds of each (label, command), alternating, from the child's
    rusage (wait4, microsecond resolution): the time spent in the program and its libraries against the
    time spent in system calls (for a rewrite into /dev/null, mostly copying the input out of the page
    cache)."""
    samples = {label: [] for label, _ in commands}
    for i in range(runs):
        for label, command in (commands if i % 2 == 0 else commands[::-1]):
            child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
            if child.returncode != 0:
                sys.exit(f"failed: {' '.join(command)}")
            samples[label].append((usage.ru_utime, usage.ru_stime))
    return {label: (statistics.median(u for u, _ in v), statistics.median(s for _, s in v))
            for label, v in samples.items()}


def compare(name, commands, runs=RUNS, remove=None):
    """Runs each (label, command) pair `runs` times, rotating the order every round so that none
    always runs first, and prints medians and ratios against the last pair (the reference).
    `remove` maps a label to the files its command writes; they are deleted (untimed) before each of
    its runs, and the file system is synced (untimed), so that no command waits for the kernel to write
    back what a previous run left there."""
    samples = {label: [] for label, _ in commands}
    for i in range(runs):
        order = commands[i % len(commands):] + commands[:i % len(commands)]
        for label, command in order:
            for path in (remove or {}).get(label, ()):
                if os.path.exists(path):
                    os.remove(path)
            if remove:
                os.sync()
            samples[label].append(timed(command))
    med = {k: [statistics.median(x[j] for x in v) for j in range(3)] for k, v in samples.items()}
    reference = commands[-1][0]
    print(f"\n{name}  (medians of {runs} rotating runs; ratio = row / {reference}, ≤ 1.0 is as good or better)")
    print(f"  {'':26}{'wall s':>9}{'CPU s':>9}{'peak MiB':>10}{'wall':>8}{'CPU':>7}{'mem':>7}")
    for label, _ in commands:
        w, c, m = med[label]
        r = [med[label][j] / med[reference][j] for j in range(3)]
        print(f"  {label:26}{w:9.3f}{c:9.2f}{m / 1024:10.1f}{r[0]:8.2f}{r[1]:7.2f}{r[2]:7.2f}")
    return med


def main():
    os.makedirs(WORK, exist_ok=True)
    if os.environ.get("SKIP_AAC") != "1":
        aac_encoder_section()
    if os.environ.get("SKIP_MUX") != "1":
        mux_section()
    if os.environ.get("SKIP_VIDEO") != "1":
        video_section()
    if os.environ.get("SKIP_GRAPH") != "1":
        from graph_section import graph_section
        graph_section()
    if os.environ.get("SKIP_AUDIOFILE") != "1":
        from audio_file_section import audio_file_section
        audio_file_section()
    if os.environ.get("SKIP_MIXING") != "1":
        from mixing_section import mixing_section
        mixing_section()
    if os.environ.get("SKIP_VIDEO_IO") != "1":
        from video_io_section import video_io_section
        video_io_section()
    if os.environ.get("SKIP_LIVE") != "1":
        from live_audio_section import live_audio_section
        live_audio_section()
        from live_streaming_section import live_streaming_section
        live_streaming_section()
    if os.environ.get("SKIP_INGEST") != "1":
        from ingest_section import ingest_section
        ingest_section()
    if os.environ.get("SKIP_EXPORT") != "1":
        from export_section import export_section
        export_section()
    if os.environ.get("SKIP_CODECS") != "1":
        from codecs_section import codecs_section
        codecs_section()


def aac_encoder_section():
    if not os.path.exists(ENCODER):
        sys.exit("build first: swift build -c release --product aac-encoder")
    wav = os.path.join(WORK, "in-10min.wav")
    make_wav(wav, 10)
    ours_out = os.path.join(WORK, "ours.aac")
    cli_out = os.path.join(WORK, "ffmpeg.aac")
    parallel_out = os.path.join(WORK, "ours-parallel.aac")
    parallel = [ENCODER, "--quiet", "--parallel", "--input", wav, "--bitrate", "128000", "--output", parallel_out]
    ours = [ENCODER, "--quiet", "--no-parallel", "--input", wav, "--bitrate", "128000", "--output", ours_out]
    threads_out = os.path.join(WORK, "ours-threads.aac")
    threads = [ENCODER, "--quiet", "--threads", "--input", wav, "--bitrate", "128000", "--output", threads_out]
    theirs = ["ffmpeg", "-v", "error", "-y", "-i", wav, "-c:a", "aac", "-b:a", "128k", "-f", "adts", cli_out]
    print("AAC encoding: 10 minutes of 48 kHz stereo s16 WAV → AAC-LC 128 kb/s → ADTS")
    compare("aac-encoder vs ffmpeg -c:a aac -b:a 128k -f adts", [
        ("aac-encoder (--parallel)", parallel), ("aac-encoder --no-parallel", ours),
        ("aac-encoder --threads", threads), ("ffmpeg CLI", theirs)])
    cli_bytes = open(cli_out, "rb").read()
    same = open(ours_out, "rb").read() == cli_bytes and open(threads_out, "rb").read() == cli_bytes
    print(f"  --no-parallel and --threads byte-identical to the CLI: {'yes' if same else 'NO'}")
    def packet_total(path):
        return subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-show_entries",
                               "stream=nb_read_packets", "-of", "csv=p=0", path],
                              capture_output=True, text=True).stdout.strip()
    print(f"  packets (ffprobe): --parallel {packet_total(parallel_out)}, CLI {packet_total(cli_out)}")
    from aac_parallel_section import aac_parallel_section
    aac_parallel_section(wav, ours_out)

    if os.environ.get("SKIP_CALLGRIND") != "1" and shutil.which("valgrind"):
        short = os.path.join(WORK, "in-1min.wav")
        make_wav(short, 1)
        counts = {}
        for key, command in (("ours", ours), ("theirs", theirs)):
            command = [short if c == wav else c for c in command]
            log = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + command,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
            match = re.search(r"Collected : (\d+)", log)
            counts[key] = int(match.group(1)) if match else 0
        if counts["theirs"]:
            print("\nInstructions executed (valgrind callgrind, 1-minute input; repeatable)")
            print(f"  MediaPipeline {counts['ours'] / 1e9:8.3f} G")
            print(f"  ffmpeg CLI    {counts['theirs'] / 1e9:8.3f} G")
            print(f"  ratio         {counts['ours'] / counts['theirs']:8.3f}")

    if os.environ.get("SKIP_FLAT") != "1":
        short = os.path.join(WORK, "in-1min.wav")
        two = os.path.join(WORK, "in-2min.wav")
        long = os.path.join(WORK, "in-60min.wav")
        make_wav(short, 1)
        make_wav(two, 2)
        make_wav(long, 60)
        print("\nMemory flatness (aac-encoder peak RSS by input length)")
        for mode, first in (("--no-parallel", short), ("--parallel", two)):
            peaks = {}
            for path in (first, long):
                _, _, peak = timed([ENCODER, "--quiet", mode, "--input", path,
                                    "--output", os.path.join(WORK, "flat.aac")])
                peaks[os.path.basename(path)] = peak
            (a, pa), (b, pb) = peaks.items()
            print(f"  {mode:14} {a}: {pa / 1024:6.1f} MiB, {b}: {pb / 1024:6.1f} MiB, "
                  f"difference {(pb - pa) / 1024:+.1f} MiB")


def heap_allocs(command):
    """Total heap allocations of `command`, from valgrind memcheck's summary."""
    log = subprocess.run(["valgrind", "--tool=memcheck"] + command,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True).stderr
    match = re.search(r"total heap usage: ([\d,]+) allocs", log)
    return int(match.group(1).replace(",", "")) if match else None


def packet_count(mode, path):
    """Packets mux-benchmark reports for `path` (from its stderr line)."""
    line = subprocess.run([MUXBENCH, mode, path, "-"], stderr=subprocess.PIPE, text=True, check=True).stderr
    return int(re.search(r"packets=(\d+)", line).group(1))


def mux_section():
    if not os.path.exists(MUXBENCH):
        sys.exit("build first: swift build -c release --product mux-benchmark")
    packets = os.path.join(WORK, "packets-10min.aac")
    make_packets(packets, 10)
    out_caf = os.path.join(WORK, "out.caf")
    out_aac = os.path.join(WORK, "out.aac")
    out_ff = os.path.join(WORK, "out-ff.aac")
    print("\nMuxing: 10 minutes of AAC-LC 128 kb/s packets (ADTS, made by ffmpeg), no decoding")
    write = compare("writing: mux-benchmark vs ffmpeg -c copy -f adts", [
        ("CAF write (ours)", [MUXBENCH, "caf-write", packets, out_caf]),
        ("ADTS rewrite (ours)", [MUXBENCH, "adts", packets, out_aac]),
        ("ffmpeg -c copy -f adts", ["ffmpeg", "-v", "error", "-y", "-i", packets, "-c", "copy", "-f", "adts", out_ff])])
    read = compare("reading: mux-benchmark vs ffmpeg -c copy -f null", [
        ("CAF read (ours)", [MUXBENCH, "caf-read", out_caf, "-"]),
        ("ADTS read (ours)", [MUXBENCH, "adts-read", packets, "-"]),
        ("ffmpeg -c copy -f null", ["ffmpeg", "-v", "error", "-i", packets, "-c", "copy", "-f", "null", "-"])])
    for name, med, caf, adts, ff in (("write", write, "CAF write (ours)", "ADTS rewrite (ours)", "ffmpeg -c copy -f adts"),
                                     ("read", read, "CAF read (ours)", "ADTS read (ours)", "ffmpeg -c copy -f null")):
        ratio = med[caf][0] / med[adts][0]
        print(f"  {name}: CAF / ADTS wall {ratio:.2f} (target ≤ 1.5: {'met' if ratio <= 1.5 else 'NOT met'}); "
              f"vs ffmpeg: CAF {med[caf][0] / med[ff][0]:.2f}, ADTS {med[adts][0] / med[ff][0]:.2f} "
              f"(target < 1: {'met' if med[caf][0] < med[ff][0] and med[adts][0] < med[ff][0] else 'NOT met'})")
    same = open(out_aac, "rb").read() == open(packets, "rb").read()
    print(f"  ADTS rewrite byte-identical to its input: {'yes' if same else 'NO'}")
    count = packet_count("adts-read", packets)
    probe = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets",
                            "-of", "csv=p=0", out_caf], stdout=subprocess.PIPE, text=True).stdout.strip()
    print(f"  ffprobe packets in out.caf: {probe}, packets in input: {count} "
          f"({'equal' if probe == str(count) else 'DIFFERENT'})")

    if shutil.which("valgrind"):
        inputs = {}
        for minutes in (1, 2):
            path = os.path.join(WORK, f"packets-{minutes}min.aac")
            make_packets(path, minutes)
            inputs[minutes] = path
        # caf-read reads the CAF that caf-write made from the same input.
        cafs = {m: os.path.join(WORK, f"alloc-{m}min.caf") for m in inputs}
        print("\nHeap allocations (valgrind memcheck; per packet = Δallocs / Δpackets, 2 min − 1 min)")
        print(f"  {'':12}{'allocs 1 min':>14}{'allocs 2 min':>14}{'packets 1':>11}{'packets 2':>11}{'per packet':>12}")
        for mode in ("caf-write", "adts", "caf-read", "adts-read"):
            allocs, counts = {}, {}
            for m, path in inputs.items():
                if mode == "caf-read":
                    command = [MUXBENCH, mode, cafs[m], "-"]
                elif mode == "caf-write":
                    command = [MUXBENCH, mode, path, cafs[m]]
                elif mode == "adts":
                    command = [MUXBENCH, mode, path, os.path.join(WORK, "alloc.aac")]
                else:
                    command = [MUXBENCH, mode, path, "-"]
                allocs[m] = heap_allocs(command)
                counts[m] = packet_count("adts-read", path)
            if None in allocs.values():
                print(f"  {mode:12} (no memcheck summary)")
                continue
            per = (allocs[2] - allocs[1]) / (counts[2] - counts[1])
            print(f"  {mode:12}{allocs[1]:14}{allocs[2]:14}{counts[1]:11}{counts[2]:11}{per:12.2f}")


def make_y4m(path, frames, size="1280x720"):
    """`frames` frames of testsrc2 plus temporal noise at 30 fps as YUV4MPEG2 (yuv420p), made once."""
    if os.path.exists(path):
        return
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=size={size}:rate=30,noise=alls=12:allf=t+u", "-frames:v", str(frames),
                    "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", path], check=True)


def make_h264(path, y4m, bitrate):
    """An Annex-B stream of `y4m` by the ffmpeg CLI (x264 veryfast, gop 30), made once."""
    if os.path.exists(path):
        return
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", y4m, "-c:v", "libx264", "-preset", "veryfast",
                    "-b:v", bitrate, "-g", "30", "-f", "h264", path], check=True)


def framemd5(path):
    """The per-frame hashes of `ffmpeg -i path -f framemd5 -` (hash column only)."""
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "framemd5", "-"],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    return [line.split(",")[-1].strip() for line in out.splitlines() if line and not line.startswith("#")]


def video_section():
    if not os.path.exists(H264ENCODER) or not os.path.exists(MUXBENCH):
        sys.exit("build first: swift build -c release --product h264-encoder --product mux-benchmark")
    y4m = os.path.join(WORK, "in-600-720p.y4m")
    make_y4m(y4m, 600)
    ours_out = os.path.join(WORK, "ours.h264")
    cli_out = os.path.join(WORK, "cli.h264")
    print("\nH.264 encoding: 600 frames of 1280x720 (testsrc2 + noise, y4m) → 1.5 Mb/s, gop 30, preset veryfast")
    med = compare("h264-encoder vs ffmpeg -c:v libx264 -preset veryfast -b:v 1500k -g 30 -f h264", [
        ("h264-encoder", [H264ENCODER, "--quiet", "--input", y4m, "--bitrate", "1500000", "--keyint", "30",
                          "--preset", "veryfast", "--output", ours_out]),
        ("ffmpeg CLI", ["ffmpeg", "-v", "error", "-y", "-i", y4m, "-c:v", "libx264", "-preset", "veryfast",
                        "-b:v", "1500k", "-g", "30", "-f", "h264", cli_out])], remove={"h264-encoder": [ours_out], "ffmpeg CLI": [cli_out]})
    ratio = med["h264-encoder"][0] / med["ffmpeg CLI"][0]
    print(f"  encode wall ratio {ratio:.2f} (target ≤ 1.0: {'met' if ratio <= 1.0 else 'NOT met'})")
    same_bytes = open(ours_out, "rb").read() == open(cli_out, "rb").read()
    same_frames = framemd5(ours_out) == framemd5(cli_out)
    print(f"  streams byte-identical: {'yes' if same_bytes else 'no'}; decoded frames identical (framemd5): "
          f"{'yes' if same_frames else 'NO'} (both with x264's automatic threads)")

    # Parse + rewrite: a large stream (600 frames at 20 Mb/s, three times over: an Annex-B stream may be
    # concatenated), Annex-B → AnnexBReader → AnnexBMuxer.
    one = os.path.join(WORK, "large-20M.h264")
    make_h264(one, y4m, "20M")
    large = os.path.join(WORK, "large-20M-x3.h264")
    if not os.path.exists(large):
        with open(large, "wb") as out:
            data = open(one, "rb").read()
            out.write(data * 3)
    size = os.path.getsize(large)
    # The reference command writes to standard output (`-f h264 -`), and so does ours; the
    # target is judged there, with standard output on /dev/null, so that what is timed is parsing and
    # rewriting. The same two commands are also timed writing into a pipe (a reader such as a player
    # on the other end) and into a file on disk, where the kernel's copies weigh on both alike.
    ours = [MUXBENCH, "annexb", large, "-"]
    theirs = ["ffmpeg", "-v", "error", "-i", large, "-c", "copy", "-f", "h264", "-"]
    title = f"Annex-B parse + rewrite of {size / 1e6:.0f} MB (1800 frames)"
    print(f"\n{title}, to standard output:")
    sinks = {}
    med = compare(f"{title}: mux-benchmark annexb x.h264 - vs ffmpeg -i x.h264 -c copy -f h264 - (stdout: /dev/null)",
                  [("AnnexB rewrite (ours)", ours), ("ffmpeg -c copy -f h264", theirs)], runs=max(RUNS, 11))
    sinks["/dev/null"] = med
    split = user_and_kernel([("AnnexB rewrite (ours)", ours), ("ffmpeg -c copy -f h264", theirs)], max(RUNS, 11))
    print("  user-space / kernel CPU (medians, from wait4's rusage):")
    for label, (user, system) in split.items():
        print(f"    {label:24} user {user:.3f} s, kernel {system:.3f} s")
    piped = lambda command: ["sh", "-c", " ".join(command) + " | cat > /dev/null"]
    sinks["a pipe (| cat)"] = compare(f"{title}, piped: ... - | cat > /dev/null",
                                      [("AnnexB rewrite (ours)", piped(ours)),
                                       ("ffmpeg -c copy -f h264", piped(theirs))], runs=max(RUNS, 11))
    rewrite_out = os.path.join(WORK, "rewrite.h264")
    cli_rewrite_out = os.path.join(WORK, "rewrite-ff.h264")
    sinks["a file"] = compare(f"{title}, into a file on disk (previous output deleted, untimed)", [
        ("AnnexB rewrite (ours)", [MUXBENCH, "annexb", large, rewrite_out]),
        ("ffmpeg -c copy -f h264", theirs[:-1] + ["-y", cli_rewrite_out])],
        runs=max(RUNS, 11), remove={"AnnexB rewrite (ours)": [rewrite_out],
                                    "ffmpeg -c copy -f h264": [cli_rewrite_out]})
    for sink, med in sinks.items():
        ours_mbs = size / med["AnnexB rewrite (ours)"][0] / 1e6
        theirs_mbs = size / med["ffmpeg -c copy -f h264"][0] / 1e6
        verdict = f" (target ≥ 5: {'met' if ours_mbs >= 5 * theirs_mbs else 'NOT met'})" if sink == "/dev/null" else ""
        print(f"  throughput into {sink}: ours {ours_mbs:.0f} MB/s, ffmpeg {theirs_mbs:.0f} MB/s, "
              f"ratio {ours_mbs / theirs_mbs:.2f}{verdict}")
    print(f"  rewrite byte-identical to its input: {'yes' if open(rewrite_out, 'rb').read() == open(large, 'rb').read() else 'no'}; "
          f"same frames (framemd5): {'yes' if framemd5(rewrite_out) == framemd5(large) else 'NO'}")

    if os.path.exists(TRANSCODE):
        y4m_decode_section(one)

    if shutil.which("valgrind"):
        # Allocations per access unit: 300 frames against 600 frames of the same stream.
        short_y4m = os.path.join(WORK, "in-300-720p.y4m")
        make_y4m(short_y4m, 300)
        inputs = {300: os.path.join(WORK, "large-20M-300.h264"), 600: one}
        make_h264(inputs[300], short_y4m, "20M")
        allocs = {n: heap_allocs([MUXBENCH, "annexb", path, os.path.join(WORK, "alloc.h264")])
                  for n, path in inputs.items()}
        if None not in allocs.values():
            per = (allocs[600] - allocs[300]) / 300
            print(f"\nHeap allocations, Annex-B parse + rewrite (valgrind memcheck): {allocs[300]} for 300 frames, "
                  f"{allocs[600]} for 600 frames: {per:.2f} per access unit")


def y4m_decode_section(one):
    """H.264 decode → Y4M (the target: ≤ 0.9× the CLI's wall time), both writing to standard
    output on /dev/null, so that what is timed is demuxing, decoding and writing the frames: `transcode`
    as it runs by default (groups of pictures decoded in parallel), with `--no-parallel` (one decoder,
    FFmpeg's frame threads, as the CLI decodes), and the CLI. All three outputs must be identical."""
    title = "H.264 decode → Y4M: 600 frames of 1280x720 at 20 Mb/s (x264 veryfast, gop 30)"
    parallel = [TRANSCODE, "--quiet", "--input", one, "--output", "-", "--format", "y4m"]
    frames = parallel[:2] + ["--no-parallel"] + parallel[2:]
    theirs = ["ffmpeg", "-v", "error", "-i", one, "-f", "yuv4mpegpipe", "-"]
    med = compare(f"{title}: transcode --output - --format y4m [--no-parallel] vs ffmpeg -f yuv4mpegpipe - (stdout: /dev/null)",
                  [("transcode → y4m", parallel), ("transcode --no-parallel", frames), ("ffmpeg CLI", theirs)],
                  runs=max(RUNS, 7))
    ratio = med["transcode → y4m"][0] / med["ffmpeg CLI"][0]
    print(f"  decode wall ratio {ratio:.2f} (target ≤ 0.9: {'met' if ratio <= 0.9 else 'NOT met'}); "
          f"--no-parallel {med['transcode --no-parallel'][0] / med['ffmpeg CLI'][0]:.2f}")
    outputs = [hashlib.md5(subprocess.run(command, stdout=subprocess.PIPE, check=True).stdout).hexdigest()
               for command in (parallel, frames, theirs)]
    print(f"  outputs byte-identical: {'yes' if len(set(outputs)) == 1 else 'NO'} (MD5 {outputs[-1]})")


if __name__ == "__main__":
    main()
