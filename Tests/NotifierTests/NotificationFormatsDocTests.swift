import Foundation
import TestSupport
import Testing

@testable import MonitorCore
@testable import WebhookNotifier

@Suite("docs/notification-formats.md shows the bodies monitor sends")
struct NotificationFormatsDocTests {
    /// The code blocks of the document, without their language and the line breaks around them.
    static func blocks() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(
            contentsOf: root.appendingPathComponent("docs/notification-formats.md"), encoding: .utf8)
        let parts = text.components(separatedBy: "```")
        return stride(from: 1, to: parts.count, by: 2).map { index in
            let block = parts[index]
            let body = block.drop { $0 != "\n" }.dropFirst()
            return String(body.hasSuffix("\n") ? body.dropLast() : body)
        }
    }

    static let notifications = [NotificationFixtures.documentedNew, NotificationFixtures.documentedFailed]

    @Test("the slack, discord, failed and gap json bodies, byte for byte (U+200B written \\u200b)")
    func jsonBodies() throws {
        let blocks = try Self.blocks()
        for notification in Self.notifications {
            for format in [NotificationFormat.slack, .discord] {
                let body = format.render(notification).text.replacingOccurrences(of: "\u{200B}", with: #"\u200b"#)
                let shown = blocks.contains(body)
                #expect(shown, "\(format) \(notification.event): \(body)")
            }
        }
        let failed = NotificationFixtures.documentedFailed.jsonBody().string
        let shown = blocks.contains(failed)
        #expect(shown, "json failed: \(failed)")
        let gap = NotificationFixtures.gap.jsonBody().string
        let gapShown = blocks.contains(gap)
        #expect(gapShown, "json gap: \(gap)")
    }

    @Test("the indented json example is the body with its first three items")
    func indentedJSON() throws {
        let block = try #require(try Self.blocks().first { $0.hasPrefix("{\n  \"schema\": 1,") })
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(block.utf8)) as? NSDictionary)
        var body = try #require(
            try JSONSerialization.jsonObject(with: Data(NotificationFixtures.documentedNew.jsonBody()))
                as? [String: Any])
        body["items"] = (body["items"] as? [Any])?.prefix(3).map { $0 }
        #expect(shown == body as NSDictionary)
    }

    @Test("the ntfy and text messages, with ntfy's headers")
    func textBodies() throws {
        let blocks = try Self.blocks()
        for notification in Self.notifications {
            let ntfy = NotificationFormat.ntfy.render(notification)
            let headers = ntfy.headers.map { "\($0.0): \($0.1)\n" }.joined()
            let ntfyShown = blocks.contains(headers + "\n" + ntfy.text)
            #expect(ntfyShown, "ntfy \(notification.event): \(headers)\n\(ntfy.text)")
            // The text ends in a line break; the document's block ends there.
            let text = NotificationFormat.text.render(notification).text
            #expect(text.hasSuffix("\n"))
            let textShown = blocks.contains(String(text.dropLast()))
            #expect(textShown, "text \(notification.event): \(text)")
        }
    }

    @Test("the signature of the failed body with the secret s3cret")
    func signature() throws {
        let header = HMACSHA256.signatureHeader(
            secret: "s3cret", body: NotificationFixtures.documentedFailed.jsonBody())
        let shown = try Self.blocks().contains("\(header.name): \(header.value)")
        #expect(shown, "\(header.name): \(header.value)")
    }
}

extension [UInt8] {
    fileprivate var string: String { String(decoding: self, as: UTF8.self) }
}
