public import MediaCore

/// What a player needs of its video output: back-pressure, a flush at a seek, and the window's keys.
extension VideoPreviewSink: PresentingSink {
    /// A key pressed in the window, as ``VideoPreviewSink/init(title:width:height:pacing:whenClosed:queueCapacity:onKey:onFrameShown:)``'s
    /// `onKey` gets it: ffplay's controls (space, arrows, `q`) and any other character typed.
    public enum Key: Sendable, Hashable {
        /// The space bar.
        case space
        /// The left arrow.
        case left
        /// The right arrow.
        case right
        /// The up arrow.
        case up
        /// The down arrow.
        case down
        /// Escape.
        case escape
        /// Another key that types a character (`q`, `f`, digits...), lowercase.
        case character(Character)
    }

    /// Whether the queue has room for another frame (always once the window is closed, which ignores
    /// what is written).
    public var isReadyForMoreMediaData: Bool { state.hasRoom }

    /// Drops the frames queued and not yet shown: a player's seek. The frame on screen stays until
    /// the next is due.
    public func flush() { state.flush() }
}
