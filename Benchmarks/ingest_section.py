"""Issue 31's benchmark, run by compare.py after the live sections (unless SKIP_INGEST=1):

20 RTMP publishers of about 2 Mb/s each (`ffmpeg -re -i x.flv -c copy -f flv rtmp://…/live/kN`, one
720p30 H.264 + AAC file made once) relayed to segmented MPEG-TS and HLS, by
`media-relay --rtmp-listen … --record DIR --segment-duration 6 --hls DIR` against nginx with its RTMP
module doing the same (`record all` and `hls on`, 6-s fragments) for the same publishers. The two
servers run one after the other, each with the same 20 publishers (the publishers' own CPU is the same
in both runs and is not counted). Measured per server: CPU seconds (utime + stime from /proc/PID/stat,
its threads included) and peak resident memory (VmHWM), and whether every frame sent was recorded
(ffprobe's video packet count of each stream's recording against the file's). Target: CPU ≤ 1.5×
nginx-rtmp's, no frame lost.

INGEST_SECONDS (default 30) sets the length of the file, INGEST_PUBLISHERS (default 20) how many
publish at once. nginx (with libnginx-mod-rtmp) must be installed; both servers listen on 127.0.0.1.
"""
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time

from compare import WORK
from live_streaming_section import RTMP_MODULE, free_port

RELAY = os.path.abspath(".build/release/media-relay")
SECONDS = int(os.environ.get("INGEST_SECONDS", "30"))
PUBLISHERS = int(os.environ.get("INGEST_PUBLISHERS", "20"))


def make_input():
    """A 720p30 H.264 (2 Mb/s, a keyframe every 2 s) + AAC 128k FLV, made once."""
    path = os.path.join(WORK, f"ingest-{SECONDS}s.flv")
    if not os.path.exists(path):
        subprocess.run(
            ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-f", "lavfi",
             "-i", "sine=frequency=440:sample_rate=48000", "-t", str(SECONDS), "-c:v", "libx264", "-preset",
             "veryfast", "-b:v", "1900k", "-maxrate", "1900k", "-bufsize", "1900k", "-g", "60", "-pix_fmt",
             "yuv420p", "-c:a", "aac", "-b:a", "128k", path], check=True)
    return path


def cpu_seconds(pid):
    """utime + stime of the process and its ended and live threads, in seconds."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def wait_for_port(port, process):
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.05)
    raise RuntimeError(f"the server did not start listening on {port} (exit status {process.poll()})")


def video_packets(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                          "stream=nb_read_packets", "-of", "csv=p=0", path], capture_output=True, text=True).stdout
    numbers = [int(x) for x in out.split() if x.strip().isdigit()]
    return numbers[0] if numbers else -1


def run_server(name, start, recording_of, source):
    """Starts the server (`start(folder, port)` returns its process), publishes PUBLISHERS streams at once,
    stops it; returns CPU seconds, peak MiB and the streams whose recording lacks frames."""
    # nginx's configuration takes the folder's path unquoted: no spaces or parentheses in it.
    folder = tempfile.mkdtemp(prefix="bench-ingest-" + "".join(c for c in name if c.isalnum()) + "-")
    port = free_port()
    process = start(folder, port)
    try:
        wait_for_port(port, process)
        before = cpu_seconds(process.pid)
        publishers = [subprocess.Popen(["ffmpeg", "-v", "error", "-nostdin", "-re", "-i", source, "-c", "copy", "-f",
                                        "flv", f"rtmp://127.0.0.1:{port}/live/k{n}"], stdout=subprocess.DEVNULL)
                      for n in range(1, PUBLISHERS + 1)]
        failed = [n for n, p in enumerate(publishers, 1) if p.wait() != 0]
        time.sleep(2)  # the last segments closed
        cpu = cpu_seconds(process.pid) - before
        peak = peak_mib(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)
    sent = video_packets(source)
    short = [n for n in range(1, PUBLISHERS + 1) if video_packets(recording_of(folder, n)) != sent]
    shutil.rmtree(folder, ignore_errors=True)
    return cpu, peak, failed, short


def start_nginx(folder, port):
    config = os.path.join(folder, "nginx.conf")
    os.makedirs(os.path.join(folder, "rec"))
    os.makedirs(os.path.join(folder, "hls"))
    with open(config, "w") as f:
        f.write(f"""load_module {RTMP_MODULE};
daemon off;
master_process off;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 256; }}
rtmp {{
    server {{
        listen 127.0.0.1:{port};
        application live {{
            live on;
            record all; record_path {folder}/rec; record_unique off;
            hls on; hls_path {folder}/hls; hls_fragment 6s; hls_nested on; hls_cleanup off;
        }}
    }}
}}
""")
    return subprocess.Popen(["nginx", "-p", folder, "-c", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_relay(folder, port):
    return subprocess.Popen([RELAY, "--quiet", "--rtmp-listen", f"127.0.0.1:{port}", "--record",
                             os.path.join(folder, "rec"), "--segment-duration", "6", "--hls",
                             os.path.join(folder, "hls")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def ingest_section():
    if not os.path.exists(RELAY):
        raise SystemExit("build first: swift build -c release --product media-relay")
    if not os.path.exists(RTMP_MODULE):
        print("\nIngest: skipped (nginx's RTMP module is not installed)")
        return
    source = make_input()
    print(f"\nIngest: {PUBLISHERS} RTMP publishers of {SECONDS} s at about 2 Mb/s (720p30 H.264 + AAC), "
          "relayed to 6-s segments and HLS, one server after the other")
    results = {}
    for name, start, recording in [
        ("nginx-rtmp (record + hls)", start_nginx, lambda folder, n: os.path.join(folder, "rec", f"k{n}.flv")),
        ("media-relay (--record --hls)", start_relay,
         lambda folder, n: os.path.join(folder, "rec", f"k{n}", "index.m3u8")),
    ]:
        results[name] = run_server(name, start, recording, source)
    reference = results["nginx-rtmp (record + hls)"]
    print(f"  {'':32}{'CPU s':>8}{'peak MiB':>10}{'CPU':>7}{'mem':>7}  frames")
    for name, (cpu, peak, failed, short) in results.items():
        frames = "every one" if not failed and not short else f"publishers failed {failed}, short {short}"
        print(f"  {name:32}{cpu:8.2f}{peak:10.1f}{cpu / max(reference[0], 1e-9):7.2f}"
              f"{peak / max(reference[1], 1e-9):7.2f}  {frames}")
