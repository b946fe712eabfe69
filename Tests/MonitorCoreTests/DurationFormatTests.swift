import MonitorText
import Testing

@testable import MonitorCore

@Suite("Durations and sizes as written in feeds.yaml")
struct DurationFormatTests {
    @Test(
        "parses",
        arguments: [
            ("90s", Duration.seconds(90)), ("15m", .seconds(900)), ("1h", .seconds(3600)), ("2d", .seconds(172_800)),
            ("1h30m", .seconds(5400)), ("500ms", .milliseconds(500)), (" 30s ", .seconds(30)), ("0s", .zero),
        ])
    func parses(text: String, expected: Duration) {
        #expect(DurationFormat.parse(text) == expected)
    }

    @Test(
        "rejects", arguments: ["", "15", "m", "15 m", "1.5h", "-5s", "15min", "1h 30m", "99999999999999999999s", "5S"])
    func rejects(text: String) {
        #expect(DurationFormat.parse(text) == nil)
    }

    @Test(
        "prints the shortest form",
        arguments: [
            (Duration.seconds(900), "15m"), (.seconds(90), "1m30s"), (.seconds(3600), "1h"), (.zero, "0s"),
            (.milliseconds(1500), "1s500ms"), (.seconds(86_400 + 60), "1d1m"),
        ])
    func prints(duration: Duration, expected: String) {
        #expect(DurationFormat.string(duration) == expected)
    }

    @Test(
        "sizes parse",
        arguments: [
            ("32MiB", 32 << 20), ("512KiB", 512 << 10), ("1GiB", 1 << 30), ("1GB", 1_000_000_000), ("10MB", 10_000_000),
            ("2KB", 2000), ("100", 100), ("100B", 100), ("4 MiB", 4 << 20),
        ])
    func sizes(text: String, expected: Int) {
        #expect(ByteSizeFormat.parse(text) == expected)
    }

    @Test("sizes reject", arguments: ["", "MiB", "32mib", "1.5MiB", "-1", "32 Mi", "99999999999999GiB"])
    func sizesReject(text: String) {
        #expect(ByteSizeFormat.parse(text) == nil)
    }

    @Test("sizes print in the largest binary unit")
    func sizesPrint() {
        #expect(ByteSizeFormat.string(32 << 20) == "32MiB")
        #expect(ByteSizeFormat.string(1536) == "1536B")
        #expect(ByteSizeFormat.string(2048) == "2KiB")
    }
}
