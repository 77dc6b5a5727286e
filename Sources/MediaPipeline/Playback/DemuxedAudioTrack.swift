import MediaCore
import MediaFFmpeg

/// One audio stream of a container file as PCM with sample-accurate seeking, for ``MediaPlayer``'s
/// audio engine: a ``/MediaFFmpeg/ContainerDemuxer`` that reads only that stream, and an
/// ``/MediaFFmpeg/AudioDecoder`` to interleaved 32-bit float.
///
/// - Frame 0 is the container's start time (``/MediaFFmpeg/ContainerDemuxer/startTime``), the time the
///   player's timeline starts at; a stream that starts later begins with the frames it has (the video
///   waits for nothing: it is timed on the same timeline).
/// - Seek: the demuxer moves to the packet at or before the target less a pre-roll of 0.2 s (a decoder
///   such as AAC's needs the packets before the target to decode it as a decode from the start does),
///   and the decoded frames before the target are dropped.
final class DemuxedAudioTrack: PlayerPCMSource {
    let fileFormat: AudioFormat
    private let source: ContainerDemuxer.StreamSource
    private let start: MediaTime
    private var decoder = CheckedStage(AudioDecoder(outputFormat: .f32))
    private var pending: [MediaSample] = []
    private var drained = false
    /// After a seek: frames before this one are dropped.
    private var firstFrame: Int64?

    /// How far before a seek's target decoding starts.
    static let preroll = MediaTime(value: 1, timescale: 5)

    /// Opens stream `stream` of `input`, whose timeline starts at `start`.
    init(input: PlayerInput, stream: Int, format: AudioFormat, start: MediaTime) throws(MediaError) {
        source = try input.streamSource(stream)
        fileFormat = format
        self.start = start
        guard AudioDecoder.canDecode(.audio(format)) else {
            throw MediaError(
                .unsupportedFormat, "\(input.name): AudioDecoder cannot decode stream \(stream) (\(format))")
        }
    }

    func read() throws -> MediaSample? {
        while true {
            while pending.isEmpty {
                if drained { return nil }
                if let packet = try source.next() {
                    try decoder.process(packet) { pending.append($0) }
                } else {
                    try decoder.finish { pending.append($0) }
                    drained = true
                }
            }
            let pcm = pending.removeFirst()
            guard let first = firstFrame else { return pcm }
            // Drop what precedes the seek's target.
            let at = frame(of: pcm)
            let skip = Int(clamping: max(0, first - at))
            if skip >= pcm.frameCount { continue }
            firstFrame = nil
            return skip == 0 ? pcm : try pcm.pcmFrames(skip..<pcm.frameCount)
        }
    }

    func seek(toFrame frame: Int64) throws(MediaError) {
        let rate = Int32(clamping: fileFormat.sampleRate)
        let target = start + MediaTime(value: frame, timescale: rate)
        try source.demuxer.seek(to: target - Self.preroll < start ? start : target - Self.preroll)
        decoder = CheckedStage(AudioDecoder(outputFormat: .f32))  // nothing from before the seek
        pending.removeAll()
        drained = false
        firstFrame = frame
    }

    /// The timeline frame a decoded sample starts at.
    private func frame(of pcm: MediaSample) -> Int64 {
        let time = pcm.timing.presentationTime
        guard time.isNumeric else { return 0 }
        return (time - start).converted(to: Int32(clamping: fileFormat.sampleRate)).value
    }
}
