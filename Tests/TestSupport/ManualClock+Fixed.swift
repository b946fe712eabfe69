import Foundation

extension ManualClock {
    /// 2026-11-22 05:00:00 UTC, the `now` of the GitHub source's tests.
    package static let start = Date(timeIntervalSince1970: 1_795_323_600)

    /// A clock showing `start`.
    package static func fixed() -> ManualClock {
        ManualClock(start: start)
    }
}
