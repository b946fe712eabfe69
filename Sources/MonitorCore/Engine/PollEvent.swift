/// What the engine reports while it polls feeds.
public enum PollEvent: Sendable {
    /// A poll's display changed: the catalog joined with the running counts and progress.
    case view(FeedView)
    /// A poll ended.
    case finished(PollReport)
}
