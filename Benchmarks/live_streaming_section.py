"""Issue 12's benchmark, run by compare.py after the live-audio section (unless SKIP_LIVE=1):

CPU of streaming 720p30 H.264 + AAC in real time to a local nginx RTMP server (percent of one core),
`live-streamer --to rtmp://127.0.0.1:PORT/live/ours --pattern --size 1280x720 --fps 30 --tone 440
--duration 60` against `ffmpeg -re -f lavfi -i testsrc2=size=1280x720:rate=30 -re -f lavfi -i
sine=frequency=440:sample_rate=48000 -c:v libx264 -preset veryfast -tune zerolatency -b:v 2500k
-maxrate 2500k -bufsize 2500k -g 60 -c:a aac -b:a 128k -ac 2 -t 60 -f flv rtmp://127.0.0.1:PORT/live/ff`,
both at once (perf task-clock of each process and its threads). Target: CPU ratio ≤ 1.0. The two
programs' generators differ (our scrolling bars against lavfi's testsrc2), so the same comparison is
also made on one input for both: a .y4m of testsrc2 (`live-streamer --video x.y4m`, `ffmpeg -re -i
x.y4m`), and on our pattern as .y4m for both (made with h264-encoder at its lowest quantiser and
decoded by ffmpeg), and each generator's own cost is measured alone. Then the latency live-streamer measures
(capture timestamp → hand-off to the socket), p50/p99, on the normal link to nginx and with a
throttled receiver (a TCP listener here that reads 150 KB/s, less than the 2.5 Mb/s stream of the
testsrc2 .y4m; our pattern encodes to only ~0.35 Mb/s). ffmpeg
does not measure that latency: there is no peer figure.

LIVE_SECONDS (default 60) sets the length of every run, LIVE_RUNS (default 1) how many times each CPU
comparison is repeated (the median ratio is the result). nginx (with libnginx-mod-rtmp) must be
installed; the server listens on 127.0.0.1 only, on a free port above 20000, and records nothing.
"""
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time

from compare import H264ENCODER, WORK

STREAMER = os.path.abspath(".build/release/live-streamer")
SECONDS = int(os.environ.get("LIVE_SECONDS", "60"))
RUNS = int(os.environ.get("LIVE_RUNS", "1"))
RTMP_MODULE = "/usr/lib/nginx/modules/ngx_rtmp_module.so"
THROTTLE_BYTES_PER_SECOND = 150_000

# live-streamer's defaults (LiveStreamer.swift): preset veryfast, 2.5 Mb/s average and maximum through
# a 1-second VBV buffer, a keyframe every 2 s (60 frames at 30 fps), x264 `tune=zerolatency`
# (H264Encoder.Settings.realTime), automatic threads; AAC-LC 128 kb/s, 48 kHz stereo.
FFMPEG_VIDEO = ["-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-b:v", "2500k",
                "-maxrate", "2500k", "-bufsize", "2500k", "-g", "60", "-pix_fmt", "yuv420p"]
FFMPEG_AUDIO = ["-c:a", "aac", "-b:a", "128k", "-ac", "2"]


def free_port():
    """A port above 20000 that nothing listens on at 127.0.0.1 now."""
    for _ in range(200):
        port = random.randint(20_000, 60_000)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise RuntimeError("no free port above 20000")


class Nginx:
    """nginx with its RTMP module on 127.0.0.1:port, application `live` with `live on` and no record
    (as the tests' StreamingSupport.startNginx, less the recording: the disk is not what is measured)."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="bench-nginx-")
        self.port = free_port()
        config = os.path.join(self.folder, "nginx.conf")
        log = os.path.join(self.folder, "error.log")
        with open(config, "w") as f:
            f.write(f"""load_module {RTMP_MODULE};
daemon off;
master_process off;
pid {self.folder}/nginx.pid;
error_log {log} warn;
events {{ worker_connections 64; }}
rtmp {{
    server {{
        listen 127.0.0.1:{self.port};
        application live {{ live on; record off; }}
    }}
}}
""")
        self.process = subprocess.Popen(["nginx", "-p", self.folder, "-c", config, "-e", log],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 5
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("nginx did not start (is libnginx-mod-rtmp installed?)")

    def url(self, name):
        return f"rtmp://127.0.0.1:{self.port}/live/{name}"

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


class SlowReceiver:
    """A throttled link: a TCP listener on 127.0.0.1 with a small receive buffer that reads at most
    `rate` bytes per second (in 0.1-second steps) until the sender closes. Counts what it read."""

    def __init__(self, rate):
        self.rate = rate
        self.received = 0
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]
        self.listener.settimeout(15)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            connection, _ = self.listener.accept()
        except OSError:
            return
        with connection:
            connection.settimeout(5)
            start = time.monotonic()
            while True:
                allowed = int((time.monotonic() - start) * self.rate) - self.received
                if allowed <= 0:
                    time.sleep(0.1)
                    continue
                try:
                    data = connection.recv(min(allowed, 65536))
                except OSError:
                    return
                if not data:
                    return
                self.received += len(data)

    def close(self):
        self.listener.close()
        self.thread.join(timeout=10)


def run_at_once(commands, tag):
    """Starts every (label, command) at once under `perf stat -e task-clock` (all threads counted);
    waits; {label: (CPU seconds, stdout, stderr, exit status)}."""
    running = []
    for index, (label, command) in enumerate(commands):
        out = os.path.join(WORK, f"stream-{tag}-{index}.perf")
        process = subprocess.Popen(["perf", "stat", "-x,", "-e", "task-clock", "-o", out] + command,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        running.append((label, out, process))
    results = {}
    for label, out, process in running:
        stdout, stderr = process.communicate(timeout=SECONDS + 120)
        with open(out) as f:
            line = next((l for l in f if "task-clock" in l), None)
        cpu = float(line.split(",")[0]) / 1000 if line else float("nan")
        results[label] = (cpu, stdout, stderr, process.returncode)
    return results


def last_stats(stdout):
    """The last --stats-json object live-streamer printed, or None, with `worstP99Ms` added: the highest
    p99 of the per-second lines (the final percentiles cover the last 4096 samples sent, about 53 s of
    30 fps video and 46.9 AAC frames a second)."""
    objects = [json.loads(l) for l in stdout.splitlines() if l.startswith("{")]
    if not objects:
        return None
    p99s = [o["latencyP99Ms"] for o in objects if o.get("latencyP99Ms") is not None]
    return dict(objects[-1], worstP99Ms=max(p99s) if p99s else None, lines=len(objects))


def ffmpeg_progress(stderr):
    """ffmpeg's last progress line (size, bitrate, speed: 1x is real time), spaces squeezed."""
    lines = [l for l in stderr.replace("\r", "\n").splitlines() if "speed=" in l]
    return re.sub(r"=\s+", "=", " ".join(lines[-1].split())) if lines else "?"


def cpu_pair(title, ours, theirs, tag):
    """Runs our and ffmpeg's command at once, LIVE_RUNS times, and prints each run's CPU, % of one core
    and ratio, the median ratio, and what each program reported in its last run; our final stats."""
    ours_label, theirs_label = "live-streamer (ours)", "ffmpeg -re … -f flv"
    print(f"\n{title}")
    print(f"  {'run':5}{'ours CPU s':>12}{'ffmpeg CPU s':>14}{'ours %':>9}{'ffmpeg %':>10}{'ratio':>8}  exit")
    ratios = []
    for run in range(RUNS):
        results = run_at_once([(ours_label, ours), (theirs_label, theirs)], tag)
        cpu_ours, _, _, status_ours = results[ours_label]
        cpu_theirs, _, stderr_theirs, status_theirs = results[theirs_label]
        ratios.append(cpu_ours / cpu_theirs)
        print(f"  {run + 1:<5}{cpu_ours:12.2f}{cpu_theirs:14.2f}{100 * cpu_ours / SECONDS:8.1f}%{100 * cpu_theirs / SECONDS:9.1f}%"
              f"{ratios[-1]:8.2f}  {status_ours}/{status_theirs}")
    ratio = statistics.median(ratios)
    print(f"  CPU ratio, median of {RUNS}: {ratio:.2f} (target ≤ 1.0: {'met' if ratio <= 1.0 else 'NOT met'})")
    stats = last_stats(results[ours_label][1])
    if stats:
        print(f"  ours (last run): sent {stats['sentVideoFrames']} video + {stats['sentAudioFrames']} audio frames, "
              f"{stats['sentBytes']} bytes, dropped {stats['droppedFrames']}, "
              f"latency p50 {stats['latencyP50Ms']} ms p99 {stats['latencyP99Ms']} ms (worst per-second p99 {stats['worstP99Ms']} ms), "
              f"queue at most {stats['maxQueueSeconds']} s")
    else:
        print(f"  ours printed no stats: {results[ours_label][2].strip()[-300:]}")
    print(f"  ffmpeg's last progress line: {ffmpeg_progress(stderr_theirs)}")
    for label, command in (("ours", ours), ("ffmpeg", theirs)):
        print(f"  {label}: {' '.join(command)}")
    return stats


def source_cost(y4m):
    """Each video source alone, as fast as it goes, no encoding: CPU seconds for SECONDS of frames."""
    frames = SECONDS * 30
    commands = {
        "lavfi testsrc2 → yuv420p (ffmpeg, -f null)":
            ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-frames:v", str(frames),
             "-pix_fmt", "yuv420p", "-f", "null", "-"],
        "reading the .y4m (ffmpeg, -f null)":
            ["ffmpeg", "-v", "error", "-i", y4m, "-frames:v", str(frames), "-f", "null", "-"],
    }
    print(f"\nEach video source alone, {frames} frames of 1280x720 as fast as possible, no encoder (perf task-clock)")
    for label, command in commands.items():
        cpu = run_at_once([(label, command)], "source")[label][0]
        print(f"  {label:44}{cpu:7.2f} s CPU = {100 * cpu / SECONDS:5.1f} % of one core in real time")
        print(f"    {' '.join(command)}")


def make_testsrc_y4m(path):
    """SECONDS of testsrc2 at 1280x720, 30 fps, yuv420p as YUV4MPEG2, made once."""
    if os.path.exists(path):
        return
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30",
                    "-frames:v", str(SECONDS * 30), "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", path], check=True)


def make_pattern_y4m(path):
    """SECONDS of our test pattern at 1280x720, 30 fps as YUV4MPEG2, made once: h264-encoder writes the
    pattern at x264's lowest quantiser (100 Mb/s asked; the bars need about 1 Mb/s), ffmpeg decodes it.
    Nearly the pattern's own pixels, so ffmpeg can encode the same pictures as we do."""
    if os.path.exists(path):
        return
    h264 = path[:-4] + ".h264"
    subprocess.run([H264ENCODER, "--quiet", "--pattern", "--size", "1280x720", "--fps", "30", "--frames", str(SECONDS * 30),
                    "--bitrate", "100000000", "--preset", "ultrafast", "--keyint", "30", "--output", h264], check=True)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", h264, "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", path], check=True)
    os.remove(h264)


def warm(path):
    """Reads `path` once (untimed) so that the page cache holds it: otherwise the first run of a .y4m row
    pays the disk reads (it was 1.3-1.6x ffmpeg's usual CPU in the first run and never after)."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def throttled(y4m):
    """live-streamer into a TCP receiver that reads 150 KB/s: latency, drops, queue depth, with the
    adaptive bit rate on (the default) and off. The video is the testsrc2 .y4m, which x264 encodes at
    the full 2.5 Mb/s (our pattern's bars need about 0.35 Mb/s, under the throttle)."""
    print(f"\nThrottled link: MPEG-TS over TCP to a receiver here reading {THROTTLE_BYTES_PER_SECOND // 1000} KB/s "
          f"({THROTTLE_BYTES_PER_SECOND * 8 / 1e6:.1f} Mb/s, under the 2.5 Mb/s + 128 kb/s stream), testsrc2 .y4m + tone, "
          f"{SECONDS} s, --max-latency 2")
    for label, extra in (("adaptive bit rate on (default)", []), ("adaptive bit rate off", ["--no-adaptive-bitrate"])):
        receiver = SlowReceiver(THROTTLE_BYTES_PER_SECOND)
        command = [STREAMER, "--to", f"tcp://127.0.0.1:{receiver.port}", "--video", y4m, "--tone", "440", "--duration", str(SECONDS),
                   "--protocol-option", "send_buffer_size=65536", "--max-latency", "2", "--stats-json"] + extra
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=SECONDS + 60)
        receiver.close()
        stats = last_stats(result.stdout)
        if not stats:
            print(f"  {label}: no stats (exit {result.returncode}): {result.stderr.strip()[-300:]}")
            continue
        print(f"  {label}: latency p50 {stats['latencyP50Ms']} ms, p99 {stats['latencyP99Ms']} ms (worst per-second p99 "
              f"{stats['worstP99Ms']} ms); dropped {stats['droppedFrames']} video "
              f"frames ({stats['droppedGOPs']} GOPs); sent {stats['sentVideoFrames']} video + {stats['sentAudioFrames']} audio "
              f"frames; video target at the end {stats.get('videoBitRate')} b/s; last sent bit rate {stats['sentBitRate']} b/s; "
              f"queue at most {stats['maxQueueSeconds']} s; receiver read {receiver.received} bytes "
              f"({receiver.received * 8 / SECONDS / 1e6:.2f} Mb/s); exit {result.returncode}")
        print(f"    {' '.join(command)}")


def live_streaming_section():
    if not os.path.exists(STREAMER):
        print("\nLive streaming: skipped (build first: swift build -c release --product live-streamer)")
        return
    if not shutil.which("nginx") or not os.path.exists(RTMP_MODULE):
        print("\nLive streaming: skipped (nginx and libnginx-mod-rtmp are not installed; `make deps` installs them)")
        return
    nginx = Nginx()
    try:
        # Both at once, as the live-audio section: the same seconds, the same machine load. Each needs
        # about a fifth of a core here, so two of them on the 2 cores do not starve each other (ffmpeg's
        # speed stays 1x and we drop nothing: both are printed below); CPU time counts work done,
        # not wall time, so sharing the cores does not inflate it.
        print(f"\nStreaming {SECONDS} s of 1280x720 at 30 fps H.264 (veryfast, zerolatency, 2.5 Mb/s, VBV 1 s, "
              f"keyint 60) + AAC 128k to nginx RTMP on 127.0.0.1, both at once (CPU: perf task-clock)")
        ours = [STREAMER, "--to", nginx.url("ours"), "--pattern", "--size", "1280x720", "--fps", "30", "--tone", "440",
                "--duration", str(SECONDS), "--stats-json"]
        theirs = ["ffmpeg", "-v", "error", "-stats", "-re", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30",
                  "-re", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"] + FFMPEG_VIDEO + FFMPEG_AUDIO + \
                 ["-t", str(SECONDS), "-f", "flv", nginx.url("ff")]
        cpu_pair("Each program's own generators (the issue's command): our pattern + tone, lavfi testsrc2 + sine",
                 ours, theirs, "gen")

        y4m = os.path.join(WORK, f"testsrc2-720p30-{SECONDS}s.y4m")
        make_testsrc_y4m(y4m)
        ours_y4m = [STREAMER, "--to", nginx.url("ours2"), "--video", y4m, "--tone", "440",
                    "--duration", str(SECONDS), "--stats-json"]
        theirs_y4m = ["ffmpeg", "-v", "error", "-stats", "-re", "-i", y4m,
                      "-re", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"] + FFMPEG_VIDEO + FFMPEG_AUDIO + \
                     ["-t", str(SECONDS), "-f", "flv", nginx.url("ff2")]
        warm(y4m)
        cpu_pair("The same video for both: testsrc2 as .y4m, read in real time", ours_y4m, theirs_y4m, "y4m")
        if os.path.exists(H264ENCODER):
            pattern = os.path.join(WORK, f"pattern-720p30-{SECONDS}s.y4m")
            make_pattern_y4m(pattern)
            warm(pattern)
            ours_pattern = [c if c != y4m else pattern for c in ours_y4m]
            theirs_pattern = [c if c != y4m else pattern for c in theirs_y4m]
            cpu_pair("The same video for both: our pattern as .y4m (x264 at its lowest quantiser, decoded by ffmpeg)",
                     ours_pattern, theirs_pattern, "pattern")
        else:
            print("\n(our pattern as .y4m for both: skipped; needs h264-encoder's release build)")
        warm(y4m)
        source_cost(y4m)
    finally:
        nginx.stop()
    throttled(y4m)
    print("  (no peer figure for latency: the ffmpeg CLI does not measure capture → socket latency)")
