public import MediaCore

/// What an ``AudioFileStreamParser`` hands out, in the order the stream reveals it: the properties
/// Audio File Stream Services reports through its property listener, then the packets it gives its
/// packets callback, with diagnostics where the parser skipped or worked around something.
///
/// A typical WAVE file gives `fileType`, `dataFormat`, `channelLayout`, `dataOffset`,
/// `audioDataByteCount`, `audioDataPacketCount`, `maximumPacketSize`, `bitRate`,
/// `readyToProducePackets`, then `packets` until the end. Each format reports what it knows and when it
/// knows it (an MP3 stream learns its packet count from a Xing tag, or never).
public enum AudioFileStreamEvent: Sendable, Hashable {
    /// The container (`kAudioFileStreamProperty_FileFormat`).
    case fileType(AudioFileType)
    /// The packets' format (`kAudioFileStreamProperty_DataFormat`).
    case dataFormat(AudioStreamBasicDescription)
    /// The channels' speaker positions (`kAudioFileStreamProperty_ChannelLayout`): from a WAVE
    /// extensible mask, a CAF `chan` chunk, or the channel count's default.
    case channelLayout(ChannelLayout)
    /// The codec configuration a decoder needs (`kAudioFileStreamProperty_MagicCookieData`): the
    /// AudioSpecificConfig for AAC, the `alac` atom for ALAC, as the file stores it otherwise.
    case magicCookie([UInt8])
    /// The byte offset of the first audio byte (`kAudioFileStreamProperty_DataOffset`).
    case dataOffset(Int64)
    /// The number of audio bytes, when the file says (`kAudioFileStreamProperty_AudioDataByteCount`).
    case audioDataByteCount(Int64)
    /// The number of packets, when the file says or it follows from the byte count
    /// (`kAudioFileStreamProperty_AudioDataPacketCount`).
    case audioDataPacketCount(Int64)
    /// Priming, remainder and valid frames (`kAudioFileStreamProperty_PacketTableInfo`): a CAF `pakt`,
    /// an MP3 LAME tag's encoder delay and padding.
    case packetTableInfo(AudioFilePacketTableInfo)
    /// The largest packet in bytes, exact or an upper bound (`kAudioFileStreamProperty_MaximumPacketSize`).
    case maximumPacketSize(Int)
    /// The bit rate in bits per second, exact for constant bit rates, else an estimate
    /// (`kAudioFileStreamProperty_BitRate`).
    case bitRate(Int)
    /// Every property has been reported; packets follow (`kAudioFileStreamProperty_ReadyToProducePackets`).
    case readyToProducePackets
    /// One or more whole packets.
    case packets(AudioFilePackets)
    /// Something the parser noticed and worked around (skipped bytes, a tag, a cut-off packet).
    case diagnostic(AudioFileStreamDiagnostic)
}

/// Priming and remainder frames, as `AudioFilePacketTableInfo`: the frames an encoder added at the
/// start and the end, and the valid frames between them.
public struct AudioFilePacketTableInfo: Sendable, Hashable {
    /// Frames the decoder produces that precede the audio (encoder delay).
    public var primingFrames: Int64
    /// Frames at the end of the last packet that follow the audio (padding).
    public var remainderFrames: Int64
    /// Frames of audio: all packets' frames minus priming and remainder; -1 when unknown.
    public var validFrames: Int64

    /// Info with every field given.
    public init(primingFrames: Int64, remainderFrames: Int64, validFrames: Int64) {
        self.primingFrames = primingFrames
        self.remainderFrames = remainderFrames
        self.validFrames = validFrames
    }
}

/// `AudioStreamPacketDescription`: where one variable-size packet is in an ``AudioFilePackets``' bytes.
public struct AudioStreamPacketDescription: Sendable, Hashable {
    /// The packet's first byte, as an index into ``AudioFilePackets/bytes``.
    public var startOffset: Int
    /// The packet's size in bytes.
    public var dataByteSize: Int
    /// The frames the packet decodes to; 0 when the format's `framesPerPacket` applies.
    public var variableFramesInPacket: Int

    /// A description with every field given.
    public init(startOffset: Int, dataByteSize: Int, variableFramesInPacket: Int = 0) {
        self.startOffset = startOffset
        self.dataByteSize = dataByteSize
        self.variableFramesInPacket = variableFramesInPacket
    }
}

/// Whole packets, back to back, as `AudioFileStream`'s packets callback receives them.
///
/// Packets come in batches so that the parser works per batch, not per packet; and it allocates
/// nothing per batch in steady state: once the consumer has let go of a batch (the usual case: it is
/// decoded or written, then dropped), the parser refills the same buffers for the next one. A batch
/// that is kept is never changed (value semantics: the parser then fills new buffers). A batch holds as
/// many packets as fit in the parser's ``AudioFileStreamParser/Batching`` limits, or fewer where the
/// data ends, a seek or resynchronisation breaks the run, or the format changes; the boundaries
/// depend only on the bytes, never on how they were split when pushed.
public struct AudioFilePackets: Sendable, Hashable {
    /// The packets' bytes.
    public var bytes: [UInt8]
    /// The byte offset in the file of the first packet.
    public var fileOffset: Int64
    /// The bytes of the file the batch spans, from ``fileOffset`` to the end of its last packet: the
    /// same as `bytes.count` unless the container wraps each packet (ADTS headers).
    public var fileByteCount: Int64
    /// The index of the first packet in the stream, counting from 0.
    public var firstPacket: Int64
    /// How many packets the batch holds.
    public var packetCount: Int
    /// How many frames the packets decode to (before any trimming).
    public var frameCount: Int64
    /// One description per packet for variable-size packets; empty when every packet has the
    /// format's `bytesPerPacket` (then packet `i` starts at `i * bytesPerPacket`).
    public var descriptions: [AudioStreamPacketDescription]
    /// Whether something is missing before this batch: bytes were skipped to resynchronise, or the
    /// parser was moved with ``AudioFileStreamParser/seek(toPacket:)``.
    public var isDiscontinuity: Bool

    /// A batch with every field given.
    public init(
        bytes: [UInt8], fileOffset: Int64, fileByteCount: Int64? = nil, firstPacket: Int64, packetCount: Int,
        frameCount: Int64,
        descriptions: [AudioStreamPacketDescription] = [], isDiscontinuity: Bool = false
    ) {
        self.bytes = bytes
        self.fileOffset = fileOffset
        self.fileByteCount = fileByteCount ?? Int64(bytes.count)
        self.firstPacket = firstPacket
        self.packetCount = packetCount
        self.frameCount = frameCount
        self.descriptions = descriptions
        self.isDiscontinuity = isDiscontinuity
    }
}
