/// Runs `operation` on each of `inputs`, at most `limit` at once, and hands the results to `body` in the order they
/// complete: the classic apps' `merge(maxConcurrent:)`. The next operation starts as soon as one ends, whether `body`
/// has taken its result yet or not. The first error thrown ends the merge and cancels the operations still running;
/// cancelling the caller cancels them too.
package func mergeBounded<Input: Sendable, Output: Sendable>(
    _ inputs: [Input], limit: Int, _ operation: @escaping @Sendable (Input) async throws -> Output,
    each body: (Output) async throws -> Void
) async throws {
    try await forEachYielded(
        by: { yield in
            try await withThrowingTaskGroup(of: Output.self) { group in
                var pending = inputs.makeIterator()
                for _ in 0..<max(1, limit) {
                    guard let input = pending.next() else { break }
                    group.addTask { try await operation(input) }
                }
                while let output = try await group.next() {
                    yield(output)
                    if let input = pending.next() {
                        group.addTask { try await operation(input) }
                    }
                }
            }
        }, body)
}
