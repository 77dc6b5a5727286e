"""Wave 2 benchmarks, run by compare.py (unless SKIP_GRAPH=1), each side by side with its peer:

1. Stage hop cost: graph-benchmark (1 M one-byte samples through 0, 2, 4, 8 identity stages) against
   GStreamer (`fakesrc num-buffers=1000000 ! identity ... ! fakesink`); the per-hop cost is the slope.
2. Pattern + tone → H.264 + AAC → MP4 with both encoders at once: av-encoder against one ffmpeg
   command (`-f lavfi testsrc2 -f lavfi aevalsrc … -c:v libx264 -c:a aac`): wall and peak RSS.
3. The audio-only AAC job through av-encoder's three drivers (sync, threaded, async).
4. Remux of ~1 GB of A/V (H.264 + AAC in MP4) to MP4: transcode --copy against ffmpeg -c copy.
"""
import os
import subprocess
import time

from compare import WORK, compare, make_wav

ROOT = os.path.abspath(".build/release")
GRAPHBENCH = os.path.join(ROOT, "graph-benchmark")
AVENCODER = os.path.join(ROOT, "av-encoder")
TRANSCODE = os.path.join(ROOT, "transcode")


def slope(points):
    """Least-squares slope of (x, y) points."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)


def hop_section(samples=1_000_000, runs=5):
    ours = {"graph": [], "threaded": [], "async": [], "pipeline": [], "concurrent": []}
    gst = []
    for stages in (0, 2, 4, 8):
        for driver in ours:
            times = []
            for _ in range(runs):
                out = subprocess.run([GRAPHBENCH, "--samples", str(samples), "--stages", str(stages), "--driver", driver],
                                     check=True, capture_output=True, text=True).stdout.split()
                times.append(float(out[3]))
            ours[driver].append((stages, sorted(times)[runs // 2]))
        times = []
        pipeline = ["fakesrc", f"num-buffers={samples}", "sizetype=fixed", "sizemax=1"]
        for _ in range(stages):
            pipeline += ["!", "identity"]
        pipeline += ["!", "fakesink"]
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(["gst-launch-1.0", "-q"] + pipeline, check=True, capture_output=True)
            times.append(time.perf_counter() - start)
        gst.append((stages, sorted(times)[runs // 2]))
    print(f"\nStage hop cost: {samples} one-byte samples through 0/2/4/8 identity stages (medians of {runs})")
    print(f"  {'':22}" + "".join(f"{k:>9}" for k in ("0", "2", "4", "8")) + f"{'µs/hop':>9}{'ratio':>7}")
    gst_hop = slope(gst) / samples * 1e6
    rows = (("MediaGraph.run", ours["graph"]), ("MediaGraph.runThreaded", ours["threaded"]),
            ("await MediaGraph.run", ours["async"]), ("Pipeline.run", ours["pipeline"]),
            ("GStreamer identity", gst))
    for label, points in rows:
        hop = slope(points) / samples * 1e6
        print(f"  {label:22}" + "".join(f"{t:9.3f}" for _, t in points) + f"{hop:9.3f}{hop / gst_hop:7.2f}")
    # Pipeline.runConcurrently: every stage and the sink on a thread of its own, so K stages make K + 1
    # hops between threads. Its cost per hop is the time over the hops (not a slope: the first hop,
    # source to sink, is already one between threads).
    print("  Pipeline.runConcurrently (every hop between threads; time / (stages + 1) / samples):")
    for stages, seconds in ours["concurrent"]:
        print(f"    {stages} stages, {stages + 1} hops: {seconds:.3f} s, "
              f"{seconds / (stages + 1) / samples * 1e6:.3f} µs per hop between threads")


def av_section(seconds=20):
    mp4 = os.path.join(WORK, "av-ours.mp4")
    cli = os.path.join(WORK, "av-ffmpeg.mp4")
    ours = [AVENCODER, "-q", "--pattern", "--size", "1280x720", "--fps", "30", "--tone", "440", "--duration", str(seconds),
            "--bitrate", "1500000", "--keyint", "60", "--preset", "veryfast", "--output", mp4]
    theirs = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size=1280x720:rate=30:duration={seconds}",
              "-f", "lavfi", "-i", f"aevalsrc=0.5*sin(2*PI*440*t)|0.5*sin(2*PI*440*t):s=48000:d={seconds}",
              "-c:v", "libx264", "-preset", "veryfast", "-b:v", "1500k", "-g", "60", "-c:a", "aac", "-b:a", "128k", cli]
    print(f"\nA/V encode: {seconds} s of 1280x720 30 fps pattern + 48 kHz stereo tone → H.264 1.5 Mb/s veryfast + AAC 128k → MP4")
    print("  (each program's own generators: our moving bars and ffmpeg's testsrc2 differ, and so does x264's work)")
    compare("av-encoder vs one ffmpeg command", [("av-encoder (threaded)", ours), ("ffmpeg CLI", theirs)],
            remove={"av-encoder (threaded)": [mp4], "ffmpeg CLI": [cli]})

    # The same job on the same input: our pattern written once to .y4m, and a .wav of the tone.
    y4m = os.path.join(WORK, f"pattern-{seconds}s.y4m")
    wav = os.path.join(WORK, f"tone-{seconds}s.wav")
    if not os.path.exists(y4m):
        subprocess.run([AVENCODER, "-q", "--pattern", "--size", "1280x720", "--fps", "30", "--duration", str(seconds),
                        "--preset", "ultrafast", "--output", os.path.join(WORK, "tmp.h264")], check=True)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", os.path.join(WORK, "tmp.h264"), "-r", "30", y4m], check=True)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                        f"aevalsrc=0.5*sin(2*PI*440*t)|0.5*sin(2*PI*440*t):s=48000:d={seconds}", "-c:a", "pcm_s16le", wav], check=True)
    ours = [AVENCODER, "-q", "--video", y4m, "--audio", wav, "--bitrate", "1500000", "--keyint", "60", "--preset", "veryfast",
            "--output", mp4]
    theirs = ["ffmpeg", "-v", "error", "-y", "-i", y4m, "-i", wav, "-c:v", "libx264", "-preset", "veryfast", "-b:v", "1500k",
              "-g", "60", "-c:a", "aac", "-b:a", "128k", cli]
    print(f"\nA/V encode, same input: {seconds} s .y4m (1280x720) + .wav → H.264 1.5 Mb/s veryfast + AAC 128k → MP4")
    compare("av-encoder --video --audio vs ffmpeg -i in.y4m -i in.wav", [("av-encoder (threaded)", ours), ("ffmpeg CLI", theirs)],
            remove={"av-encoder (threaded)": [mp4], "ffmpeg CLI": [cli]})


def drivers_section():
    wav = os.path.join(WORK, "in-10min.wav")
    make_wav(wav, 10)
    commands = []
    for driver in ("sync", "threaded", "async"):
        out = os.path.join(WORK, f"drivers-{driver}.aac")
        commands.append((f"av-encoder --driver {driver}", [AVENCODER, "-q", "--audio", wav, "--output", out, "--driver", driver]))
    print("\nThe audio-only AAC job (10 min WAV → ADTS) through the graph's three drivers")
    compare("ratio = row / sync", commands[1:] + commands[:1])


def make_big_av(path, target_bytes):
    """About `target_bytes` of H.264 (noisy 720p at QP 10: ~24 MB/s) + AAC in MP4, made once."""
    if os.path.exists(path) and os.path.getsize(path) >= target_bytes * 0.9:
        return
    seconds = max(5, round(target_bytes / 24e6))
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size=1280x720:rate=30:duration={seconds}",
                    "-f", "lavfi", "-i", f"anoisesrc=d={seconds}:c=white:r=48000:a=0.3", "-ac", "2",
                    "-vf", "noise=alls=12:allf=t", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "10",
                    "-c:a", "aac", "-b:a", "256k", path], check=True)


def remux_section():
    big = os.path.join(WORK, "big-av-1g.mp4")
    make_big_av(big, 1_000_000_000)
    ours_out = os.path.join(WORK, "remux-ours.mp4")
    cli_out = os.path.join(WORK, "remux-ffmpeg.mp4")
    print(f"\nRemux: {os.path.getsize(big) / 1e6:.0f} MB of H.264 + AAC in MP4 → MP4 (moov first)")
    compare("transcode --copy vs ffmpeg -c copy -movflags +faststart", [
        ("transcode --copy", [TRANSCODE, "-q", "--copy", "--input", big, "--output", ours_out]),
        ("ffmpeg CLI", ["ffmpeg", "-v", "error", "-y", "-i", big, "-c", "copy", "-movflags", "+faststart", cli_out])],
        remove={"transcode --copy": [ours_out], "ffmpeg CLI": [cli_out]})


def graph_section():
    for binary in (GRAPHBENCH, AVENCODER, TRANSCODE):
        if not os.path.exists(binary):
            raise SystemExit(f"build first: swift build -c release --product {os.path.basename(binary)}")
    hop_section()
    av_section()
    drivers_section()
    remux_section()
