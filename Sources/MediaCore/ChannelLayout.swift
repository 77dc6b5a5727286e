/// Which loudspeaker each channel feeds, as a bit mask in the order WAV's `dwChannelMask` and FFmpeg's
/// `AV_CH_*` share (front left = bit 0, front right = bit 1, front centre = bit 2, LFE = bit 3, ...).
///
/// A mask of 0 means the channels have no assigned positions ("unspecified"), and only the count is known.
public struct ChannelLayout: Sendable, Hashable, CustomStringConvertible {
    /// The number of channels.
    public let channelCount: Int
    /// The speaker positions, one bit per channel, or 0 when unspecified.
    public let mask: UInt64

    /// A layout of the channels in `mask`, in bit order.
    public init(mask: UInt64) {
        self.mask = mask
        self.channelCount = mask.nonzeroBitCount
    }

    /// `count` channels with no assigned positions.
    public static func unspecified(_ count: Int) -> ChannelLayout { ChannelLayout(count: count, mask: 0) }

    private init(count: Int, mask: UInt64) {
        self.channelCount = count
        self.mask = mask
    }

    /// Front left.
    public static let frontLeft: UInt64 = 0x1
    /// Front right.
    public static let frontRight: UInt64 = 0x2
    /// Front centre.
    public static let frontCenter: UInt64 = 0x4
    /// Low-frequency effects.
    public static let lowFrequency: UInt64 = 0x8
    /// Back left.
    public static let backLeft: UInt64 = 0x10
    /// Back right.
    public static let backRight: UInt64 = 0x20
    /// Back centre.
    public static let backCenter: UInt64 = 0x100
    /// Side left.
    public static let sideLeft: UInt64 = 0x200
    /// Side right.
    public static let sideRight: UInt64 = 0x400

    /// One channel, front centre.
    public static let mono = ChannelLayout(mask: frontCenter)
    /// Front left and right.
    public static let stereo = ChannelLayout(mask: frontLeft | frontRight)
    /// 5.1 with back surrounds (0x3F): FFmpeg's "5.1" and `av_channel_layout_default` for 6 channels,
    /// and WAV's usual 6-channel mask.
    public static let surround51 = ChannelLayout(
        mask: frontLeft | frontRight | frontCenter | lowFrequency | backLeft | backRight)
    /// 5.1 with side surrounds (0x60F): FFmpeg's "5.1(side)".
    public static let surround51Side = ChannelLayout(
        mask: frontLeft | frontRight | frontCenter | lowFrequency | sideLeft | sideRight)
    /// 7.1 (0x63F): FFmpeg's "7.1", front, centre, LFE, back and side pairs.
    public static let surround71 = ChannelLayout(mask: 0x63F)

    /// The layout a player assumes for `count` channels when nothing says otherwise (the same as FFmpeg's
    /// `av_channel_layout_default` for 1, 2, 6 and 8 channels; unspecified for other counts).
    public static func `default`(channelCount count: Int) -> ChannelLayout {
        switch count {
        case 1: return .mono
        case 2: return .stereo
        case 6: return .surround51
        case 8: return .surround71
        default: return .unspecified(count)
        }
    }

    /// Whether the positions are known.
    public var isSpecified: Bool { mask != 0 }

    /// `mono`, `stereo`, `5.1`, `7.1`, or the count and mask (`3 channels (0x7)`).
    public var description: String {
        switch self {
        case .mono: return "mono"
        case .stereo: return "stereo"
        case .surround51: return "5.1"
        case .surround51Side: return "5.1(side)"
        case .surround71: return "7.1"
        default:
            let hex = String(mask, radix: 16)
            return isSpecified ? "\(count: channelCount, "channel") (0x\(hex))" : "\(count: channelCount, "channel")"
        }
    }
}
