import Testing

@testable import MonitorCore

@Suite("A Duration in seconds and in milliseconds")
struct DurationUnitsTests {
    @Test(
        "whole milliseconds drop the fraction; seconds keep it",
        arguments: [
            (Duration.milliseconds(1500), 1500, 1.5), (.nanoseconds(1_999_999), 1, 0.001999999), (.zero, 0, 0),
            (.seconds(3600), 3_600_000, 3600), (.microseconds(999), 0, 0.000999),
        ] as [(Duration, Int64, Double)])
    func units(duration: Duration, milliseconds: Int64, seconds: Double) {
        #expect(duration.milliseconds == milliseconds)
        #expect(abs(duration.seconds - seconds) < 1e-12)
    }
}
