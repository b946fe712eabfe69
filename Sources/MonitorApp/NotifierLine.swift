import MonitorCore

/// One notifier as `monitor status` shows it: what the state holds of it, its type and where it delivers.
package struct NotifierLine: Sendable, Hashable {
    /// What the state holds of it.
    package var status: NotifierStatus
    /// Its type; nil for a notifier no longer in the feeds file.
    package var type: String?
    /// Where it delivers, masked; nil for a notifier no longer in the feeds file.
    package var target: String?

    package init(status: NotifierStatus, type: String?, target: String?) {
        self.status = status
        self.type = type
        self.target = target
    }
}
