import Foundation
import MonitorCore
import Synchronization

/// One poll of an exec feed: runs the program once with the cursor it saved, and turns its messages into the
/// core's updates. The cursor it sends is stored with the poll only when the run succeeds.
struct ExecPoll: Sendable {
    /// The key of the cursor among the values the core keeps between polls.
    static let cursorKey = "cursor"

    /// The program and its arguments.
    let command: [String]
    /// The feed's `env`.
    let env: [String: String]
    /// The feed's `timeout`, when set.
    let timeout: Duration?
    /// The core's context for this poll.
    let context: PollContext
    /// The program's process group while it runs.
    let processGroup = ProcessGroup()

    /// What the messages so far came to.
    private struct State {
        var groups: [ItemGroup] = []
        var named: Set<String> = []
        var cursor: String?
    }

    /// The poll of a feed with `options`.
    init(options: FeedOptions, context: PollContext) {
        command = options.list("command") ?? []
        env = options.mapping("env") ?? [:]
        timeout = options.duration("timeout")
        self.context = context
    }

    /// Runs the program, handing each update to `yield`; throws when the run fails.
    func run(_ yield: @escaping @Sendable (SourceUpdate) -> Void) async throws {
        let cursor = context.values[Self.cursorKey]
        let run = ExecRun(
            command: command,
            environment: ExecEnvironment.make(
                feed: context.feed, cursor: cursor, env: env, from: ProcessInfo.processInfo.environment),
            input: Self.input(feed: context.feed, cursor: cursor), timeout: timeout ?? context.http.policy.timeout * 2,
            maxOutput: context.http.policy.maxBody, sleep: context.clock.sleep, processGroup: processGroup)
        let state = Mutex(State())
        let stored = context.stored
        try await run.run { messages in
            // Items in a row go as one batch.
            var items: [Item] = []
            let flush = { (items: [Item]) in
                guard !items.isEmpty else { return }
                state.withLock { state in
                    for item in items { state.named.formUnion(item.groups) }
                }
                yield(.items(items))
            }
            for message in messages {
                if case .item(let item) = message {
                    items.append(item)
                } else {
                    flush(items)
                    items = []
                    Self.apply(message, state: state, stored: stored, yield)
                }
            }
            flush(items)
        }
        let (named, sent) = state.withLock { ($0.named, $0.cursor) }
        if !named.isEmpty { yield(.completed(groups: named.sorted())) }
        // The run succeeded: its cursor is stored with the poll (an empty one removes it).
        if let sent, sent != cursor {
            context.values[Self.cursorKey] = sent.isEmpty ? nil : sent
        }
    }

    /// Turns one message other than an item into updates.
    private static func apply(
        _ message: ExecMessage, state: borrowing Mutex<State>, stored: FeedSnapshot, _ yield: (SourceUpdate) -> Void
    ) {
        switch message {
        case .group(let group):
            let groups = state.withLock { state in
                if let index = state.groups.firstIndex(where: { $0.id == group.id }) {
                    state.groups[index] = group
                } else {
                    state.groups.append(group)
                }
                state.named.insert(group.id)
                return state.groups
            }
            yield(.groups(groups))
        case .progress(let done, let total):
            yield(.progress(done: done, total: total))
        case .item(let item):
            state.withLock { $0.named.formUnion(item.groups) }
            yield(.items([item]))
        case .failure(let failure):
            yield(.failure(failure))
        case .unchanged:
            state.withLock { $0.named.formUnion(stored.groups.map(\.id)) }
            unchanged(stored).forEach(yield)
        case .cursor(let text):
            state.withLock { $0.cursor = text }
        }
    }

    /// `{"unchanged":true}`: the stored items count again, as they were.
    ///
    /// To be replaced by the core's "unchanged" when the new source contract lands (issue #11): the core then
    /// keeps the stored items itself and reports the poll `not_modified`.
    static func unchanged(_ stored: FeedSnapshot) -> [SourceUpdate] {
        stored.items.isEmpty ? [] : [.items(stored.items)]
    }

    /// The JSON line on the program's standard input: `{"protocol":1,"feed":"…","cursor":"…"}` (cursor null
    /// when none is stored).
    static func input(feed: String, cursor: String?) -> String {
        let object: JSONValue = .object([
            ("protocol", .integer(ExecEnvironment.protocolVersion)), ("feed", .string(feed)),
            ("cursor", .optional(cursor)),
        ])
        return object.text + "\n"
    }
}
