import Foundation
import MonitorCore
import MonitorItems
import MonitorJSON
import MonitorOptions
import MonitorPrograms
import MonitorText
import Subprocess
import Synchronization

/// One poll of an exec feed: runs the program once with the cursor it saved, and reports its messages to the
/// core's `Findings`. The cursor it sends is stored with the poll only when the run succeeds: the program exited
/// 0 and the poll did not fail (failures reported with nothing else found fail it).
struct ExecPoll: Sendable {
    /// The key of the cursor among the values the core keeps between polls.
    static let cursorKey = "cursor"

    let options: FeedOptions
    let context: PollContext

    /// What the messages so far came to.
    private struct State {
        var groups: [ItemGroup] = []
        /// The position of each group in `groups`.
        var positions: [String: Int] = [:]
        var named: Set<String> = []
        var cursor: String?
        /// Whether a message found something: items, or `unchanged`.
        var found = false
        /// Whether a message reported a failure.
        var failed = false

        /// Adds `group` to the catalog, or retitles it when it is there.
        mutating func announce(_ group: ItemGroup) {
            if let index = positions[group.id] {
                groups[index] = group
            } else {
                positions[group.id] = groups.count
                groups.append(group)
            }
            named.insert(group.id)
        }
    }

    /// The protocol version programs are told.
    static let protocolVersion = 1

    /// Runs the program (how it is started and ended: ``ProgramRun``), reporting the messages of its standard output
    /// to `found` as they come. It throws a ``SourceError`` that says why when the program cannot start, exits
    /// otherwise (with the last lines of its standard error), writes a line that is not a message or more output than
    /// the feed's body limit, or is still running after its timeout. Cancelling it ends the program's process group
    /// (SIGTERM, then SIGKILL) before it returns.
    func run(_ found: Findings) async throws {
        let cursor = context.values[Self.cursorKey]
        let env = options[ExecSource.env] ?? [:]
        // The environment every program starts from (a few harmless variables of monitor's own and the feed's
        // `env`), and the protocol's.
        var environment = ProgramEnvironment.make(env: env, from: ProcessInfo.processInfo.environment)
        environment["MONITOR_PROTOCOL"] = String(Self.protocolVersion)
        environment["MONITOR_FEED"] = context.feed
        environment["MONITOR_CURSOR"] = cursor
        let program = ProgramRun(
            command: options[ExecSource.command] ?? [], directory: context.options.directory, environment: environment,
            timeout: options[ExecSource.timeout] ?? context.http.policy.timeout * 2,
            redaction: Redaction(values: Array(env.values)),
            stderrCapacity: 4096, sleep: { [clock = context.clock] in try await clock.sleep(for: $0) })
        // On standard input: `{"protocol":1,"feed":"…","cursor":"…"}` (cursor null when none is stored).
        let input: JSONValue = .object([
            ("protocol", .integer(Self.protocolVersion)), ("feed", .string(context.feed)),
            ("cursor", .optional(cursor)),
        ])
        let state = Mutex(State())
        let handle = { @Sendable (messages: [ExecMessage]) in
            // Items in a row go as one batch, and the groups announced meanwhile as one catalog.
            var items: [Item] = []
            var announced = false
            let send = { (items: [Item], announced: Bool) in
                if announced { found.groups(state.withLock { $0.groups }) }
                guard !items.isEmpty else { return }
                state.withLock { state in
                    for item in items { state.named.formUnion(item.groups) }
                    state.found = true
                }
                found.items(items)
            }
            for message in messages {
                switch message {
                case .item(var item):
                    // Items in the same groups share one list of them (a list is a heap object of its own).
                    if let last = items.last, last.groups == item.groups { item.groups = last.groups }
                    items.append(item)
                case .group(let group):
                    state.withLock { $0.announce(group) }
                    announced = true
                default:
                    send(items, announced)
                    (items, announced) = ([], false)
                    Self.apply(message, state: state, found)
                }
            }
            send(items, announced)
        }
        do {
            try await program.run(input: Array((input.text + "\n").utf8), output: .sequence, stderr: \.lines) {
                [maxOutput = context.http.policy.maxBody] execution in
                try await Self.read(execution.standardOutput, maxOutput: maxOutput, handle)
            }
        } catch let failure as ProgramRun.Failure {
            throw SourceError(failure.message)
        }
        try Task.checkCancellation()
        let (named, sent, succeeded) = state.withLock { ($0.named, $0.cursor, $0.found || !$0.failed) }
        if !named.isEmpty { found.completed(named.sorted()) }
        // The run succeeded: its cursor is stored with the poll (an empty one removes it). A poll that only
        // failed stores nothing of it, the cursor included.
        if succeeded, let sent, sent != cursor {
            context.values[Self.cursorKey] = sent.isEmpty ? nil : sent
        }
    }

    /// Reads standard output as messages until it ends.
    private static func read(
        _ output: SubprocessOutputSequence, maxOutput: Int, _ handle: @escaping @Sendable ([ExecMessage]) -> Void
    ) async throws {
        var lines = OutputLines(limit: maxOutput)
        var messages: [ExecMessage] = []
        let message = { (number: Int, line: [UInt8]) throws -> Void in
            do {
                messages.append(try ExecMessage(line: line))
            } catch let problem as ExecMessage.Problem {
                throw SourceError("line \(number) of the output: \(problem.message)")
            }
        }
        // The messages of one chunk go together, so that many small lines do not make as many updates.
        for try await chunk in output {
            try chunk.withUnsafeBytes { try lines.append($0, message) }
            if !messages.isEmpty { handle(messages) }
            messages.removeAll(keepingCapacity: true)
        }
        try lines.finish(message)
        if !messages.isEmpty { handle(messages) }
    }

    /// Reports one message other than an item.
    private static func apply(_ message: ExecMessage, state: borrowing Mutex<State>, _ found: Findings) {
        switch message {
        case .group, .item:
            // Batched by the loop that reads the messages.
            break
        case .progress(let done, let total):
            found.progress(done: done, total: total)
        case .failure(let failure):
            state.withLock { $0.failed = true }
            found.failed(failure)
        case .unchanged:
            // The core carries the stored items; with nothing else found, the poll is `not_modified`.
            state.withLock { $0.found = true }
            found.unchanged()
        case .cursor(let text):
            state.withLock { $0.cursor = text }
        case .gap(let message):
            found.gap(message: message)
        }
    }
}
