// MARK: - The stream of a poll

extension FeedSource {
    /// The updates of one poll as a stream: the source's `poll` runs in a task of its own, reporting through
    /// `Findings`; the stream ends when it returns, throws what it throws, and cancelling the consumer cancels
    /// it. The one place a poll becomes a stream.
    package func updates(_ context: PollContext) -> AsyncThrowingStream<SourceUpdate, any Error> {
        let (stream, continuation) = AsyncThrowingStream<SourceUpdate, any Error>.makeStream()
        let task = Task {
            do {
                try await poll(context, Findings { continuation.yield($0) })
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
