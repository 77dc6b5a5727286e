public import MediaCore

/// Everything an ``AudioFileStreamParser`` says about a file before its packets, collected: what
/// `AudioFileGetProperty` answers, and what `media-info` prints.
///
/// ```swift
/// var properties = AudioFileProperties()
/// while let event = try parser.next() {
///     properties.take(event)
///     if properties.isReadyToProducePackets { break }
/// }
/// print(properties.dataFormat, properties.packetCount ?? -1)
/// ```
public struct AudioFileProperties: Sendable, Hashable {
    /// The container.
    public var fileType: AudioFileType?
    /// The packets' format.
    public var dataFormat: AudioStreamBasicDescription?
    /// The channels' positions.
    public var channelLayout: ChannelLayout?
    /// The decoder configuration, empty when there is none.
    public var magicCookie: [UInt8] = []
    /// The first audio byte's offset.
    public var dataOffset: Int64?
    /// The audio bytes, when the file says.
    public var dataByteCount: Int64?
    /// The packets, when the file says.
    public var packetCount: Int64?
    /// Priming, remainder and valid frames, when the file says (CAF `pakt`, MP3 LAME tag).
    public var packetTableInfo: AudioFilePacketTableInfo?
    /// The largest packet (or a bound on it).
    public var maximumPacketSize: Int?
    /// The bit rate the file states or implies.
    public var bitRate: Int?
    /// Whether every property has arrived and packets follow.
    public var isReadyToProducePackets = false

    /// No properties yet.
    public init() {}

    /// Records `event` when it is a property; packets and diagnostics are ignored.
    public mutating func take(_ event: AudioFileStreamEvent) {
        switch event {
        case .fileType(let type): fileType = type
        case .dataFormat(let format): dataFormat = format
        case .channelLayout(let layout): channelLayout = layout
        case .magicCookie(let cookie): magicCookie = cookie
        case .dataOffset(let offset): dataOffset = offset
        case .audioDataByteCount(let count): dataByteCount = count
        case .audioDataPacketCount(let count): packetCount = count
        case .packetTableInfo(let info): packetTableInfo = info
        case .maximumPacketSize(let size): maximumPacketSize = size
        case .bitRate(let rate): bitRate = rate
        case .readyToProducePackets: isReadyToProducePackets = true
        case .packets, .diagnostic: break
        }
    }
}
