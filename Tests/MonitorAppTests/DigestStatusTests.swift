import Foundation
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("monitor status and run's lines for a notifier with a digest")
struct DigestStatusTests {
    let now = Date(timeIntervalSince1970: 1_795_323_600)  // 2026-11-22 05:00:00 UTC

    var lines: [NotifierLine] {
        var chat = NotifierStatus(name: "chat")
        chat.pending = 3
        return [
            NotifierLine(
                status: chat, type: "webhook", target: "https://hooks.example.com/…", digest: .seconds(3600),
                nextDigest: now.addingTimeInterval(1200)),
            NotifierLine(
                status: NotifierStatus(name: "ops"), type: "command", target: "'notify.sh'", digest: .seconds(86_400)),
            NotifierLine(status: NotifierStatus(name: "script"), type: "command", target: "'notify.sh'"),
        ]
    }

    @Test("the table, then what each digest notifier collected and when its next digest is due")
    func text() {
        #expect(
            StatusListing.text(lines, now: now) == """

                  notifier  type     target                       pending  refused  dropped  last delivered
                  chat      webhook  https://hooks.example.com/…        3        0        0  -
                  ops       command  'notify.sh'                        0        0        0  -
                  script    command  'notify.sh'                        0        0        0  -
                chat: digest every 1h: 3 notifications collected, next digest due at 2026-11-22 05:20:00 UTC
                ops: digest every 1d: nothing collected

                """)
    }

    @Test("as JSON: `digest` with its period, what it collected and when it is due; null without digest:")
    func json() {
        let common = #""refused":0,"dropped":0,"lastDelivered":null,"error":null,"errorAt":null"#
        #expect(
            lines.map { StatusListing.json($0).text } == [
                #"{"notifier":"chat","type":"webhook","target":"https://hooks.example.com/…","pending":3,"# + common
                    + #","digest":{"every":"1h","collected":3,"due":"2026-11-22T05:20:00Z"}}"#,
                #"{"notifier":"ops","type":"command","target":"'notify.sh'","pending":0,"# + common
                    + #","digest":{"every":"1d","collected":0,"due":null}}"#,
                #"{"notifier":"script","type":"command","target":"'notify.sh'","pending":0,"# + common
                    + #","digest":null}"#,
            ])
    }

    @Test("run's line, its JSON line and run --once's line for a digest name it by what it holds, feed null")
    func runLines() {
        let digest = FeedNotification.digest(
            of: [
                FeedNotification(
                    id: "n-1", notifier: "chat", feed: "rx", type: "github", event: .recovered, at: now, total: 0,
                    items: []),
                FeedNotification(
                    id: "n-2", notifier: "chat", feed: "planet", type: "eonet", event: .recovered, at: now, total: 0,
                    items: []),
            ], notifier: "chat", at: now)
        let delivered = NotificationDelivery.Attempt(notification: digest, result: .delivered("HTTP 200"))
        #expect(
            NotifierSet.notice(delivered)
                == "chat: notification digest-n-1-2 (digest of 2 notifications) delivered: HTTP 200")
        #expect(
            NotifierSet.json(delivered).text
                == #"{"notification":{"id":"digest-n-1-2","notifier":"chat","feed":null,"event":"digest","#
                + #""result":"delivered","answer":"HTTP 200","next_attempt":null}}"#)
        let failed = NotificationDelivery.Attempt(notification: digest, result: .willRetry("HTTP 503", next: now))
        #expect(
            NotifierSet.undeliveredLine(failed)
                == "monitor: notification digest-n-1-2 (digest of 2 notifications) to chat not delivered: HTTP 503; "
                + "kept for the next run\n")
    }
}
