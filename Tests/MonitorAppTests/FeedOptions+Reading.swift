import MonitorOptions

@testable import MonitorCore

/// Typed reads of option values the product reads through `FeedOption`, for asserting what the loader made.
extension FeedOptions {
    func integer(_ name: String) -> Int? {
        if case .integer(let value)? = self[name] { value } else { nil }
    }

    func list(_ name: String) -> [String]? {
        if case .list(let value)? = self[name] { value } else { nil }
    }

    func mapping(_ name: String) -> [String: String]? {
        if case .mapping(let value)? = self[name] { value } else { nil }
    }
}
