import Foundation
import MonitorCore
import Testing

@Suite("Each group's phase in the live view of a poll: pending, done or failed")
struct FeedViewPhaseTests {
    let catalog = [
        ItemGroup(id: "fires", title: "Wildfires"), ItemGroup(id: "ice", title: "Sea Ice"),
        ItemGroup(id: "storms", title: "Storms"),
    ]
    let date = Date(timeIntervalSince1970: 1_800_000_000)

    private func item(_ id: String, _ groups: [String]) -> Item {
        Item(id: id, title: id, date: date, groups: groups)
    }

    private func rows(_ view: FeedView) -> [String] {
        view.groups.map { "\($0.id) \($0.count) \($0.phase.rawValue)" }
    }

    @Test("a replacing poll: completed groups are done, a group a failure names is failed, the others pending")
    func replacing() {
        var tally = PollTally(known: ["old"])
        tally.apply(.items([item("a", ["fires"]), item("b", ["fires", "ice"])]))
        tally.apply(.completed(groups: ["fires"]))
        tally.apply(.failure(SubRequestFailure(what: "category 'storms'", message: "HTTP 500", group: "storms")))
        let view = FeedView(
            feed: "planet", catalog: catalog, tally: tally, stored: ["fires": 9, "ice": 4, "storms": 7])
        // Pending and failed groups show the stored count; the display shows their phase instead.
        #expect(rows(view) == ["fires 2 done", "ice 4 pending", "storms 7 failed"])
    }

    @Test("a failure that names no group leaves every group's phase alone")
    func unnamedFailure() {
        var tally = PollTally(known: [])
        tally.apply(.failure(SubRequestFailure(what: "the categories", message: "timed out")))
        tally.apply(.completed(groups: ["ice"]))
        let view = FeedView(feed: "planet", catalog: catalog, tally: tally, stored: [:])
        #expect(rows(view) == ["fires 0 pending", "ice 0 done", "storms 0 pending"])
    }

    @Test("without stored counts (a source that keeps its newest items, or a stored view) every group is done")
    func notReplacing() {
        var tally = PollTally(known: [])
        tally.apply(.items([item("a", ["PushEvent"])]))
        tally.apply(.failure(SubRequestFailure(what: "page 2", message: "HTTP 502", group: "ice")))
        let view = FeedView(feed: "rx", catalog: catalog, tally: tally, stored: nil)
        #expect(rows(view) == ["fires 0 done", "ice 0 failed", "storms 0 done", "PushEvent 1 done"])
    }
}
