import MediaCore

/// What an ``AudioRecorder`` records: AVAudioRecorder's settings dictionary as a type
/// (`AVFormatIDKey`, `AVSampleRateKey`, `AVNumberOfChannelsKey`, `AVEncoderBitRateKey`,
/// `AVLinearPCMBitDepthKey`, `AVLinearPCMIsFloatKey`).
///
/// ```swift
/// var settings = AudioRecorderSettings(format: .aac, sampleRate: 48_000, channels: 2)
/// settings.bitRate = 128_000
/// ```
///
/// AVAudioRecorder's `AVEncoderAudioQualityKey` has no counterpart: FFmpeg's AAC encoder is driven by
/// the bit rate. Big-endian PCM is what AIFF stores; the recorder writes each container's own byte order.
public struct AudioRecorderSettings: Sendable, Hashable {
    /// What the file's audio is.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// AAC-LC (`kAudioFormatMPEG4AAC`).
        case aac
        /// Linear PCM (`kAudioFormatLinearPCM`).
        case linearPCM = "lpcm"
    }

    /// AAC or linear PCM. Default AAC.
    public var format: Format
    /// Frames per second. Default 48 000.
    public var sampleRate: Int
    /// Channels (1 or 2 for most devices; up to 8). Default 2.
    public var channels: Int
    /// AAC's average bit rate in bits per second. Default 128 000.
    public var bitRate: Int
    /// Linear PCM's bits per sample: 16, 24 or 32. Default 16.
    public var bitDepth: Int
    /// Linear PCM as floating point (32-bit) rather than integers. Default `false`.
    public var isFloat: Bool

    /// Settings with every value given or defaulted.
    public init(
        format: Format = .aac, sampleRate: Int = 48_000, channels: Int = 2, bitRate: Int = 128_000, bitDepth: Int = 16,
        isFloat: Bool = false
    ) {
        self.format = format
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitRate = bitRate
        self.bitDepth = bitDepth
        self.isFloat = isFloat
    }

    /// The PCM sample type written for linear PCM.
    var pcmSampleType: PCMSampleType {
        if isFloat { return .f32 }
        switch bitDepth {
        case 24: return .s24
        case 32: return .s32
        default: return .s16
        }
    }

    /// Checks the values a recorder cannot use.
    ///
    /// - Throws: ``/MediaCore/MediaError/Code/invalidArgument`` naming the value.
    func validate() throws(MediaError) {
        guard (8_000...192_000).contains(sampleRate) else {
            throw MediaError(.invalidArgument, "a sample rate of \(sampleRate) Hz is outside 8000…192000")
        }
        guard (1...8).contains(channels) else {
            throw MediaError(.invalidArgument, "\(count: channels, "channel") is outside 1…8")
        }
        if format == .aac, !(8_000...512_000).contains(bitRate) {
            throw MediaError(.invalidArgument, "an AAC bit rate of \(bitRate) b/s is outside 8000…512000")
        }
        if format == .linearPCM, !isFloat, ![16, 24, 32].contains(bitDepth) {
            throw MediaError(.invalidArgument, "a linear PCM bit depth of \(bitDepth) is not 16, 24 or 32")
        }
    }
}
