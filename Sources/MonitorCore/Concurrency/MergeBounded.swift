/// Runs `operation` on each of `inputs`, at most `limit` at once, and merges the results into one stream in
/// the order they complete: the classic apps' `merge(maxConcurrent:)`. The first error thrown ends the stream
/// and cancels the operations still running; cancelling the consumer cancels them too.
package func mergeBounded<Input: Sendable, Output: Sendable>(
    _ inputs: [Input], limit: Int, _ operation: @escaping @Sendable (Input) async throws -> Output
) -> AsyncThrowingStream<Output, any Error> {
    AsyncThrowingStream { continuation in
        let task = Task {
            do {
                try await withThrowingTaskGroup(of: Output.self) { group in
                    var pending = inputs.makeIterator()
                    for _ in 0..<max(1, limit) {
                        guard let input = pending.next() else { break }
                        group.addTask { try await operation(input) }
                    }
                    while let output = try await group.next() {
                        continuation.yield(output)
                        if let input = pending.next() {
                            group.addTask { try await operation(input) }
                        }
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
    }
}
