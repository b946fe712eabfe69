import Testing

@testable import MonitorCore

@Suite("How failed deliveries are spaced (Backoff)")
struct DeliveryBackoffTests {
    let backoff = Backoff(base: .seconds(5), maximum: .seconds(900))

    @Test("doubling from the base, between half and the whole of it with jitter, capped at the maximum")
    func exponential() {
        #expect(backoff.delay(afterAttempts: 1, retryAfter: nil, random: 0) == .milliseconds(2500))
        #expect(backoff.delay(afterAttempts: 1, retryAfter: nil, random: 0.5) == .milliseconds(3750))
        #expect(backoff.delay(afterAttempts: 2, retryAfter: nil, random: 0) == .seconds(5))
        #expect(backoff.delay(afterAttempts: 4, retryAfter: nil, random: 0) == .seconds(20))
        #expect(backoff.delay(afterAttempts: 9, retryAfter: nil, random: 0) == .seconds(450))
        #expect(backoff.delay(afterAttempts: 10, retryAfter: nil, random: 0) == .seconds(450))
        #expect(backoff.delay(afterAttempts: 1000, retryAfter: nil, random: 0) == .seconds(450))
    }

    @Test("a Retry-After lengthens it, cut to an hour; a zero or past one waits the backoff, at least the base")
    func retryAfter() {
        #expect(backoff.delay(afterAttempts: 1, retryAfter: .seconds(120), random: 0.9) == .seconds(120))
        #expect(backoff.delay(afterAttempts: 1, retryAfter: .seconds(86_400), random: 0) == .seconds(3600))
        #expect(backoff.delay(afterAttempts: 1, retryAfter: .seconds(-5), random: 0) == .seconds(5))
        #expect(backoff.delay(afterAttempts: 1, retryAfter: .zero, random: 0) == .seconds(5))
        #expect(backoff.delay(afterAttempts: 1, retryAfter: .zero, random: 0.99) == .seconds(5))
        #expect(backoff.delay(afterAttempts: 1, retryAfter: .seconds(3), random: 0) == .seconds(5))
        #expect(backoff.delay(afterAttempts: 4, retryAfter: .zero, random: 0) == .seconds(20))
        #expect(backoff.delay(afterAttempts: 4, retryAfter: .zero, random: 0.5) == .seconds(30))
        #expect(backoff.delay(afterAttempts: 4, retryAfter: .seconds(25), random: 0) == .seconds(25))
        #expect(backoff.delay(afterAttempts: 10, retryAfter: .seconds(1), random: 0) == .seconds(450))
        #expect(backoff.delay(afterAttempts: 20, retryAfter: .seconds(86_400), random: 0) == .seconds(3600))
    }
}
