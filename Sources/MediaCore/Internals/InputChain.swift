/// One input of a component that reads several sources at once (``/MediaAudio/AudioMixer``'s and
/// `VideoCompositor`'s inputs): a source and the stages its samples go through first, carried in a
/// ``Handoff`` to whichever thread reads them (the component's, or a live input's own), and taken once.
package final class InputChain: Sendable {
    /// The source and its stages, as the reader takes them.
    package struct Parts {
        /// The source.
        package var source: any MediaSource
        /// The stages its samples go through, in order.
        package var stages: [any MediaStage]
    }

    private let parts: Handoff<Parts>

    /// An input of `source` through `stages`.
    package init(source: sending any MediaSource, stages: sending [any MediaStage]) {
        parts = Handoff(Parts(source: source, stages: stages))
    }

    /// The source and stages, once; `component` (`"an AudioMixer"`) names the reader in the error a
    /// second take throws.
    ///
    /// - Throws: ``MediaError/Code/invalidArgument`` when the input was taken already (given to two readers).
    package func take(by component: String) throws(MediaError) -> sending Parts {
        guard let taken = parts.take() else {
            throw MediaError(
                .invalidArgument, "an input can be read by one \(component) only: this one is in one already")
        }
        return taken
    }
}
