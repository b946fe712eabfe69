import Foundation
import MonitorItems

/// What a source reports while it polls, handed to it by the core: groups, progress, items, failed
/// sub-requests, and what the server said had not changed. The core builds the stream, folds it into the
/// poll's tally and decides what is stored; a source only says what it found.
///
/// A request answered 304 Not Modified is reported as `unchanged`: the core then carries the stored items of
/// that group (or of the whole feed) into the poll, whatever the source's retention. A source never reads its
/// stored items back.
package struct Findings: Sendable {
    private let send: @Sendable (SourceUpdate) -> Void

    /// Findings handing every update to `send`, in order.
    init(_ send: @escaping @Sendable (SourceUpdate) -> Void) {
        self.send = send
    }

    /// The groups known up front, in the order to show them; a group without items still shows with 0.
    package func groups(_ groups: [ItemGroup]) { send(.groups(groups)) }

    /// Requests done out of the total known so far (nil while the total is unknown).
    package func progress(done: Int, total: Int?) { send(.progress(done: done, total: total)) }

    /// Items from one response; an item found again replaces the earlier one with the same id.
    package func items(_ items: [Item]) {
        if !items.isEmpty { send(.items(items)) }
    }

    package func item(_ item: Item) { send(.items([item])) }

    /// A sub-request failed: the poll goes on and ends `partial` (`failed` when nothing else succeeded); the
    /// stored items of `group`, when given, are kept.
    package func failed(_ what: String, _ message: String, group: String? = nil) {
        send(.failure(SubRequestFailure(what: what, message: message, group: group)))
    }

    package func failed(_ failure: SubRequestFailure) { send(.failure(failure)) }

    /// A sub-request succeeded and the items of `groups` are all in (even none); with no groups, a sub-request
    /// that fills no group of its own (one repository of a search) succeeded.
    package func completed(_ groups: [String] = []) { send(.completed(groups: groups)) }

    /// The requests of `groups` were answered 304 Not Modified: their stored items count again.
    package func unchanged(groups: [String]) { send(.unchanged(groups: groups)) }

    /// The feed's request was answered 304 Not Modified: every stored item counts again.
    package func unchanged() { send(.feedUnchanged) }

    /// The source read every answer its API offers, back to events of `until`, without reaching an event stored
    /// before: those since `since` (the newest event an earlier poll read, when the source knows it; else the newest
    /// stored item's date) may be missing. A feed with neither (a first sync), or where `since` is not older than
    /// `until`, has no gap.
    package func gap(since: Date? = nil, until: Date) { send(.gap(PollGap(since: since, until: until))) }

    /// The source says, in `message`, that events may be missing (not a failure).
    package func gap(message: String) { send(.gap(PollGap(message: message))) }

    /// The source says something the poll's summary and JSON should show that is neither a failure nor a gap, such as
    /// how many items were left without details and why.
    package func note(_ message: String) { send(.note(message)) }
}
