import Foundation
import Logging
import MonitorItems
import MonitorOptions

@testable import MonitorCore

/// What the notifier tests share (CommandNotifierTests; WebhookWireTests, which sends through the app's transport):
/// notifications, contexts, an outbox and a reference HMAC.
package enum Fixtures {
    package static let at = Date(timeIntervalSince1970: 1_800_000_000)

    /// A `new` notification of feed `rx` with three items.
    package static func notification(_ id: String = "3f1c2a9e-0000-4000-8000-000000000001", notifier: String = "chat")
        -> FeedNotification
    {
        FeedNotification(
            id: id, notifier: notifier, feed: "rx", type: "github", event: .new, at: at, total: 3,
            items: (1...3).map { number in
                Item(
                    id: "e\(number)", title: "Event \(number)", date: at.addingTimeInterval(-Double(number) * 60),
                    groups: ["PushEvent"], url: "https://github.com/x/\(number)")
            })
    }

    package static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A context sending through `transport`.
    package static func context(_ transport: any HTTPTransport, environment: [String: String] = [:]) -> NotifierContext
    {
        NotifierContext(
            transport: transport, timeout: .seconds(30), maxBody: 1 << 20,
            environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"].merging(environment) {
                $1
            })
    }

    /// Options holding `values` as if validated.
    package static func options(_ values: [String: OptionValue]) -> FeedOptions {
        var options = FeedOptions()
        for (name, value) in values { options.set(name, value) }
        return options
    }

    /// A state whose outbox holds `notifications`, committed as one poll of `rx`.
    package static func store(holding notifications: [FeedNotification]) async throws -> MemoryState {
        let store = MemoryState()
        var record = FeedRecord(name: "rx", type: "github")
        record.lastPoll = at
        try await store.commit(
            PollCommit(
                record: record, items: [], firstSeen: at, groups: [], validators: [:], values: [:],
                notifications: notifications), feed: "rx")
        return store
    }

    /// The HMAC-SHA256 of `body` under `key` in hexadecimal, computed by python3's `hmac` in a real process.
    package static func pythonHMAC(key: String, body: [UInt8]) async throws -> String {
        let (_, output, _) = try await ChildProcess.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import hmac, hashlib, sys; print(hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), "
                    + "hashlib.sha256).hexdigest())", key,
            ], input: body)
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
