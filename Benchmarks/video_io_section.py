"""Issue 30's benchmarks, run by compare.py (unless SKIP_VIDEO_IO=1), side by side with the peers, CPU from
perf's task-clock:

1. Screen capture → H.264 1280x720 at 30 fps for LIVE_SECONDS (60) s: `camera-recorder --screen` against
   `ffmpeg -f x11grab … -c:v libx264` with camera-recorder's settings (preset veryfast, 4 Mb/s, a keyframe
   every 2 s, yuv420p), both grabbing one private Xvfb on which ffplay shows a moving test pattern, at once
   (the same seconds, the same load). Target: CPU ratio ≤ 1.0.
2. Playing a 1080p30 H.264 + AAC file for PLAYER_SECONDS (30) s: `media-player` against `ffplay`, each
   window on a private Xvfb of its own, the audio into a private PulseAudio daemon's null sink, one after
   the other: drawing 1080p in Mesa's software renderer takes most of a core, so two players at once fill
   this 2-core machine and their CPU ratio would be the scheduler's split, not their cost.
   Target: CPU ratio ≤ 1.0. The frames each showed are reported beside it (ours from `--frame-log`,
   ffplay's as the file's frames less its `fd=` count of dropped ones), and the CPU per frame shown:
   a player that cannot keep up drops frames and so spends less.
"""
import os
import re
import shutil
import subprocess
import time

from compare import WORK
from live_audio_section import Daemon

ROOT = os.path.abspath(".build/release")
SECONDS = int(os.environ.get("LIVE_SECONDS", "60"))
PLAYER_SECONDS = int(os.environ.get("PLAYER_SECONDS", "30"))


class Screen:
    """A private Xvfb of `size` on the first free display number from 90."""

    def __init__(self, size):
        number = 90
        while os.path.exists(f"/tmp/.X11-unix/X{number}") or os.path.exists(f"/tmp/.X{number}-lock"):
            number += 1
        self.display = f":{number}"
        self.process = subprocess.Popen(["Xvfb", self.display, "-screen", "0", f"{size}x24", "-nolisten", "tcp"],
                                        stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while not os.path.exists(f"/tmp/.X11-unix/X{number}"):
            if time.time() > deadline:
                raise RuntimeError("Xvfb did not start")
            time.sleep(0.05)
        self.env = dict(os.environ, DISPLAY=self.display)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=5)


def cpu_at_once(commands, env_of, stderr_of=lambda _: None, one_by_one=False):
    """Runs each (label, command) at once (or `one_by_one`) under `perf stat -e task-clock`; the CPU seconds
    of each. A label's standard error goes to the path `stderr_of` gives, or nowhere."""
    running = []
    for index, (label, command) in enumerate(commands):
        out = os.path.join(WORK, f"video-io-{index}.perf")
        perf = ["perf", "stat", "-x,", "-e", "task-clock", "-o", out]
        path = stderr_of(label)
        errors = open(path, "w") if path else subprocess.DEVNULL
        running.append((label, out, errors, subprocess.Popen(perf + command, env=env_of(label),
                                                             stdout=subprocess.DEVNULL, stderr=errors)))
        if one_by_one:
            running[-1][3].wait()
    cpu = {}
    for label, out, errors, process in running:
        process.wait()
        if errors is not subprocess.DEVNULL:
            errors.close()
        with open(out) as f:
            line = next(l for l in f if "task-clock" in l)
        cpu[label] = float(line.split(",")[0]) / 1000
    return cpu


def report(title, cpu, ours, theirs, seconds, together="both at once"):
    print(f"\n{title}, {together} (CPU: perf task-clock)")
    for label in (ours, theirs):
        print(f"  {label:30}{cpu[label]:8.2f} s CPU = {100 * cpu[label] / seconds:.1f} % of one core")
    ratio = cpu[ours] / cpu[theirs]
    print(f"  CPU ratio {ratio:.2f} (target ≤ 1.0: {'met' if ratio <= 1.0 else 'NOT met'})")


def screen_capture():
    screen = Screen("1280x720")
    pattern = subprocess.Popen(["ffplay", "-v", "error", "-noborder", "-left", "0", "-top", "0", "-f", "lavfi",
                                "-i", "testsrc2=size=1280x720:rate=30"], env=screen.env, stderr=subprocess.DEVNULL)
    time.sleep(2)
    ours, theirs = os.path.join(WORK, "screen-ours.mp4"), os.path.join(WORK, "screen-ffmpeg.mp4")
    try:
        commands = [
            ("camera-recorder --screen (ours)",
             [os.path.join(ROOT, "camera-recorder"), "--screen", screen.display, "--size", "1280x720", "--fps", "30",
              "--duration", str(SECONDS), "--output", ours]),
            ("ffmpeg -f x11grab",
             ["ffmpeg", "-v", "error", "-y", "-f", "x11grab", "-video_size", "1280x720", "-framerate", "30",
              "-i", screen.display, "-t", str(SECONDS), "-c:v", "libx264", "-preset", "veryfast", "-b:v", "4M",
              "-g", "60", "-pix_fmt", "yuv420p", theirs])]
        cpu = cpu_at_once(commands, lambda _: screen.env)
        report(f"Screen capture → H.264 1280x720 30 fps for {SECONDS} s", cpu, commands[0][0], commands[1][0], SECONDS)
    finally:
        pattern.terminate()
        pattern.wait(timeout=5)
        screen.stop()


def playback():
    movie = os.path.join(WORK, f"movie-1080p30-{PLAYER_SECONDS}s.mp4")
    if not os.path.exists(movie):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30",
                        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", str(PLAYER_SECONDS),
                        "-c:v", "libx264", "-preset", "fast", "-b:v", "8M", "-pix_fmt", "yuv420p", "-c:a", "aac",
                        movie], check=True)
    daemon = Daemon()
    screens = {"ours": Screen("1920x1080"), "theirs": Screen("1920x1080")}
    try:
        ours, theirs = "media-player (ours)", "ffplay"
        frame_log, status = os.path.join(WORK, "player-frames.jsonl"), os.path.join(WORK, "ffplay-status.txt")
        commands = [
            (ours, [os.path.join(ROOT, "media-player"), movie, "--quiet", "--frame-log", frame_log]),
            (theirs, ["ffplay", "-v", "error", "-stats", "-autoexit", movie])]

        def env_of(label):
            return dict(screens["ours" if label == ours else "theirs"].env, PULSE_SERVER=daemon.env["PULSE_SERVER"])

        cpu = cpu_at_once(commands, env_of, lambda label: status if label == theirs else None, one_by_one=True)
        report(f"Playing {PLAYER_SECONDS} s of 1080p30 H.264 + AAC to a window and a PulseAudio sink", cpu, ours,
               theirs, PLAYER_SECONDS, together="one after the other")
        frames = 30 * PLAYER_SECONDS
        with open(frame_log) as f:
            shown = {ours: sum(1 for line in f if line.strip())}
        with open(status, errors="replace") as f:
            drops = re.findall(r"fd=\s*(\d+)", f.read())
        shown[theirs] = frames - int(drops[-1]) if drops else None
        for label in (ours, theirs):
            count = shown[label]
            per_frame = f"{1000 * cpu[label] / count:.1f} ms CPU per frame shown" if count else "no status line"
            print(f"  {label:30}{count if count is not None else '?':>5} of {frames} frames shown, {per_frame}")
    finally:
        for screen in screens.values():
            screen.stop()
        daemon.stop()


def video_io_section():
    if not (shutil.which("Xvfb") and shutil.which("ffplay") and shutil.which("pulseaudio")):
        print("\nVideo in and out: skipped (Xvfb, ffplay or pulseaudio is not installed; `make deps` installs them)")
        return
    screen_capture()
    playback()
