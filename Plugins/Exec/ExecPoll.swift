import Foundation
import MonitorCore
import MonitorItems
import MonitorJSON
import MonitorOptions
import MonitorPrograms
import MonitorText
import Synchronization

/// One poll of an exec feed: runs the program once with the cursor it saved, and reports its messages to the
/// core's `Findings`. The cursor it sends is stored with the poll only when the run succeeds: the program exited
/// 0 and the poll did not fail (failures reported with nothing else found fail it).
struct ExecPoll: Sendable {
    /// The key of the cursor among the values the core keeps between polls.
    static let cursorKey = "cursor"

    let command: [String]
    /// The feed's `env`.
    let env: [String: String]
    /// The feed's `timeout`, when set.
    let timeout: Duration?
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

    /// The poll of a feed with `options`.
    init(options: FeedOptions, context: PollContext) {
        command = options[ExecSource.command] ?? []
        env = options[ExecSource.env] ?? [:]
        timeout = options[ExecSource.timeout]
        self.context = context
    }

    /// Runs the program, reporting what it says to `found`; throws when the run fails. Cancelling it ends the
    /// program's process group (SIGTERM, then SIGKILL) before it returns.
    func run(_ found: Findings) async throws {
        let cursor = context.values[Self.cursorKey]
        // The environment every program starts from (a few harmless variables of monitor's own and the feed's
        // `env`), and the protocol's.
        var environment = ProgramEnvironment.make(env: env, from: ProcessInfo.processInfo.environment)
        environment["MONITOR_PROTOCOL"] = String(Self.protocolVersion)
        environment["MONITOR_FEED"] = context.feed
        environment["MONITOR_CURSOR"] = cursor
        let program = ProgramRun(
            command: command, directory: context.options.directory, environment: environment,
            timeout: timeout ?? context.http.policy.timeout * 2, redaction: Redaction(values: Array(env.values)),
            stderrCapacity: 4096, sleep: { [clock = context.clock] in try await clock.sleep(for: $0) })
        // On standard input: `{"protocol":1,"feed":"…","cursor":"…"}` (cursor null when none is stored).
        let input: JSONValue = .object([
            ("protocol", .integer(Self.protocolVersion)), ("feed", .string(context.feed)),
            ("cursor", .optional(cursor)),
        ])
        let run = ExecRun(program: program, input: input.text + "\n", maxOutput: context.http.policy.maxBody)
        let state = Mutex(State())
        try await run.run { messages in
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
        try Task.checkCancellation()
        let (named, sent, succeeded) = state.withLock { ($0.named, $0.cursor, $0.found || !$0.failed) }
        if !named.isEmpty { found.completed(named.sorted()) }
        // The run succeeded: its cursor is stored with the poll (an empty one removes it). A poll that only
        // failed stores nothing of it, the cursor included.
        if succeeded, let sent, sent != cursor {
            context.values[Self.cursorKey] = sent.isEmpty ? nil : sent
        }
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
