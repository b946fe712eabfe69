import Foundation

/// Runs `work` on a thread of its own and returns its result, leaving the cooperative thread pool free.
///
/// For long CPU-bound test work (fuzzing, large fixtures): on a busy machine the pool has as few threads as cores,
/// and a test that holds one for seconds starves the tests whose tasks wait for an event. `work` runs outside the
/// test's task: record expectations on what it returns, not inside it.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try work() })
        }
    }
}
