import Foundation
import TestSupport
import Testing

@testable import MonitorCore

@Suite("Waiting on events in tests: Watched, Rendezvous and the manual clock", .timeLimit(.minutes(5)))
struct EventWaitTests {
    @Test("a wait returns the value that first satisfied it, and at once when it already holds")
    func watched() async throws {
        let watched = Watched(0)
        #expect(try await watched.wait { $0 == 0 } == 0)
        async let seen = watched.wait { $0 >= 3 }
        for _ in 0..<3 { watched.update { $0 += 1 } }
        #expect(try await seen == 3)
        watched.update { $0 += 1 }
        #expect(watched.value == 4)
    }

    @Test("a wait that never comes true ends with CancellationError when its task is cancelled")
    func cancelled() async {
        let watched = Watched(0)
        let waiting = Task { try await watched.wait { $0 < 0 } }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }

    @Test("the first `count` callers of a rendezvous wait for each other, later ones pass")
    func rendezvous() async {
        let three = Rendezvous(3)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 { group.addTask { await three.arrive() } }
        }
        #expect(three.arrivals == 3)
        await three.arrive()
        #expect(three.arrivals == 4)
    }

    @Test("waitForSleepers returns once the sleeper is there; advance wakes it at its deadline, not before")
    func manualClock() async throws {
        let clock = ManualClock()
        let start = clock.date
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        try await clock.waitForSleepers(1)
        #expect(clock.nextDeadline == start.addingTimeInterval(60))
        clock.advance(by: .seconds(59))
        #expect(clock.sleepers == 1)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.sleepers == 0)
        #expect(clock.date == start.addingTimeInterval(60))
    }

    @Test("a cancelled sleeper leaves the clock at once")
    func cancelledSleeper() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        try await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleepers == 0)
    }
}
