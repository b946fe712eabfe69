import Foundation
import MonitorItems
import Testing

@testable import MonitorCore

@Suite("An item's location and magnitude as numbers: bounded, and in every JSON output beside the details")
struct ItemNumbersTests {
    static let storm = Item(
        id: "EONET_9001", title: "Tropical Storm Alpha", date: Date(timeIntervalSince1970: 1_758_499_200),
        groups: ["severeStorms"], url: "https://www.nhc.noaa.gov/text/alpha.shtml",
        details: [
            Detail("status", "open"), Detail("magnitude", "45.5 kts"), Detail("position", "lat 15.2, lon -101"),
            Detail("geometry", "Point"),
        ],
        location: Item.Position(latitude: 15.2, longitude: -101), magnitude: Item.Magnitude(value: 45.5, unit: "kts"))

    @Test("the JSON of events and run: lat, lon and magnitude_value as numbers, magnitude_unit a text, after details")
    func itemJSON() {
        #expect(
            Self.storm.json(isNew: true).text
                == #"{"id":"EONET_9001","title":"Tropical Storm Alpha","date":"2025-09-22T00:00:00Z","#
                + #""groups":["severeStorms"],"url":"https://www.nhc.noaa.gov/text/alpha.shtml","#
                + #""details":{"status":"open","magnitude":"45.5 kts","position":"lat 15.2, lon -101","#
                + #""geometry":"Point"},"lat":15.2,"lon":-101,"magnitude_value":45.5,"magnitude_unit":"kts","new":true}"#
        )
    }

    @Test("absent when unknown; an exec item's numeric lat and lon details are its position; a unit-less magnitude")
    func partial() {
        let plain = Item(id: "a", title: "A", date: Date(timeIntervalSince1970: 0), groups: [])
        #expect(
            plain.json().text
                == #"{"id":"a","title":"A","date":"1970-01-01T00:00:00Z","groups":[],"url":null,"details":{}}"#)
        let quake = Item(
            id: "q", title: "Q", date: Date(timeIntervalSince1970: 0), groups: [],
            details: [Detail("lat", "35.68"), Detail("lon", " 139.69 ")],
            magnitude: Item.Magnitude(value: 6.1, unit: ""))
        #expect(
            quake.json().text
                == #"{"id":"q","title":"Q","date":"1970-01-01T00:00:00Z","groups":[],"url":null,"#
                + #""details":{"lat":"35.68","lon":" 139.69 "},"lat":35.68,"lon":139.69,"magnitude_value":6.1}"#)
    }

    @Test("the notification body: the same fields after each item's details")
    func notificationJSON() {
        let notification = FeedNotification(
            id: "n-1", notifier: "chat", feed: "planet", type: "eonet", event: .new,
            at: Date(timeIntervalSince1970: 1_758_502_800), total: 1, items: [Self.storm])
        #expect(
            String(decoding: notification.jsonBody(), as: UTF8.self)
                == #"{"schema":1,"id":"n-1","notifier":"chat","feed":"planet","type":"eonet","event":"new","#
                + #""at":"2025-09-22T01:00:00Z","total":1,"items":[{"id":"EONET_9001","title":"Tropical Storm Alpha","#
                + #""date":"2025-09-22T00:00:00Z","url":"https://www.nhc.noaa.gov/text/alpha.shtml","#
                + #""groups":["severeStorms"],"details":{"status":"open","magnitude":"45.5 kts","#
                + #""position":"lat 15.2, lon -101","geometry":"Point"},"lat":15.2,"lon":-101,"magnitude_value":45.5,"#
                + #""magnitude_unit":"kts"}],"error":null}"#)
    }

    @Test("a notification keeps its items' numbers through the outbox's stored JSON")
    func outbox() throws {
        let notification = FeedNotification(
            id: "n-1", notifier: "chat", feed: "planet", type: "eonet", event: .new,
            at: Date(timeIntervalSince1970: 1_758_502_800), total: 1, items: [Self.storm])
        let stored = try #require(StoredJSON.value(FeedNotification.self, from: try StoredJSON.text(notification)))
        #expect(stored.items.first?.location == Self.storm.location)
        #expect(stored.items.first?.magnitude == Self.storm.magnitude)
        #expect(stored.jsonBody() == notification.jsonBody())
        // One written before the numbers existed reads without them.
        let old = #"{"id":"a","title":"A","date":0,"groups":[],"details":[{"name":"position","value":"lat 1, lon 2"}]}"#
        let item = try JSONDecoder().decode(Item.self, from: Data(old.utf8))
        #expect(item.location == nil && item.magnitude == nil && item.position == nil)
        // Numbers out of bounds do not decode.
        let far = #"{"id":"a","title":"A","date":0,"groups":[],"details":[],"location":{"latitude":91,"longitude":0}}"#
        #expect((try? JSONDecoder().decode(Item.self, from: Data(far.utf8))) == nil)
    }

    @Test(
        "bounds: a finite magnitude, its unit without control characters and at most 40 characters; a position on Earth"
    )
    func bounds() {
        #expect(Item.Magnitude(value: .nan, unit: "kts") == nil)
        #expect(Item.Magnitude(value: -.infinity, unit: nil) == nil)
        #expect(Item.Magnitude(value: 1, unit: "k\u{1B}[31mts\u{7}")?.unit == "kts")
        #expect(
            Item.Magnitude(value: 1, unit: String(repeating: "x", count: 100))?.unit == String(
                repeating: "x", count: 39) + "…")
        #expect(Item.Magnitude(value: 1, unit: "")?.unit == nil)
        #expect(Item.Position(latitude: -90, longitude: 180) != nil)
        #expect(Item.Position(latitude: 90.5, longitude: 0) == nil)
        #expect(Item.Position(latitude: 0, longitude: -180.5) == nil)
        #expect(Item.Position(latitude: .nan, longitude: 0) == nil)
    }

    @Test("items are equal when what they show is: their numbers are not compared, an item's position is its location")
    func equality() {
        var bare = Self.storm
        bare.location = nil
        bare.magnitude = nil
        #expect(bare == Self.storm)
        #expect(bare.hashValue == Self.storm.hashValue)
        #expect(bare.position == nil)
        #expect(Self.storm.position == Item.Position(latitude: 15.2, longitude: -101))
    }
}
