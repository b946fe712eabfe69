import Logging
import Synchronization

/// The messages logged at warning level and above through ``logger``, each as `level: message (error)`, the
/// `error` metadata in parentheses when there is one.
package final class RecordedLog: Sendable {
    private let lines = Mutex<[String]>([])

    /// An empty log.
    package init() {}

    /// What was logged, in order.
    package var messages: [String] { lines.withLock { $0 } }

    /// A logger writing here.
    package var logger: Logger {
        Logger(label: "test") { _ in Handler(log: self) }
    }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let log: RecordedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .warning

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let error = event.metadata?["error"].map { " (\($0))" } ?? ""
            log.append("\(event.level): \(event.message)\(error)")
        }
    }
}
