import MonitorCore

/// One notifier as `monitor status` shows it: what the state holds of it, its type and where it delivers.
public struct NotifierLine: Sendable, Hashable {
    /// What the state holds of it.
    public var status: NotifierStatus
    /// Its type; nil for a notifier no longer in the feeds file.
    public var type: String?
    /// Where it delivers, masked; nil for a notifier no longer in the feeds file.
    public var target: String?

    /// A line.
    public init(status: NotifierStatus, type: String?, target: String?) {
        self.status = status
        self.type = type
        self.target = target
    }
}
