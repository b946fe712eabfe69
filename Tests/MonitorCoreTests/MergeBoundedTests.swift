import MonitorConcurrency
import Synchronization
import TestSupport
import Testing

@testable import MonitorCore

@Suite("Bounded merge of sub-requests", .timeLimit(.minutes(5)))
struct MergeBoundedTests {
    @Test("every result arrives once, with never more than the limit running", arguments: [1, 2, 4])
    func bounded(limit: Int) async throws {
        let running = Mutex((now: 0, most: 0))
        // The first `limit` operations finish only once all of them run: `limit` at once is reached for sure.
        let together = Rendezvous(limit)
        var results: [Int] = []
        try await mergeBounded(
            Array(0..<12), limit: limit,
            { value in
                running.withLock { state in
                    state.now += 1
                    state.most = max(state.most, state.now)
                }
                await together.arrive()
                running.withLock { $0.now -= 1 }
                return value * 10
            }
        ) { results.append($0) }
        #expect(results.sorted() == (0..<12).map { $0 * 10 })
        #expect(running.withLock { $0.most } == limit)
    }

    @Test("an error ends the stream with that error")
    func error() async {
        struct Boom: Error {}
        var results: [Int] = []
        await #expect(throws: Boom.self) {
            try await mergeBounded(
                [1, 2, 3], limit: 1,
                { value in
                    if value == 2 { throw Boom() }
                    return value
                }
            ) { results.append($0) }
        }
        #expect(results == [1])
    }
}
