import Foundation
import Logging
import MonitorSQLite
import ServiceLifecycle
import TestSupport
import Testing

@testable import MonitorApp

/// The scheduler's loop, held at its next watchdog answer from ``arm()`` until ``release()``.
private final class SchedulerHold: Sendable {
    private let state = Watched<(armed: Bool, held: Bool, released: Bool)>((false, false, false))

    /// What the loop awaits before each answer: nothing unless armed; armed, it stays until released, once.
    func answering() async {
        let armed = state.update { state in
            defer { if state.armed { state = (false, true, false) } }
            return state.armed
        }
        if armed { _ = try? await state.wait { $0.released } }
    }

    /// Holds the loop at its next answer; returns once it is held there.
    func arm() async throws {
        state.update { $0.armed = true }
        _ = try await state.wait { $0.held }
    }

    func release() { state.update { $0.released = true } }
}

@Suite("The watchdog follows the scheduler's loop", .timeLimit(.minutes(5)))
struct WatchdogTests {
    @Test("WATCHDOG=1 beats while the scheduler's loop answers, stop while it is held, and resume after")
    func watchdogFollowsTheScheduler() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(
            "feeds.yaml", "feeds:\n  - {name: quiet, type: exec, command: [cat, items.jsonl], interval: 1h}\n"
        ).path
        try directory.write("items.jsonl", "")
        let config = try #require(ConfigLoader().load(path: path).config)
        let listener = try NotifyListener(directory.url.appendingPathComponent("notify").path)
        defer { listener.close() }
        let hold = SchedulerHold()
        var options = MonitorService.Options(
            configPath: path, store: try SQLiteStateStore(directory: directory.url.appendingPathComponent("state")))
        options.output = { _ in }
        options.errors = { _ in }
        options.stagger = .zero
        // A beat every 50 ms.
        options.systemd = SystemdNotify(
            environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "100000"], warn: { _ in })
        options.schedulerAnswering = { await hold.answering() }
        let group = ServiceGroup(
            services: [MonitorService(config: config, options: options)], logger: Logger(label: "test"))

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var messages = try await listener.wait(for: 3)
            #expect(Array(messages.prefix(3)) == ["READY=1", "WATCHDOG=1", "WATCHDOG=1"])
            // The scheduler's loop waits at its next answer until the test releases it.
            try await hold.arm()
            // Held: every beat sent is queued before the marker the test sends itself now.
            let held = try await listener.mark()
            #expect(held.dropFirst().dropLast().allSatisfy { $0 == "WATCHDOG=1" }, "\(held)")
            // Twenty beats' time without one: a free-running timer would have beaten.
            messages = try await listener.none(beyond: held.count, within: .seconds(1))
            #expect(messages == held)
            hold.release()
            messages = try await listener.wait(for: held.count + 1)
            #expect(messages.last == "WATCHDOG=1")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let all = try await listener.mark()
        #expect(all.suffix(2) == ["STOPPING=1", NotifyListener.marker], "\(all)")
    }
}
