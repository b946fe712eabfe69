import Synchronization

/// Whether `monitor run` is ready: the feeds file is loaded, the state is open and every feed is scheduled. Created
/// with the service's options, set by ``MonitorService`` at that point (and unset when it stops), read by who needs it
/// (`/readyz`).
package final class ServiceReadiness: Sendable {
    private let ready = Mutex(false)

    package init() {}

    /// Whether the service is ready now.
    package var isReady: Bool { ready.withLock { $0 } }

    /// Sets whether the service is ready.
    package func set(_ value: Bool) {
        ready.withLock { $0 = value }
    }
}
