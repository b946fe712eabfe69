@testable import MonitorApp

// The tests compare whole views; a tuple in each keeps Swift from writing their `==`.

extension LiveState.Output: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.log == rhs.log && lhs.redrawNow == rhs.redrawNow && lhs.lease?.feed == rhs.lease?.feed
            && lhs.lease?.holder == rhs.lease?.holder
    }
}

extension LiveView.FeedLine: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.phase == rhs.phase && lhs.progress?.done == rhs.progress?.done
            && lhs.progress?.total == rhs.progress?.total && lhs.items == rhs.items && lhs.new == rhs.new
            && lhs.next == rhs.next && lhs.failures == rhs.failures && lhs.stale == rhs.stale
            && lhs.gap == rhs.gap && lhs.holder == rhs.holder
    }
}

extension StoredFeed.GroupRow: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.id == rhs.id && lhs.title == rhs.title && lhs.count == rhs.count
            && lhs.breakdown.map(\.value) == rhs.breakdown.map(\.value)
            && lhs.breakdown.map(\.count) == rhs.breakdown.map(\.count)
    }
}
