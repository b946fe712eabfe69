import MonitorCore
import MonitorOptions
import MonitorPrograms
import MonitorText

/// The `exec` source: a program in any language, run once per poll, that reports on its standard output in
/// JSON lines (protocol version 1, described in docs/exec-protocol.md and in ``ExecMessage``).
///
/// The program is started from `command` (an argv, never through a shell) in a process group of its own, with
/// `MONITOR_PROTOCOL`, `MONITOR_FEED`, `MONITOR_CURSOR` and the feed's `env`; its standard input holds one JSON
/// object saying the same. Exit 0 ends the poll; anything else — another exit, a line that is not a message,
/// more output than `settings.max_body`, a run past `timeout` — fails it, and nothing of it is stored. A
/// cancelled poll (a stopping `monitor`) ends the program's whole process group, SIGTERM then SIGKILL, before
/// `poll` returns.
package struct ExecSource: FeedSource {
    package static let type = "exec"
    package static let summary = "An external program in any language, speaking JSON lines (see the README)"

    static let command = FeedOption<[String]?>(
        "command", .list(placeholder: "words"), required: true,
        doc: "The program and its arguments, run without a shell, e.g. [python3, source.py, --flag]")
    static let retentionOption = FeedOption<String>(
        "retention", .choice(["replace", "keep_newest"]), default: "keep_newest",
        doc: "replace: each run reports the whole set; keep_newest: each run reports what is new")
    static let keep = FeedOption<Int>(
        "keep", .integer(1...1_000_000), default: 500, doc: "With keep_newest, how many of the newest items are kept")
    static let timeout = FeedOption<Duration?>(
        "timeout", .duration(), doc: "Time limit of the whole run (default: settings.timeout × 2)")
    static let env = FeedOption<[String: String]?>(
        "env", .mapping(placeholder: "NAME: value", key: ProgramEnvironment.checkName), secret: true,
        doc: "Environment variables for the program, e.g. {API: \"${API_ROOT}\"}")

    package static let options: [any OptionDeclaration] = [command, retentionOption, keep, timeout, env]

    /// `keep` only means something with `keep_newest`.
    package static func check(_ options: FeedOptions) -> [Diagnostic] {
        guard options[retentionOption] == "replace", options.isSet(keep.name) else { return [] }
        return [.error("'keep' applies only with 'retention: keep_newest'", at: options.location(of: keep.name))]
    }

    let options: FeedOptions

    package init(options: FeedOptions) {
        self.options = options
    }

    package var retention: ItemRetention {
        options[Self.retentionOption] == "replace" ? .replace : .keepNewest(options[Self.keep])
    }

    package func poll(_ context: PollContext, _ found: Findings) async throws {
        try await ExecPoll(options: options, context: context).run(found)
    }
}
