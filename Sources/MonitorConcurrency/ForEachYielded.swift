/// Runs `produce` in a child task and hands each element it yields to `body`, in order, in the caller's task, as it
/// comes (what `body` has not taken yet waits for it, however much). The first error either throws ends both;
/// cancelling the caller cancels `produce`. `produce` has ended when this returns.
package func forEachYielded<Element: Sendable>(
    by produce: @escaping @Sendable (_ yield: @escaping @Sendable (Element) -> Void) async throws -> Void,
    _ body: (Element) async throws -> Void
) async throws {
    let (elements, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            do {
                try await produce { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        for try await element in elements { try await body(element) }
    }
}
