import MonitorCore

/// Where `monitor run` shows its events: lines and a live panel, the full-screen view, or the summaries of `--once`.
protocol RunView: AnyObject, Sendable {
    /// Shows one event.
    func show(_ event: PollEvent)
    /// Updates the feeds shown after the feeds file changed.
    func setFeeds(_ feeds: [FeedConfig], sources: [String: any FeedSource])
    /// Ends the display (clears the live lines, or restores the terminal).
    func finish()
}
