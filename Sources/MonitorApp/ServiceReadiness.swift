import Synchronization

/// Where `monitor run` stands for whoever supervises it: ready once the feeds file is loaded, the state is open and
/// every feed is scheduled; reloading while a changed feeds file is applied; stopping once asked to stop. Made with
/// the service's options; the notify protocol (systemd) observes it.
package final class ServiceReadiness: Sendable {
    /// A stage of the service.
    package enum State: Sendable, Hashable {
        case starting, ready, reloading, stopping
    }

    private let storage = Mutex<(state: State, observers: [@Sendable (State) -> Void])>((.starting, []))

    /// The current stage.
    package var state: State { storage.withLock { $0.state } }

    /// Whether the feeds run as loaded (a reload keeps them running).
    package var isReady: Bool { [.ready, .reloading].contains(state) }

    /// Calls `observer` with every later change, in order.
    package func observe(_ observer: @escaping @Sendable (State) -> Void) {
        storage.withLock { $0.observers.append(observer) }
    }

    /// Moves to `state`; the observers hear of it (under the lock, so that they hear the changes in order).
    func set(_ state: State) {
        storage.withLock { storage in
            guard storage.state != state else { return }
            storage.state = state
            for observer in storage.observers { observer(state) }
        }
    }
}
