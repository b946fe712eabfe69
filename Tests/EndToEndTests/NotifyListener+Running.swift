import Foundation
import TestSupport

extension NotifyListener {
    /// Waits as ``wait(for:statuses:)`` while `monitor` runs; throws when it exits first.
    @discardableResult
    func wait(for count: Int, while monitor: RunningMonitor) async throws -> [String] {
        try await whileRunning(monitor) { try await self.wait(for: count) }
    }

    /// Waits as ``wait(until:)`` while `monitor` runs; throws when it exits first.
    func wait(while monitor: RunningMonitor, until condition: @escaping @Sendable ([String]) -> Bool) async throws {
        try await whileRunning(monitor) { try await self.wait(until: condition) }
    }

    /// What `body` returns, unless `monitor` exits first: then throws.
    private func whileRunning<T: Sendable>(_ monitor: RunningMonitor, _ body: @escaping @Sendable () async throws -> T)
        async throws -> T
    {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                _ = try await monitor.waitForExit()
                return nil
            }
            defer { group.cancelAll() }
            guard let value = try await group.next() ?? nil else {
                throw ExitedEarly(messages: messages, stderr: monitor.stderr)
            }
            return value
        }
    }
}

/// `monitor` exited before the messages a test waited for: what came, and what it said.
struct ExitedEarly: Error {
    var messages: [String]
    var stderr: String
}
