import Logging
import TestSupport
import Testing

@testable import MonitorCore

@Suite("A request's retries are spaced by the one Backoff, from the policy's base to its cap", .timeLimit(.minutes(5)))
struct RetryBackoffTests {
    @Test("a failing request waits base, twice that, … up to the cap, each wait between half and all of it")
    func spacing() async throws {
        let clock = ManualClock()
        clock.queueRandom([0, 0, 0, 0.5])
        var policy = HTTPPolicy(settings: Settings())
        policy.retries = 4
        policy.retryBaseDelay = .seconds(1)
        policy.retryMaxDelay = .seconds(3)
        let transport = StubTransport { _ in HTTPResponse(status: 503) }
        let http = FeedHTTP(
            transport: transport, policy: policy, limiters: [], clock: clock, logger: Logger(label: "test"))
        let get = Task { try await http.get("http://x/a") }
        var waits: [Duration] = []
        for _ in 0..<4 {
            try await clock.waitForSleepers(1)
            let deadline = try #require(clock.nextDeadline)
            waits.append(.milliseconds(Int64((deadline.timeIntervalSince(clock.date) * 1000).rounded())))
            clock.advance(to: deadline)
        }
        await #expect(throws: FetchError.self) { try await get.value }
        #expect(waits == [.milliseconds(500), .seconds(1), .milliseconds(1500), .milliseconds(2250)])
        #expect(transport.requests.count == 5)
    }
}
