import Foundation
import MonitorCore

/// One notifier as `monitor status` shows it: what the state holds of it, its type and where it delivers.
package struct NotifierLine: Sendable, Hashable {
    /// What the state holds of it.
    package var status: NotifierStatus
    /// Its type; nil for a notifier no longer in the feeds file.
    package var type: String?
    /// Where it delivers, masked; nil for a notifier no longer in the feeds file.
    package var target: String?

    /// Its digest period (`digest:`); nil when it sends each notification as it comes.
    package var digest: Duration?
    /// When its next digest is due: one period after the oldest notification it collected (later after a failed
    /// attempt); nil when it collected none.
    package var nextDigest: Date?
}
