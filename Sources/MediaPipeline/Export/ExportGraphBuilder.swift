import MediaCore
import MediaFFmpeg

/// Builds a ``MediaExportSession``'s branches: which streams of each input go to the output, and the
/// stages that bring each to what the format and the preset take.
struct ExportGraphBuilder {
    let format: ExportFormat
    let preset: ExportPreset
    let options: MediaExportSession.Options
    let network: ContainerDemuxer.NetworkOptions

    /// Adds a branch for every stream of `inputs` that goes to the output, in input order, and appends
    /// each input's start and duration to `spans`.
    ///
    /// - Throws: the demuxers' errors; ``/MediaCore/MediaError/Code/unsupportedFormat`` when no stream
    ///   fits, or for a stream to re-encode that no decoder here decodes.
    mutating func addBranches(
        for inputs: [String], to graph: inout MediaGraph, spans: inout [(start: MediaTime, duration: MediaTime)]
    ) throws -> [MediaGraph.BranchID] {
        var branches: [MediaGraph.BranchID] = []
        for path in inputs {
            if Self.isURL(path) {
                // A URL is opened once (a live one cannot be opened again at the same point): its streams
                // share the demuxer, each read on its branch's thread.
                let demuxer = try ContainerDemuxer(url: path, options: network)
                spans.append((demuxer.startTime, demuxer.duration))
                let wanted = wantedStreams(demuxer.streams, first: branches.isEmpty)
                let sources = try ContainerDemuxer.sharedSources(demuxer, streams: wanted.map(\.index))
                for (stream, source) in zip(wanted, sources) {
                    branches.append(
                        graph.addBranch(
                            "\(ContainerDemuxer.redacted(path))#\(stream.index)", source: source,
                            stages: try stages(for: stream, path: path)))
                }
                continue
            }
            let demuxer = try ContainerDemuxer(path: path)
            spans.append((demuxer.startTime, demuxer.duration))
            let wanted = wantedStreams(demuxer.streams, first: branches.isEmpty)
            guard let first = wanted.first else { continue }
            // The file's first stream takes over the demuxer that listed the streams: no second open
            // (nor a second probe, which for a raw .h264 decodes its first pictures). Every other
            // stream gets a demuxer of its own, so that each branch reads on a thread of its own.
            branches.append(
                graph.addBranch(
                    "\(path)#\(first.index)", source: try ContainerDemuxer.streamSource(demuxer, stream: first.index),
                    stages: try stages(for: first, path: path)))
            for stream in wanted.dropFirst() {
                branches.append(
                    graph.addBranch(
                        "\(path)#\(stream.index)",
                        source: try ContainerDemuxer.streamSource(path: path, stream: stream.index),
                        stages: try stages(for: stream, path: path)))
            }
        }
        guard !branches.isEmpty else {
            let kinds = takesVideo ? (takesAudio ? "audio or video" : "video") : "audio"
            throw MediaError(
                .unsupportedFormat, "\(inputs.joined(separator: ", ")) holds no \(kinds) stream for the export")
        }
        return branches
    }

    /// Whether the output gets audio: the format holds it and the preset keeps it.
    private var takesAudio: Bool { format.takesAudio && preset.audio != .none }
    /// Whether the output gets video: the format holds it and the preset keeps it.
    private var takesVideo: Bool { format.takesVideo && preset.video != .none }

    /// Which of an input's `streams` go to the output: every audio and video stream the output takes;
    /// for a one-stream format, only the first that fits, of the first input (`first`) only.
    func wantedStreams(_ streams: [ContainerDemuxer.Stream], first: Bool) -> [ContainerDemuxer.Stream] {
        let wanted = streams.filter { ($0.isAudio && takesAudio) || ($0.isVideo && takesVideo) }
        if format.isContainer { return wanted }
        return first ? Array(wanted.prefix(1)) : []
    }

    /// Whether `input` is a URL `ContainerDemuxer(url:options:)` opens rather than a path.
    static func isURL(_ input: String) -> Bool {
        let scheme = input.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        return input.contains("://") && ContainerDemuxer.networkSchemes.contains(scheme)
    }

    /// The stages that bring `stream` to what the format and the preset take.
    func stages(for stream: ContainerDemuxer.Stream, path: String) throws -> sending [any MediaStage] {
        guard let format = stream.format else {
            throw MediaError(
                .unsupportedFormat,
                "stream \(stream.index) of \(path) (\(stream.codecName)) is not audio or video MediaPipeline can take")
        }
        switch (self.format, format) {
        case (.wav, .audio(let audio)):
            // Decoded PCM, 16-bit as most WAV readers expect.
            var stages: [any MediaStage] = []
            if audio.pcm == nil {
                guard AudioDecoder.canDecode(format) else { throw cannotDecode(stream, path) }
                stages.append(AudioDecoder())
            }
            stages.append(try AudioConverter(format: PCMFormat(.s16)))
            return stages
        case (.y4m, .video(let video)):
            return try decoder(for: video, stream, path).map { [$0] } ?? []
        case (_, .audio(let audio)):
            let encoder: any MediaStage
            switch preset.audio {
            case .aac(let bitRate): encoder = try AACEncoder(bitRate: bitRate)
            case .opus(let settings): encoder = try OpusEncoder(settings: settings)
            case .none, .passthrough: return []
            }
            if self.format == .caf && audio.pcm != nil { return [] }
            if audio.pcm != nil { return [encoder] }
            // AAC, MP3, ALAC, Opus, FLAC, ...: decoded, then encoded.
            guard AudioDecoder.canDecode(format) else { throw cannotDecode(stream, path) }
            return [AudioDecoder(), encoder]
        case (_, .video(let video)):
            guard let (encoder, maxWidth, maxHeight) = try preset.video.encoding() else { return [] }
            let size = ExportPreset.fitted(
                width: video.width, height: video.height, maxWidth: maxWidth, maxHeight: maxHeight)
            let scaler = try VideoConverter(to: .yuv420p, width: size?.width, height: size?.height)
            let decoder = try decoder(for: video, stream, path)
            return (decoder.map { [$0] } ?? []) + [scaler, encoder]
        }
    }

    /// The decoder for video of `format`: ``/MediaFFmpeg/H264Decoder`` for H.264, ``/MediaFFmpeg/VideoDecoder`` for
    /// the other codecs of the codec table (HEVC, AV1, VP9, ...), none for raw frames.
    private func decoder(for format: VideoFormat, _ stream: ContainerDemuxer.Stream, _ path: String) throws
        -> (any MediaStage)?
    {
        switch format.codec {
        case .h264: return H264Decoder(threading: options.h264Decoding)
        case .raw: return nil
        case .other:
            guard VideoDecoder.canDecode(format) else { throw cannotDecode(stream, path) }
            return VideoDecoder()
        }
    }

    /// The error for a stream no stage decodes: the copy is named as the way out only when the muxer
    /// knows the codec (a build without that codec's decoder); otherwise neither can take it.
    private func cannotDecode(_ stream: ContainerDemuxer.Stream, _ path: String) -> MediaError {
        let copyable = stream.format.map(ContainerMuxer.knowsCodec(of:)) ?? false
        let wayOut =
            copyable
            ? "a passthrough export (transcode --copy) remuxes it untouched where the container takes it"
            : "nor can it be copied: the codec table does not know it"
        return MediaError(
            .unsupportedFormat,
            "MediaPipeline has no decoder for \(stream.codecName) (stream \(stream.index) of \(path)); \(wayOut)")
    }
}
