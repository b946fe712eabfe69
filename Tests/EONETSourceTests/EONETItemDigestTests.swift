import Crypto
import Foundation
import MonitorItems
import MonitorJSON
import TestSupport
import Testing

@testable import EONETSource
@testable import MonitorCore

/// The items the eonet source makes of each real capture beside the package, whole, against those the source made
/// at `1383e67` (before the third round of decoding work): every field of every item, as a SHA-256 of one line per
/// item, so that a faster decoder cannot change a single title, URL, position or group unnoticed. Skipped, saying
/// so, when the folders are absent.
@Suite(
    "The items of every real EONET capture are those made before the third decoding round",
    .enabled(
        if: SharedSamples.folder != nil,
        "../shared/realdata or ../shared/api-samples is absent: the items of the real captures are not compared"))
struct EONETItemDigestTests {
    /// One capture, met as the answer of `requested` while the feed polls `selected`.
    struct Case: Sendable, CustomTestStringConvertible {
        var file: String
        var requested: String
        var selected: [String]
        /// Items and events without a date.
        var items: Int
        var undated: Int
        /// The SHA-256 of `EONETItemDigestTests.text`, in hexadecimal, as `1383e67` made the items.
        var digest: String
        var testDescription: String { "\(file) as \(requested)" }
    }

    static let all = EONETFixtures.categories.map(\.id)

    static let cases: [Case] = [
        Case(
            file: "realdata/eonet-v3-events-2025-09.json", requested: "wildfires", selected: all, items: 5_641,
            undated: 0,
            digest:
                "cede3eb272aa41f65f1962b56a3d458632bf7f0feb193a9521a2d3d62d30e105"),
        Case(
            file: "realdata/eonet-v3-events-2025-09.json", requested: "floods", selected: ["floods", "volcanoes"],
            items: 5_641, undated: 0,
            digest:
                "72acdf85eb32c25807929c4a3ad1e048993baf59d0ef317ec36800d6cd71d827"),
        Case(
            file: "realdata/DERIVED-eonet-v3-events-closed-2020-11.json", requested: "severeStorms", selected: all,
            items: 20, undated: 0,
            digest:
                "547e6647cef751241582a91832d3b15621bd26c0cfd5b2073658bdcc8bb938a6"),
        Case(
            file: "realdata/eonet-v3-events-severeStorms-wildfires-limit1-2023-06.json", requested: "wildfires",
            selected: all, items: 1, undated: 0,
            digest:
                "81a2a9ad59143b19c2ef3c9fe27c531d886e1473884ba87d6c2f02bd0e5c8b55"),
        Case(
            file: "api-samples/eonet-v3-events-open-excerpt.json", requested: "volcanoes", selected: all, items: 6,
            undated: 0,
            digest:
                "84df833537c7937a9ad781346d9ccc9826c474ef80f67b01cd13d921a218d767"),
        Case(
            file: "api-samples/DERIVED-eonet-v3-events-closed-EONET_5165.json", requested: "severeStorms",
            selected: all, items: 1, undated: 0,
            digest:
                "124f0d741069eb59e5e847bc49c9d5db979024e7d87694f72f49fd5701484e98"),
        Case(
            file: "api-samples/DERIVED-eonet-v3-events-polygon-EONET_354.json", requested: "volcanoes",
            selected: all, items: 1, undated: 0,
            digest:
                "671c70008eaa5d619aa9737d5ec126480cbd6819ee9c6180be367a22cbe954fe"),
    ]

    /// Every field of `items`, one line each: id, title, the date's bits, groups, URL, details; then the events
    /// without a date.
    static func text(_ items: [Item], undated: [String]) -> String {
        var lines = items.map { item in
            var fields = [
                item.id, item.title, String(item.date.timeIntervalSinceReferenceDate.bitPattern, radix: 16),
                item.groups.joined(separator: ","), item.url ?? "(none)",
            ]
            fields += item.details.map { "\($0.name)=\($0.value)" }
            return fields.joined(separator: "\u{1F}")
        }
        lines += undated.map { "undated \($0)" }
        return lines.joined(separator: "\n")
    }

    @Test("every item is the same as before, field for field", arguments: cases)
    func same(_ capture: Case) throws {
        let body = try SharedSamples.bytes(capture.file)
        let made = try EONETJSON.items(in: body, requested: capture.requested, selected: Set(capture.selected))
        #expect(made.items.count == capture.items)
        #expect(made.undated.count == capture.undated)
        let digest = SHA256.hash(data: Array(Self.text(made.items, undated: made.undated).utf8)).hexadecimal
        #expect(digest == capture.digest)
    }
}
