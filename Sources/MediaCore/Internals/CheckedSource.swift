/// A source as the drivers hold it: its name read once, and its errors stamped, by the same
/// ``LifeCycle`` as the stages', with its name and the index of the sample asked for.
final class CheckedSource {
    private var source: any MediaSource
    // Unchecked exclusivity, as in CheckedStage: nothing writes `life` while a call into the source runs.
    @exclusivity(unchecked) private var life: LifeCycle

    init(_ source: any MediaSource) {
        self.source = source
        life = LifeCycle(name: source.name)
    }

    /// The source's name.
    var name: String { life.name }

    /// The source's next sample, or `nil` at its end.
    func next() throws -> MediaSample? {
        do {
            let sample = try source.next()
            if sample != nil { life.count += 1 }
            return sample
        } catch {
            throw life.failure(error)
        }
    }
}

@available(*, unavailable) extension CheckedSource: Sendable {}
