import EONETSource
import ExecSource
import GitHubSource
import MonitorCore

/// The built-in feed sources, in the order `monitor sources` lists them (README "Adding a source" says every
/// file and line a new one needs).
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
