import MonitorCore
import TestSupport

@testable import EONETSource

// MARK: - Examples

extension EONETSource {
    /// Recorded answers of a small server (two categories, four events) and what the source must make of
    /// them: a first poll, a poll answered 304 everywhere, a failing category, then every category failing.
    static var examples: [SourceExample] {
        let api = "http://eonet.example/api/v3"
        let categories = "\(api)/categories"
        let wildfires = "\(api)/events?category=wildfires&status=all&days=360"
        let volcanoes = "\(api)/events?category=volcanoes&status=all&days=360"
        let catalog = SourceExample.json(
            #"{"title":"EONET Event Categories","categories":["#
                + [("wildfires", "Wildfires"), ("volcanoes", "Volcanoes")].map { #"{"id":"\#($0)","title":"\#($1)"}"# }
                .joined(separator: ",") + "]}",
            etag: #""c1""#)
        let fire = Example(id: "EONET_1", title: "Alpha Fire", category: "wildfires", date: "2026-11-02")
        let oldFire = Example(
            id: "EONET_2", title: "Bravo Fire", category: "wildfires", date: "2026-10-20", closed: "2026-10-25")
        let volcano = Example(id: "EONET_3", title: "Charlie Volcano", category: "volcanoes", date: "2026-11-05")
        let newVolcano = Example(id: "EONET_4", title: "Delta Volcano", category: "volcanoes", date: "2026-11-06")
        let first = SourceExample.Poll(
            answers: [
                categories: catalog,
                wildfires: SourceExample.json(Example.list([fire, oldFire]), etag: #""w1""#),
                volcanoes: SourceExample.json(Example.list([volcano]), etag: #""v1""#),
            ],
            expect: .init(
                status: .ok, items: ["EONET_3", "EONET_1", "EONET_2"], groups: ["wildfires": 2, "volcanoes": 1], new: 3)
        )
        let unchanged = SourceExample.Poll(
            answers: [
                categories: SourceExample.notModified, wildfires: SourceExample.notModified,
                volcanoes: SourceExample.notModified,
            ],
            expect: .init(
                status: .notModified, items: ["EONET_3", "EONET_1", "EONET_2"],
                groups: ["wildfires": 2, "volcanoes": 1], new: 0))
        let failing = SourceExample.error(500, "database unavailable")
        return [
            SourceExample(
                "two categories, then 304 everywhere, then wildfires failing: its stored events are kept",
                options: ["api": .string(api)],
                polls: [
                    first, unchanged,
                    SourceExample.Poll(
                        answers: [
                            categories: SourceExample.notModified, wildfires: failing,
                            volcanoes: SourceExample.json(Example.list([newVolcano, volcano]), etag: #""v2""#),
                        ],
                        expect: .init(
                            status: .partial, items: ["EONET_4", "EONET_3", "EONET_1", "EONET_2"],
                            groups: ["wildfires": 2, "volcanoes": 2], new: 1)),
                ]),
            SourceExample(
                "every category failing fails the poll and leaves what was stored",
                options: ["api": .string(api)],
                polls: [
                    first,
                    SourceExample.Poll(
                        answers: [categories: SourceExample.notModified, wildfires: failing, volcanoes: failing],
                        expect: .init(status: .failed, items: ["EONET_3", "EONET_1", "EONET_2"], new: 0)),
                ]),
        ]
    }

    /// One event of an example, written as the server writes it.
    private struct Example {
        var id: String
        var title: String
        var category: String
        /// The day of its one observation, `YYYY-MM-DD`.
        var date: String
        /// The day it was closed; nil while open.
        var closed: String?

        var json: String {
            let closed = self.closed.map { #""\#($0)T00:00:00Z""# } ?? "null"
            return #"{"id":"\#(id)","title":"\#(title)","closed":\#(closed),"#
                + #""categories":[{"id":"\#(category)","title":"\#(category)"}],"sources":[],"#
                + #""geometry":[{"date":"\#(date)T00:00:00Z","type":"Point","coordinates":[-120.5,38.25]}]}"#
        }

        static func list(_ events: [Example]) -> String {
            #"{"title":"EONET Events","events":["# + events.map(\.json).joined(separator: ",") + "]}"
        }
    }
}
