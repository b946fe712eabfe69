import MonitorCore

/// The `exec` source: a program in any language, run once per poll, that reports on its standard output in
/// JSON lines (protocol version 1, described in the README and in ``ExecMessage``).
///
/// The program is started from `command` (an argv, never through a shell) in a process group of its own, with
/// `MONITOR_PROTOCOL`, `MONITOR_FEED`, `MONITOR_CURSOR` and the feed's `env`; its standard input holds one JSON
/// object saying the same. Exit 0 ends the poll; anything else — another exit, a line that is not a message,
/// more output than `settings.max_body`, a run past `timeout` — fails it, and nothing of it is stored.
public struct ExecSource: FeedSource {
    public static let type = "exec"
    public static let summary = "An external program in any language, speaking JSON lines (see the README)"

    /// The default of `keep`.
    static let defaultKeep = 500

    public static let options: [OptionSpec] = [
        OptionSpec(
            "command", .list(placeholder: "words"), required: true,
            doc: "The program and its arguments, run without a shell, e.g. [python3, source.py, --flag]"),
        OptionSpec(
            "retention", .choice(["replace", "keep_newest"]), default: .string("keep_newest"),
            doc: "replace: each run reports the whole set; keep_newest: each run reports what is new"),
        OptionSpec(
            "keep", .integer(1...1_000_000), default: .integer(defaultKeep),
            doc: "With keep_newest, how many of the newest items are kept"),
        OptionSpec("timeout", .duration(), doc: "Time limit of the whole run (default: settings.timeout × 2)"),
        OptionSpec(
            "env", .mapping(placeholder: "NAME: value", key: ExecEnvironment.checkName), secret: true,
            doc: "Environment variables for the program, e.g. {API: \"${API_ROOT}\"}"),
    ]

    /// `keep` only means something with `keep_newest`.
    public static func check(_ options: FeedOptions) -> [Diagnostic] {
        guard options.string("retention") == "replace", options.isSet("keep") else { return [] }
        return [.error("'keep' applies only with 'retention: keep_newest'", at: options.location(of: "keep"))]
    }

    let options: FeedOptions

    public init(options: FeedOptions) {
        self.options = options
    }

    public var retention: ItemRetention {
        options.string("retention") == "replace" ? .replace : .keepNewest(options.integer("keep") ?? Self.defaultKeep)
    }

    public func poll(_ context: PollContext) -> AsyncThrowingStream<SourceUpdate, any Error> {
        let poll = ExecPoll(options: options, context: context)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await poll.run { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { termination in
                // Today's stream does not wait for the task it is cancelled with: end the program's process
                // group now, so that none outlives a stopping `monitor`. When `poll` becomes an async function
                // (issue #11), the cancelled run's own teardown (SIGTERM, then SIGKILL) is awaited instead.
                if case .cancelled = termination { poll.processGroup.kill() }
                task.cancel()
            }
        }
    }
}
