import MonitorConcurrency
import TestSupport
import Testing

@testable import MonitorCore

@Suite(
    "The async semaphore: at most its limit of holders, every waiter served once, cancellation", .timeLimit(.minutes(5))
)
struct AsyncSemaphoreTests {
    @Test("10,000 waiters on a limit of 3 are each served once, never more than 3 at a time")
    func thousandsOfWaiters() async throws {
        let semaphore = AsyncSemaphore(limit: 3)
        let holders = Watched((now: 0, most: 0))
        let served = Watched<[Int]>([])
        // Taken first, so that the waiters queue while they start; returned once all were started.
        for _ in 0..<3 { try await semaphore.acquire() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<10_000 {
                group.addTask {
                    try await semaphore.acquire()
                    holders.update {
                        $0.now += 1
                        $0.most = max($0.most, $0.now)
                    }
                    served.update { $0.append(index) }
                    holders.update { $0.now -= 1 }
                    semaphore.release()
                }
            }
            for _ in 0..<3 { semaphore.release() }
            try await group.waitForAll()
        }
        #expect(served.value.sorted() == Array(0..<10_000))
        #expect(holders.value.most <= 3)
        // Every permit came back: three can be taken at once again.
        for _ in 0..<3 { try await semaphore.acquire() }
    }

    @Test("a cancelled waiter throws CancellationError and takes no permit; the next waiter gets it")
    func cancelledWaiter() async throws {
        let semaphore = AsyncSemaphore(limit: 1)
        try await semaphore.acquire()
        let cancelled = Task { try await semaphore.acquire() }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        let next = Task {
            try await semaphore.acquire()
            semaphore.release()
            return true
        }
        semaphore.release()
        #expect(try await next.value)
        try await semaphore.acquire()
        semaphore.release()
    }

    @Test("tryAcquire takes a free permit without waiting, even in a cancelled task, and none when all are held")
    func tryAcquire() async throws {
        let semaphore = AsyncSemaphore(limit: 2)
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return semaphore.tryAcquire()
        }
        #expect(await cancelled.value)
        #expect(semaphore.tryAcquire())
        #expect(!semaphore.tryAcquire())
        semaphore.release()
        #expect(semaphore.tryAcquire())
    }
}
