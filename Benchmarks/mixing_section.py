"""Issue 29's fan-in benchmarks, run by compare.py (unless SKIP_MIXING=1), each side by side with its peer
on the same input files:

1. Mixing 8 stereo 48 kHz float WAVs (60 s each, each at its own gain) into one float WAV: av-mixer
   against GStreamer's `audiomixer` (`filesrc ! wavparse` per input, the pads' `volume`, `wavenc`).
2. 720p30 picture-in-picture (a 1280x720 .y4m full canvas, a 640x360 .y4m scaled into 320x180 at
   944,524) into a .y4m: av-mixer against `ffmpeg -filter_complex "[1:v]scale=320:180[s];[0:v][s]overlay"`.
"""
import os
import subprocess

from compare import WORK, compare

AVMIXER = os.path.abspath(".build/release/av-mixer")


def make_inputs(count=8, seconds=60):
    paths = []
    for index in range(count):
        path = os.path.join(WORK, f"mix-in{index}-{seconds}s.wav")
        if not os.path.exists(path):
            hertz = 220 * (index + 1)
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                            f"aevalsrc=0.2*sin(2*PI*{hertz}*t)+0.02*(random({index})-0.5)|"
                            f"0.2*sin(2*PI*{hertz * 1.5}*t)+0.02*(random({index + 10})-0.5):s=48000:d={seconds}",
                            "-c:a", "pcm_f32le", path], check=True)
        paths.append(path)
    return paths


def audio_mix_section():
    inputs = make_inputs()
    gains = [0.5, 0.25, 0.75, 0.4, 0.125, 0.3, 0.6, 0.2]
    ours_out = os.path.join(WORK, "mix-ours.wav")
    gst_out = os.path.join(WORK, "mix-gst.wav")
    ours = [AVMIXER, "-q", "--output", ours_out]
    for path, gain in zip(inputs, gains):
        ours += ["--audio", f"{path},gain={gain}"]
    gst = ["gst-launch-1.0", "-q", "audiomixer", "name=m"]
    gst += [f"sink_{index}::volume={gain}" for index, gain in enumerate(gains)]
    gst += ["!", "audio/x-raw,format=F32LE,rate=48000,channels=2", "!", "wavenc", "!", "filesink", f"location={gst_out}"]
    for path in inputs:
        gst += ["filesrc", f"location={path}", "!", "wavparse", "!", "audioconvert", "!", "m."]
    print("\nMixing 8 stereo 48 kHz float WAVs of 60 s, each at its own gain → one float WAV")
    compare("av-mixer vs GStreamer audiomixer", [("av-mixer", ours), ("gst-launch audiomixer", gst)],
            remove={"av-mixer": [ours_out], "gst-launch audiomixer": [gst_out]})


def pip_section(frames=300):
    main = os.path.join(WORK, f"pip-main-{frames}.y4m")
    inset = os.path.join(WORK, f"pip-inset-{frames}.y4m")
    for path, generator in ((main, "testsrc2=size=1280x720:rate=30"), (inset, "mandelbrot=size=640x360:rate=30")):
        if not os.path.exists(path):
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", generator, "-frames:v", str(frames),
                            "-pix_fmt", "yuv420p", path], check=True)
    ours_out = os.path.join(WORK, "pip-ours.y4m")
    cli_out = os.path.join(WORK, "pip-ffmpeg.y4m")
    ours = [AVMIXER, "-q", "--canvas", "1280x720@30", "--video", main, "--video", f"{inset},x=944,y=524,w=320,h=180,z=1",
            "--output", ours_out]
    theirs = ["ffmpeg", "-v", "error", "-y", "-i", main, "-i", inset, "-filter_complex",
              "[1:v]scale=320:180[s];[0:v][s]overlay=944:524", "-f", "yuv4mpegpipe", "-pix_fmt", "yuv420p", cli_out]
    print(f"\n720p30 picture-in-picture: {frames} frames of 1280x720 + 640x360 scaled into 320x180 → .y4m")
    compare("av-mixer vs ffmpeg -filter_complex overlay", [("av-mixer", ours), ("ffmpeg CLI", theirs)],
            remove={"av-mixer": [ours_out], "ffmpeg CLI": [cli_out]})


def mixing_section():
    if not os.path.exists(AVMIXER):
        raise SystemExit("build first: swift build -c release --product av-mixer")
    audio_mix_section()
    pip_section()
