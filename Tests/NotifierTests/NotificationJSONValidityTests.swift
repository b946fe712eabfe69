import Foundation
import MonitorItems
import TestSupport
import Testing

@testable import MonitorCore
@testable import WebhookNotifier

@Suite("Notification bodies are valid JSON for any text, as python3's json reads them")
struct NotificationJSONValidityTests {
    /// Scalars a server may send: controls, separators, bidirectional overrides, quotes, markup, emoji, CJK.
    static let pool: [Unicode.Scalar] =
        (0x00...0x20).compactMap(Unicode.Scalar.init) + (0x7F...0xA0).compactMap(Unicode.Scalar.init)
        + ["\"", "\\", "/", "@", "<", ">", "&", "|", "*", "_", "[", "]", "(", ")", "#", ":", "`", "~", "a", "Z", "9"]
        + [0x2028, 0x2029, 0x202E, 0x2066, 0x200B, 0xFEFF, 0xFFFD, 0x1F30B, 0x1F525, 0x4E2D, 0xE9, 0x10FFFF]
        .compactMap(Unicode.Scalar.init)

    static func randomText(_ generator: inout some RandomNumberGenerator) -> String {
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...40, using: &generator) {
            if Bool.random(using: &generator) {
                text.append(pool.randomElement(using: &generator)!)
            } else {
                // Any scalar of the BMP or beyond, surrogates excepted.
                var value = UInt32.random(in: 0...0x10FFFF, using: &generator)
                if (0xD800...0xDFFF).contains(value) { value = 0x41 }
                text.append(Unicode.Scalar(value)!)
            }
        }
        return String(text)
    }

    /// Notifications made of random text, of every event.
    static func randomNotifications(_ count: Int) -> [FeedNotification] {
        var generator = SystemRandomNumberGenerator()
        let at = NotificationFixtures.at
        return (0..<count).map { index in
            let items = (0..<Int.random(in: 0...7, using: &generator)).map { number in
                Item(
                    id: randomText(&generator), title: randomText(&generator), date: at - Double(number),
                    groups: [randomText(&generator)],
                    url: Bool.random(using: &generator) ? "https://x.example/" + randomText(&generator) : nil,
                    details: [
                        Detail(randomText(&generator), randomText(&generator)),
                        Detail(randomText(&generator), randomText(&generator)),
                    ])
            }
            return FeedNotification(
                id: "n-\(index)", notifier: "chat", feed: "feed", type: "type",
                event: FeedNotification.Event.allCases[index % 4], at: at, total: items.count, items: items,
                error: Bool.random(using: &generator) ? randomText(&generator) : nil)
        }
    }

    @Test("json, slack and discord bodies of the fixtures and of 300 random notifications read back identical")
    func python() async throws {
        let notifications =
            [
                NotificationFixtures.sixty, NotificationFixtures.failed, NotificationFixtures.recovered,
                NotificationFixtures.stale, NotificationFixtures.one, NotificationFixtures.gap,
            ] + Self.randomNotifications(300)
        let bodies = notifications.flatMap { notification in
            [NotificationFormat.json, .slack, .discord].map { $0.render(notification).text }
        }
        for body in bodies {
            #expect(!body.contains("\n"), "one line: \(body)")
        }
        // python3 reads each body and writes it back compactly without escaping non-ASCII: the same bytes come
        // back when the body is valid JSON that escapes exactly what it must.
        let program = """
            import json, sys
            for line in sys.stdin.buffer.read().decode("utf-8").split("\\n")[:-1]:
                print(json.dumps(json.loads(line), ensure_ascii=False, separators=(",", ":")))
            """
        let input = bodies.joined(separator: "\n") + "\n"
        let output = try await Python.run(program, input: Array(input.utf8))
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        try #require(lines.count == bodies.count)
        for (body, line) in zip(bodies, lines) {
            #expect(line == body)
        }
    }

    @Test("no control character, line separator or bidirectional override reaches any format")
    func noControls() {
        for notification in Self.randomNotifications(300) {
            for format in NotificationFormat.allCases {
                let rendered = format.render(notification)
                let text = rendered.text + rendered.headers.map { $0.0 + $0.1 }.joined()
                let bad = text.unicodeScalars.filter { scalar in
                    (scalar.value < 0x20 && scalar != "\n") || (0x7F..<0xA0).contains(scalar.value)
                        || [0x2028, 0x2029, 0x202E, 0x2066].contains(scalar.value)
                }
                #expect(bad.isEmpty, "\(format): \(bad.map { String($0.value, radix: 16) })")
                if format == .json || format == .slack || format == .discord {
                    #expect(!rendered.text.contains("\n"))
                }
            }
        }
    }
}
