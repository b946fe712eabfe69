import Foundation
import Synchronization

/// Whether the state answers, as the feeds' loops find it: the call that first finds it unreachable, and the one that
/// first finds it answering again, make the event that says so (``PollEvent/state(unreachable:)``), once for every
/// feed rather than once per feed. The outcome of a call that started before the last change is not news: a call that
/// failed while the state was coming back does not make it unreachable again.
final class StateReachability: Sendable {
    private struct State {
        var unreachable = false
        /// When the last change was found.
        var changed = Date.distantPast
    }

    private let state = Mutex(State())

    /// A call that started at `started` and ended at `now` found the state unreachable (`error`): the event to report
    /// when that is news.
    func failed(_ error: StateError, started: Date, now: Date) -> PollEvent? {
        change(to: true, started: started, now: now) ? .state(unreachable: error) : nil
    }

    /// A call that started at `started` and ended at `now` had its answer: the event to report when the state was
    /// unreachable.
    func answered(started: Date, now: Date) -> PollEvent? {
        change(to: false, started: started, now: now) ? .state(unreachable: nil) : nil
    }

    private func change(to unreachable: Bool, started: Date, now: Date) -> Bool {
        state.withLock { state in
            guard state.unreachable != unreachable, started >= state.changed else { return false }
            state.unreachable = unreachable
            state.changed = now
            return true
        }
    }
}
