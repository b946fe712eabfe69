import MonitorCore

/// Where the long-running `monitor run` shows its events: lines and a live panel, or the full-screen view.
protocol RunView: AnyObject, Sendable {
    /// Shows one event.
    func show(_ event: PollEvent)
    /// Updates the feeds shown after the feeds file changed.
    func setFeeds(_ feeds: [FeedConfig], sources: [String: any FeedSource])
    /// Ends the display (clears the live lines, or restores the terminal).
    func finish()
}
