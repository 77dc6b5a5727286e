public import Logging
public import MediaCore

extension ContainerDemuxer {
    /// The samples of one stream of a ``ContainerDemuxer``, in the forms the demuxer's documentation
    /// lists: a demuxer's src pad as a ``/MediaCore/MediaSource``.
    ///
    /// Make one with ``ContainerDemuxer/source(stream:)``. Sources of one demuxer share it: ``next()``
    /// reads packets until one of this stream comes, queueing those of the other streams that have a
    /// source. Releasing the source drops its queue, and the demuxer drops this stream's packets from
    /// then on. The source keeps its demuxer alive. Not `Sendable`: use a demuxer and its sources on one
    /// thread.
    public final class StreamSource: MediaSource, DiagnosticListing {
        /// The demuxer this source reads from.
        public let demuxer: ContainerDemuxer
        /// The stream, as the demuxer listed it when the source was made.
        public let stream: ContainerDemuxer.Stream

        init(demuxer: ContainerDemuxer, stream: ContainerDemuxer.Stream) {
            self.demuxer = demuxer
            self.stream = stream
        }

        deinit {
            demuxer.deselect(stream: stream.index)
        }

        /// The format of the samples handed out last (before the first, the stream's listed format).
        /// It differs from ``stream``'s when the stream changes it: an ADTS header that implies another
        /// AudioSpecificConfig, new in-band H.264 parameter sets.
        public var format: MediaFormat? { demuxer.currentFormat(stream: stream.index) ?? stream.format }

        /// Where the demuxer's ``ContainerDemuxer/diagnostics`` about this stream are logged, when it is
        /// set (a graph sets its own logger); `nil` (the default) keeps them silent.
        public var logger: Logger? {
            didSet {
                for finding in demuxer.findings where finding.stream == stream.index {
                    finding.diagnostic.log(to: logger)
                }
            }
        }

        /// The demuxer's ``ContainerDemuxer/diagnostics`` about this stream.
        public var mediaDiagnostics: [MediaDiagnostic] {
            demuxer.findings.filter { $0.stream == stream.index }.map(\.diagnostic)
        }

        /// `ContainerDemuxer stream N`.
        public var name: String { "ContainerDemuxer stream \(stream.index)" }

        /// The stream's next sample, or `nil` at the end of the input.
        ///
        /// - Throws: ``/MediaCore/MediaError/Code/queueFull`` when another stream's source is not being
        ///   read and its queue is full; libavformat's read errors (every source throws them once its
        ///   queue is empty) and errors converting a packet (``/MediaCore/MediaError/Code/invalidData``,
        ///   ``/MediaCore/MediaError/Code/unsupportedFormat``), each naming the input, with the stage
        ///   `ContainerDemuxer`. Backed by `av_read_frame`.
        public func next() throws(MediaError) -> MediaSample? {
            do throws(MediaError) {
                return try demuxer.nextSample(stream: stream.index)
            } catch {
                throw error.inStage("ContainerDemuxer")  // the same failure reaches every stream's source
            }
        }
    }
}

@available(*, unavailable) extension ContainerDemuxer.StreamSource: Sendable {}
