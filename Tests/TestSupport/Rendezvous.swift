/// A meeting point for concurrent work: the first `count` callers of ``arrive()`` wait until all of them are there,
/// later callers pass at once.
///
/// It proves that `count` things run at the same time without giving them time to overlap: a server handler or an
/// operation that arrives here holds its slot until `count` are held. When fewer can ever run at once, the wait never
/// ends and the suite's `.timeLimit` fails the test.
package final class Rendezvous: Sendable {
    /// How many callers meet.
    package let count: Int
    private let arrived = Watched(0)

    /// A meeting of `count` callers.
    package init(_ count: Int) {
        self.count = count
    }

    /// How many callers have arrived so far.
    package var arrivals: Int { arrived.value }

    /// Waits until `count` callers have arrived (returns at once once they have); returns early when cancelled.
    package func arrive() async {
        arrived.update { $0 += 1 }
        let count = count
        _ = try? await arrived.wait { $0 >= count }
    }
}
