import MonitorConcurrency
import TestSupport
import Testing

@testable import MonitorCore

@Suite(
    "withDeadline: the work's outcome, the deadline's error, a cancelled caller's grace, the work left running",
    .timeLimit(.minutes(5))
)
struct WithDeadlineTests {
    struct Expired: Error {}
    struct Boom: Error {}

    let clock = ManualClock()

    /// `withDeadline` on the manual clock.
    func race<Value: Sendable>(
        _ deadline: Duration, grace: Duration = .zero, leaving: (@Sendable (Value) -> Void)? = nil,
        _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withDeadline(
            deadline, grace: grace, orThrow: Expired(), leaving: leaving, sleep: { try await clock.sleep(for: $0) },
            work)
    }

    @Test("the work's value when it ends first; its timer is gone after")
    func value() async throws {
        #expect(try await race(.seconds(30)) { 42 } == 42)
        #expect(clock.sleepers == 0)
    }

    @Test("the work's error when it fails first")
    func error() async {
        await #expect(throws: Boom.self) { try await race(.seconds(30)) { () async throws -> Int in throw Boom() } }
    }

    @Test("at the deadline: the error given, once the work was cancelled and has ended")
    func deadline() async throws {
        let steps = Watched<[String]>([])
        let cleanedUp = OneShot<Void>()
        let call = Task {
            defer { steps.update { $0.append("returned") } }
            try await race(.seconds(30)) {
                await Wakeup().wait()  // until cancelled
                steps.update { $0.append(Task.isCancelled ? "cancelled" : "not cancelled") }
                await cleanedUp.value  // cancelled work that takes its time to end (a program torn down)
                steps.update { $0.append("ended") }
            }
        }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        try await steps.wait { $0.contains("cancelled") }
        cleanedUp.fulfil(())
        await #expect(throws: Expired.self) { try await call.value }
        #expect(steps.value == ["cancelled", "ended", "returned"])
    }

    @Test("leaving: the deadline's error at once, the work left running; its late value is handed on")
    func leaving() async throws {
        let late = OneShot<Int>()
        let gate = OneShot<Void>()
        let call = Task {
            try await race(.seconds(30), leaving: { late.fulfil($0) }) {
                await gate.value  // deaf to cancellation (a server that never answers)
                return 7
            }
        }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        await #expect(throws: Expired.self) { try await call.value }
        gate.fulfil(())
        #expect(await late.value == 7)
    }

    @Test("a cancelled caller without grace: CancellationError, the work cancelled and waited for")
    func cancelled() async throws {
        let started = OneShot<Void>()
        let workCancelled = Watched(false)
        let call = Task {
            try await race(.seconds(30)) {
                started.fulfil(())
                await Wakeup().wait()  // until cancelled
                workCancelled.update { $0 = Task.isCancelled }
            }
        }
        await started.value
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(workCancelled.value)
        #expect(clock.sleepers == 0)
    }

    @Test("a cancelled caller's grace: work that ends within it is not cancelled, and its value is returned")
    func graceKept() async throws {
        let gate = OneShot<Void>()
        let call = Task {
            try await race(.seconds(30), grace: .seconds(5), leaving: { _ in }) {
                await gate.value  // deaf to cancellation: the caller does not wait for it past the grace
                return Task.isCancelled ? "cancelled" : "answered"
            }
        }
        try await clock.waitForSleepers(1)
        call.cancel()
        try await clock.waitForSleepers(2)  // the grace's timer
        clock.advance(by: .seconds(4))
        gate.fulfil(())
        #expect(try await call.value == "answered")
    }

    @Test("a cancelled caller's grace passes: CancellationError, then the work is cancelled")
    func gracePassed() async throws {
        let workCancelled = OneShot<Void>()
        let call = Task {
            try await race(.seconds(30), grace: .seconds(5)) {
                await Wakeup().wait()  // until cancelled
                if Task.isCancelled { workCancelled.fulfil(()) }
            }
        }
        try await clock.waitForSleepers(1)
        call.cancel()
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(5))
        await #expect(throws: CancellationError.self) { try await call.value }
        await workCancelled.value
    }

    @Test("the deadline passes within a cancelled caller's grace: the deadline's error")
    func deadlineWithinGrace() async throws {
        let call = Task {
            try await race(.seconds(10), grace: .seconds(5)) { await Wakeup().wait() }
        }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(8))
        call.cancel()
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(2))
        await #expect(throws: Expired.self) { try await call.value }
    }
}

@Suite("OneShot: the first value counts, every waiter gets it", .timeLimit(.minutes(5)))
struct OneShotTests {
    @Test("a waiter before the value and one after get the first value; a second is refused")
    func firstCounts() async throws {
        let shot = OneShot<Int>()
        let waiting = Watched(false)
        let early = Task {
            waiting.update { $0 = true }
            return await shot.value
        }
        try await waiting.wait { $0 }
        #expect(shot.fulfil(1))
        #expect(!shot.fulfil(2))
        #expect(await early.value == 1)
        #expect(await shot.value == 1)
    }
}
