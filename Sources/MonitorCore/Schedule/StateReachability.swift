import Foundation
import Synchronization

/// Whether the state answers, as the feeds' loops find it: the call that first finds it unreachable, and the one that
/// first finds it answering again, make the event that says so (``PollEvent/state(unreachable:)``), once for every
/// feed rather than once per feed. The outcome of a call that started before the last change is not news: a call that
/// failed while the state was coming back does not make it unreachable again.
final class StateReachability: Sendable {
    /// Whether it is unreachable, and when the last change was found.
    private let state = Mutex((unreachable: false, changed: Date.distantPast))

    /// A call that started at `started` and ended at `now` found the state unreachable (`error`) or had its answer
    /// (nil): the event to report when that is news.
    func found(_ error: StateError?, started: Date, now: Date) -> PollEvent? {
        state.withLock { state in
            guard state.unreachable != (error != nil), started >= state.changed else { return nil }
            state = (error != nil, now)
            return .state(unreachable: error)
        }
    }
}
