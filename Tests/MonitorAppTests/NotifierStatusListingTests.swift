import Foundation
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("monitor status: the notifiers' outbox")
struct NotifierStatusListingTests {
    let now = Date(timeIntervalSince1970: 1_795_323_600)  // 2026-11-22 05:00:00 UTC

    var lines: [NotifierLine] {
        var chat = NotifierStatus(name: "chat")
        chat.pending = 2
        chat.dropped = 12
        chat.lastDelivered = now.addingTimeInterval(-3600)
        chat.lastError = "POST https://hooks.example.com/… answered HTTP 503: busy"
        chat.lastErrorAt = now.addingTimeInterval(-120)
        var script = NotifierStatus(name: "script")
        script.refused = 1
        script.lastError = "old failure"
        script.lastErrorAt = now.addingTimeInterval(-7200)
        script.lastDelivered = now.addingTimeInterval(-60)
        var gone = NotifierStatus(name: "gone")
        gone.pending = 1
        return [
            NotifierLine(status: chat, type: "webhook", target: "https://hooks.example.com/…"),
            NotifierLine(status: script, type: "command", target: "'notify.sh'"),
            NotifierLine(status: gone, type: nil, target: nil),
        ]
    }

    @Test("a table of notifiers, then the last error of each whose last attempt failed")
    func text() {
        #expect(
            StatusListing.text(lines, now: now) == """

                  notifier  type              target                       pending  refused  dropped  last delivered
                  chat      webhook           https://hooks.example.com/…        2        0       12  1h ago
                  script    command           'notify.sh'                        0        1        0  1m ago
                  gone      (not configured)  -                                  1        0        0  -
                chat: POST https://hooks.example.com/… answered HTTP 503: busy (2m ago)

                """)
        #expect(StatusListing.text([NotifierLine](), now: now) == "")
    }

    @Test("as JSON: one object per notifier with a `notifier` key")
    func json() {
        #expect(
            StatusListing.json(lines[0]).text
                == #"{"notifier":"chat","type":"webhook","target":"https://hooks.example.com/…","pending":2,"#
                + #""refused":0,"dropped":12,"lastDelivered":"2026-11-22T04:00:00Z","#
                + #""error":"POST https://hooks.example.com/… answered HTTP 503: busy","errorAt":"2026-11-22T04:58:00Z","digest":null}"#
        )
        #expect(
            StatusListing.json(lines[2]).text
                == #"{"notifier":"gone","type":null,"target":null,"pending":1,"refused":0,"dropped":0,"lastDelivered":null,"#
                + #""error":null,"errorAt":null,"digest":null}"#)
    }
}
