import CommandNotifier
import EONETSource
import ExecSource
import GitHubSource
import JSONAPISource
import MonitorCore
import WebFeedSource
import WebhookNotifier

/// The built-in feed sources, in the order `monitor sources` lists them ("Adding a source" in docs/architecture.md
/// says every file and line a new one needs).
package enum Registry {
    /// Every source `feeds.yaml` can name in `type:`.
    package static let sources: [any FeedSource.Type] = [
        GitHubSource.self,
        EONETSource.self,
        ExecSource.self,
        WebFeedSource.self,
        JSONAPISource.self,
    ]

    /// The source whose `type` is `name`.
    package static func source(named name: String) -> (any FeedSource.Type)? {
        sources.first { $0.type == name }
    }

    /// Every notifier a `notify:` item can name in `type:`.
    package static let notifiers: [any Notifier.Type] = [
        WebhookNotifier.self,
        CommandNotifier.self,
    ]
}
