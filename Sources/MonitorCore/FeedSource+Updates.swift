import MonitorConcurrency

// MARK: - The updates of a poll, one by one

extension FeedSource {
    /// Polls once, handing each update the source reports through `Findings` to `body`, in order, in the caller's
    /// task; returns when the poll has returned, throws what it throws, and cancelling the caller cancels it.
    package func forEachUpdate(_ context: PollContext, _ body: (SourceUpdate) async throws -> Void) async throws {
        try await forEachYielded(by: { yield in try await poll(context, Findings(yield)) }, body)
    }
}
