import MonitorCore
import Testing

@Suite("How failed deliveries are spaced (NotificationDelivery.Backoff)")
struct DeliveryBackoffTests {
    let backoff = NotificationDelivery.Backoff(base: .seconds(5), maximum: .seconds(900))

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

    @Test("a Retry-After replaces it, cut to an hour")
    func retryAfter() {
        #expect(backoff.delay(afterAttempts: 1, retryAfter: .seconds(120), random: 0.9) == .seconds(120))
        #expect(backoff.delay(afterAttempts: 1, retryAfter: .seconds(86_400), random: 0) == .seconds(3600))
        #expect(backoff.delay(afterAttempts: 1, retryAfter: .seconds(-5), random: 0) == .zero)
    }
}
