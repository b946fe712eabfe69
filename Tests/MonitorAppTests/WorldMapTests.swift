import Foundation
import MonitorItems
import TestSupport
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("monitor map: the outlines, the projection, the Braille canvas and the legend")
struct WorldMapTests {
    static func item(_ id: String, _ groups: [String], lat: Double?, lon: Double?) -> Item {
        var details: [Detail] = []
        if let lat { details.append(Detail("lat", "\(lat)")) }
        if let lon { details.append(Detail("lon", "\(lon)")) }
        return Item(id: id, title: id, date: Date(timeIntervalSince1970: 0), groups: groups, details: details)
    }

    @Test(
        "the outlines decode whole: as many lines and points as convert.py wrote, within the world, none across the antimeridian"
    )
    func outlines() throws {
        let lines = WorldOutlines.lines
        #expect(lines.count == 290)
        #expect(lines.map(\.count).reduce(0, +) == 10_577)
        for line in lines {
            #expect(line.count >= 2)
            for point in line {
                #expect((-180...180).contains(point.longitude) && (-90...90).contains(point.latitude))
            }
            for (from, to) in zip(line, line.dropFirst()) {
                #expect(abs(from.longitude - to.longitude) <= 180)
            }
        }
    }

    @Test(
        "each item is drawn in the cell where its longitude and latitude fall, on maps of several sizes",
        arguments: [(100, 30), (80, 24), (40, 12), (7, 3), (200, 60)])
    func cells(columns: Int, rows: Int) throws {
        let points: [(Double, Double)] = [
            (0, 0), (90, 180), (-90, -180), (90, -180), (-90, 180), (51.5, -0.12), (-33.87, 151.21),
            (35.68, 139.69), (64.1, -21.9), (-54.8, -68.3), (19.4, -155.3), (0.0001, -0.0001), (45, 90),
        ]
        let map = WorldMap(columns: columns, rows: rows)
        for (latitude, longitude) in points {
            let lines = map.lines(
                items: [Self.item("a", ["g"], lat: latitude, lon: longitude)], groups: [.init(id: "g", title: "G")])
            let expected = MapCell.of(latitude: latitude, longitude: longitude, columns: columns, rows: rows)
            let marks = MapCell.marks(lines.map { Substring($0) }, rows: rows, symbols: ["*"])
            #expect(
                marks == ["*": [MapCellPosition(column: expected.column, row: expected.row)]],
                "\(latitude), \(longitude)")
        }
    }

    @Test("an EONET item is drawn where its numbers put it, its position detail's text not read")
    func location() {
        let map = WorldMap(columns: 40, rows: 12)
        let item = Item(
            id: "EONET_1", title: "Storm", date: Date(timeIntervalSince1970: 0), groups: ["g"],
            details: [Detail("position", "lat -33.87, lon 151.21")],
            location: Item.Position(latitude: 35.68, longitude: 139.69))
        let lines = map.lines(items: [item], groups: [.init(id: "g", title: "G")])
        let expected = MapCell.of(latitude: 35.68, longitude: 139.69, columns: 40, rows: 12)
        #expect(
            MapCell.marks(lines.map { Substring($0) }, rows: 12, symbols: ["*"])
                == ["*": [MapCellPosition(column: expected.column, row: expected.row)]])
    }

    @Test("a Braille cell holds its dots as Unicode numbers them: 1, 2, 3, 7 down the left, 4, 5, 6, 8 down the right")
    func braille() {
        var canvas = BrailleCanvas(columns: 2, rows: 1)
        canvas.set(x: 0, y: 0)
        canvas.set(x: 1, y: 3)
        canvas.set(x: 3, y: 1)
        canvas.set(x: 4, y: 0)  // off the canvas: ignored
        canvas.set(x: -1, y: 0)
        #expect(canvas.character(column: 0, row: 0) == "\u{2881}")
        #expect(canvas.character(column: 1, row: 0) == "\u{2810}")
        var empty = BrailleCanvas(columns: 1, rows: 1)
        #expect(empty.character(column: 0, row: 0) == " ")
        empty.line(from: (0, 0), to: (1, 3))
        // Bresenham from (0, 0) to (1, 3): (0, 0), (0, 1), (1, 2), (1, 3).
        #expect(empty.character(column: 0, row: 0) == Character(Unicode.Scalar(0x2800 + 0x01 + 0x02 + 0x20 + 0x80)!))
    }

    @Test(
        "the legend gives each group its symbol, its title (made safe) and its items on the map and without a position")
    func legend() {
        let items = [
            Self.item("a", ["fires"], lat: 10, lon: 10),
            Self.item("b", ["fires", "storms"], lat: -10, lon: -10),
            Self.item("c", ["storms"], lat: nil, lon: nil),
            Self.item("d", ["storms"], lat: 91, lon: 0),
            Self.item("e", ["other"], lat: 0, lon: 0),
        ]
        let lines = WorldMap(columns: 20, rows: 5).lines(
            items: items,
            groups: [.init(id: "fires", title: "Wildfires"), .init(id: "storms", title: "Storms\u{1B}]0;x\u{7}")])
        #expect(
            Array(lines.suffix(2)) == [
                "* Wildfires: 2 on the map, 0 without a position", "+ Storms: 1 on the map, 2 without a position",
            ])
        // b is in both groups: it is drawn with the first group's symbol; e is in no group of the legend.
        #expect(lines.prefix(5).joined().filter { "*+".contains($0) } == "**")
    }

    @Test("with colour, each group's symbol is coloured on the map and in the legend")
    func colour() {
        let lines = WorldMap(columns: 4, rows: 2, colour: true).lines(
            items: [Self.item("a", ["g"], lat: 0, lon: 0)], groups: [.init(id: "g", title: "G")])
        #expect(lines.last == "\u{1B}[1;31m*\u{1B}[22;39m G: 1 on the map, 0 without a position")
        #expect(lines.prefix(2).joined().contains("\u{1B}[1;31m*\u{1B}[22;39m"))
    }

    @Test(
        "an item's position: numeric lat and lon details; a position detail's text is not read; nothing when invalid",
        arguments: [
            ([Detail("lat", "12.5"), Detail("lon", "-70.25")], Item.Position(latitude: 12.5, longitude: -70.25)),
            ([Detail("position", "lat 14.4, lon -99.4")], nil),
            (
                [Detail("lat", "1"), Detail("lon", "2"), Detail("position", "lat 3, lon 4")],
                Item.Position(latitude: 1, longitude: 2)
            ),
            ([Detail("lat", "north"), Detail("lon", "2")], nil),
            ([Detail("lat", "91"), Detail("lon", "2")], nil),
            ([Detail("lat", "10"), Detail("lon", "180.5")], nil),
            ([Detail("lat", "nan"), Detail("lon", "0")], nil),
            ([Detail("lat", "10")], nil),
            ([Detail("position", "somewhere")], nil),
            ([], nil),
        ])
    func position(details: [Detail], expected: Item.Position?) {
        let item = Item(id: "a", title: "a", date: Date(timeIntervalSince1970: 0), groups: [], details: details)
        #expect(item.position == expected)
    }
}
