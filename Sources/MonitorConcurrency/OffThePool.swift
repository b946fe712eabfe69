import Foundation

/// Runs `work` on a thread of its own and returns its result, leaving the cooperative thread pool free.
///
/// For work that blocks a thread: waiting for processes to exit, a blocking read, long CPU-bound work in the tests.
/// The pool has as many threads as cores (two on CI), and a task that holds one of them blocked stalls every task
/// waiting for a thread meanwhile. `work` runs outside the caller's task (not cancelled with it): a test records
/// expectations on what it returns, not inside it.
package func offThePool<T: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
        Thread.detachNewThread {
            continuation.resume(returning: Result { () throws(Failure) -> T in try work() })
        }
    }
    return try result.get()
}
