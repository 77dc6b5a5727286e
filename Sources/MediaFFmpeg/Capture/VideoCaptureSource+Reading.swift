internal import CMediaFFmpeg
import Glibc
import MediaCore

// Reading one packet from libavdevice, decoding it, converting the picture and stamping it on the clock.
extension VideoCaptureSource {
    /// Reads and decodes one packet: the frame it gives, or `nil` when it gives none yet.
    func readFrame() throws(MediaError) -> MediaSample? {
        let code = av_read_frame(input.raw, packet.raw)
        if code == mp_averror_eagain() {
            if MediaClock.hostTime - lastFrameHostTime > stallTimeout {
                ended = true
                throw MediaError(.deviceLost, "\(device) gave no frame for \(stallTimeout)").inStage(name)
            }
            usleep(2_000)
            return nil
        }
        guard code >= 0 else {
            ended = true
            let reason = MediaError.ffmpeg(code, calling: "av_read_frame", .deviceLost).message
            throw MediaError(.deviceLost, "\(device) stopped delivering frames: \(reason)").inStage(name)
        }
        defer { av_packet_unref(packet.raw) }
        let now = MediaClock.hostTime
        // The device stamps the packet with the wall clock (µs) when it captured it: its age, moved to the
        // monotonic clock. An absent or implausible stamp counts as captured now.
        let stamp = packet.raw.pointee.pts
        var ageMicroseconds = stamp == mp_nopts_value() ? 0 : av_gettime() - stamp
        if ageMicroseconds < 0 || ageMicroseconds > 10_000_000 { ageMicroseconds = 0 }
        let captured = now - MediaTime(value: ageMicroseconds, timescale: 1_000_000)
        lastFrameHostTime = now
        var result: MediaSample?
        do {
            try decoder.sendPacket(packet)
            try decoder.receiveFrames(into: decoded) {
                if result == nil { result = try picture(capturedAt: captured) }
            }
        } catch let error as MediaError {
            throw error.inStage(name)
        } catch {
            throw MediaError(.decoderFailure, "\(error)").inStage(name)
        }
        return result
    }

    /// The decoded picture converted to the output's pixel format, timed at `captured` (host time); `nil`
    /// for a picture captured in the frame tick of the one before.
    private func picture(capturedAt captured: MediaTime) throws(MediaError) -> MediaSample? {
        let source = (decoded.raw.pointee.format, decoded.raw.pointee.width, decoded.raw.pointee.height)
        if conversion.map({ $0.source != source }) ?? true {
            guard let pixels = format.pixelFormat else {
                throw MediaError(.invalidArgument, "\(format) is not raw video")
            }
            let scaler = try Scaler(
                from: AVPixelFormat(rawValue: source.0), width: Int(source.1), height: Int(source.2),
                to: pixels.avPixelFormat, width: format.width, height: format.height, flags: SWS_BICUBIC)
            let frame = try Frame()
            try frame.allocateVideo(pixels, width: format.width, height: format.height)
            conversion = (scaler, frame, source)
        }
        guard let conversion, let pixels = format.pixelFormat else {
            throw MediaError(.invalidArgument, "\(format) is not raw video")
        }
        try conversion.scaler.scale(decoded, into: conversion.frame)
        let rate = format.frameRate ?? FrameRate(30)
        // The frame-rate tick nearest the capture time (ticks of denominator/numerator seconds from the
        // clock's zero). A frame captured in the tick of the one before (the grabber catching up after a
        // delay, back to back) shows the same instant: it is passed over. Ticks skipped are frames missed.
        let captureTime = clock.mediaTime(forHostTime: captured)
        let exact =
            Double(captureTime.value) * Double(rate.numerator)
            / (Double(captureTime.timescale) * Double(rate.denominator))
        let tick = Int64(exact.rounded())
        if let lastTick {
            if tick <= lastTick { return nil }
            if tick > lastTick + 1 { counts.countDropped(tick - lastTick - 1) }
        }
        lastTick = tick
        let time = MediaTime(value: tick * Int64(rate.denominator), timescale: rate.numerator)
        counts.countFrame()
        return MediaSample(
            format: .video(format),
            planes: conversion.frame.packedPlanes(pixels, width: format.width, height: format.height),
            timing: SampleTiming(presentationTime: time, duration: rate.frameDuration), frameCount: 1)
    }
}
