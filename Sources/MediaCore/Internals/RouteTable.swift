import Synchronization

/// What a branch's thread hands a sink's thread in a threaded run: a sample of one of the sink's
/// tracks, or the end of that track.
enum SinkItem: Sendable {
    case sample(MediaSample, track: Int)
    case end(track: Int)
}

/// Where each branch of a threaded run delivers, while sinks join and leave it
/// (``MediaGraphRun/addSink(_:tracks:startsAtZero:onEnd:)``, ``MediaGraphRun/removeSink(_:)``).
///
/// - Writers: any thread, under the table's lock: ``add(_:)``, ``remove(sink:)``, ``addBranch()``.
/// - Readers: each branch's own thread, which keeps a copy of its entries and compares ``version``
///   with the one it copied once per sample (one atomic load; no lock, no allocation while nothing
///   changes). So a change takes effect between two samples of each branch, never within one.
/// - Ends: every (sink, track) input gets exactly one end. The branch's thread sends it when it sees
///   the input gone from the table (``entries(of:)``) or when the branch ends (``end(_:)``: no input is
///   added to it after that; ``add(_:)`` returns those whose branch had ended, for the caller to end).
///   An input removed before its branch ever saw it is returned by ``remove(sink:)``: no branch will
///   end it, so the caller does.
final class RouteTable: Sendable {
    /// One input of one sink, and how to reach it.
    struct Entry: Sendable {
        var route: Route
        /// The sink's queue; `nil` for a sink that runs on the branch's own thread.
        var queue: BoundedQueue<SinkItem>?
    }

    private struct Branch: Sendable {
        var entries: [Entry] = []
        /// Inputs added since the branch's thread last copied its entries.
        var unseen: Set<Route> = []
        var isEnded = false
    }

    private let branches: Locked<[Branch]>
    private let changes = Atomic<Int>(0)

    /// A table of `routes` (one list per branch) whose sinks are reached through `queues` (`nil`: inline),
    /// none of them seen yet.
    init(routes: [[Route]], queues: [BoundedQueue<SinkItem>?]) {
        branches = Locked(
            routes.map { list in
                Branch(entries: list.map { Entry(route: $0, queue: queues[$0.sink]) }, unseen: Set(list))
            })
    }

    /// Changes so far: a branch whose copy is of an older version copies its entries again.
    var version: Int { changes.load(ordering: .acquiring) }

    /// Branch `index`'s inputs now (all of them now seen), and the version they are of.
    func entries(of index: Int) -> (entries: [Entry], version: Int) {
        branches.withLock { all in
            all[index].unseen.removeAll()
            return (all[index].entries, changes.load(ordering: .acquiring))
        }
    }

    /// Marks branch `index` ended and returns its inputs: no input is added to it after this.
    func end(_ index: Int) -> [Entry] {
        branches.withLock { all in
            all[index].isEnded = true
            all[index].unseen.removeAll()
            return all[index].entries
        }
    }

    /// Adds a branch with no inputs yet; its index.
    func addBranch() -> Int {
        branches.withLock { all in
            all.append(Branch())
            return all.count - 1
        }
    }

    /// Adds `entries`, each to its branch; returns those whose branch has ended already, which no
    /// branch will end.
    func add(_ entries: [(branch: Int, entry: Entry)]) -> [Entry] {
        let orphans = branches.withLock { all in
            var orphans: [Entry] = []
            for (branch, entry) in entries {
                if all[branch].isEnded {
                    orphans.append(entry)
                } else {
                    all[branch].entries.append(entry)
                    all[branch].unseen.insert(entry.route)
                }
            }
            return orphans
        }
        changes.add(1, ordering: .releasing)
        return orphans
    }

    /// Removes every input of `sink`; returns those no branch had seen yet, which no branch will end.
    func remove(sink: Int) -> [Entry] {
        let unseen = branches.withLock { all in
            var unseen: [Entry] = []
            for index in all.indices {
                for entry in all[index].entries
                where entry.route.sink == sink && all[index].unseen.contains(entry.route) {
                    unseen.append(entry)
                    all[index].unseen.remove(entry.route)
                }
                all[index].entries.removeAll { $0.route.sink == sink }
            }
            return unseen
        }
        changes.add(1, ordering: .releasing)
        return unseen
    }

    /// Whether branch `index` feeds any input now.
    func isFeeding(_ index: Int) -> Bool {
        branches.withLock { !$0[index].entries.isEmpty }
    }
}
