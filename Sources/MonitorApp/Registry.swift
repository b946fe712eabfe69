import EONETSource
import ExecSource
import GitHubSource
import MonitorCore

/// The built-in feed sources. Adding a source is one folder under `Plugins/` and one line here.
public enum Registry {
    /// Every source `feeds.yaml` can name in `type:`.
    public static let sources: [any FeedSource.Type] = [
        GitHubSource.self,
        EONETSource.self,
        ExecSource.self,
    ]

    /// The source whose `type` is `name`.
    public static func source(named name: String) -> (any FeedSource.Type)? {
        sources.first { $0.type == name }
    }
}
