import Crypto
import Foundation
import MonitorItems
import MonitorJSON
import TestSupport
import Testing

@testable import GitHubSource
@testable import MonitorCore

/// The items the github source makes of each real page of events in `../shared/realdata`, whole, against those it
/// made at `1383e67` (before the third round of decoding work): every field of every item, as a SHA-256 of one line
/// per item, so that faster reading and text handling cannot change a sentence, a link or a detail unnoticed.
/// Skipped, saying so, when the folder is absent.
@Suite(
    "The items of every real GitHub events capture are those made before the third decoding round",
    .enabled(
        if: SharedSamples.realdata != nil,
        "../shared/realdata is absent: the items of the real GitHub captures are not compared"))
struct GitHubItemDigestTests {
    /// One capture: how many events it has, how many become items, and the SHA-256 of `text` of the items.
    struct Case: Sendable, CustomTestStringConvertible {
        var file: String
        var events: Int
        var items: Int
        var digest: String
        var testDescription: String { file }
    }

    static let cases: [Case] = [
        Case(
            file: "github-network-events-github3py-2018-01-p1.json", events: 100, items: 100,
            digest: "7e068b73265f0f5ea31ca3ce4b12aeeafceeddc630d9b6f12a777a00445cf978"),
        Case(
            file: "github-public-events-2017-12.json", events: 25, items: 25,
            digest: "77fdd85ada961deb7e8b27e7cddfdd7f4b15bb5967e8d549c774eb2ec80f8571"),
        Case(
            file: "github-public-events-2020-04.json", events: 30, items: 30,
            digest: "b91630a39ad2f9bfddd4fac8f6e0822b15c50efb7bf08e387c0d555a93bf144d"),
        Case(
            file: "github-public-events-2025-06.json", events: 10, items: 10,
            digest: "3536c0734711734b172757ad674cb624a0d0118c53eee2cf12e024d46b1f6e38"),
        Case(
            file: "github-repo-events-github3py-2018-02.json", events: 100, items: 100,
            digest: "a9c724ad7282dc3f4ae75c34802f31b1716d658ac3e41142f2c9bbc7b966ae97"),
        Case(
            file: "github-repo-events-jacquev6-PyGithub-2012-05.json", events: 30, items: 30,
            digest: "df182f98109648baa09867bfaade34ca60ba806c4110d74f5aff065ce1b5e91b"),
        Case(
            file: "github-repo-events-jacquev6-PyGithub-2013-09.json", events: 30, items: 30,
            digest: "ed3065297041045dc7136e399b5dee02a0377315dba506bd35e30b6beb437897"),
        Case(
            file: "github-repo-events-rails_admin-2013-06.json", events: 30, items: 30,
            digest: "88fec234dbcd5de6b9e38b6235a86e4fd3027b9dd643f408fdc0ee8e10998fec"),
    ]

    @Test("every events capture in the folder is one of these")
    func listed() {
        #expect(
            SharedSamples.files(in: SharedSamples.realdata).filter {
                $0.hasPrefix("github-") && $0.contains("-events-")
            }
                == Self.cases.map(\.file))
    }

    /// Every field of `items`, one line each: id, title, the date's bits, groups, URL, details.
    static func text(_ items: [Item]) -> String {
        items.map { item in
            var fields = [
                item.id, item.title, String(item.date.timeIntervalSinceReferenceDate.bitPattern, radix: 16),
                item.groups.joined(separator: ","), item.url ?? "(none)",
            ]
            fields += item.details.map { "\($0.name)=\($0.value)" }
            return fields.joined(separator: "\u{1F}")
        }.joined(separator: "\n")
    }

    @Test("every item is the same as before, field for field", arguments: cases)
    func same(_ capture: Case) throws {
        let events = try GitHubEvent.page(try SharedSamples.bytes("realdata/\(capture.file)"))
        let items = events.compactMap { $0?.item(web: "https://github.com") }
        #expect(events.count == capture.events)
        #expect(items.count == capture.items)
        let digest = SHA256.hash(data: Array(Self.text(items).utf8)).hexadecimal
        #expect(digest == capture.digest)
    }
}
