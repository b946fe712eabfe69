import Foundation
import TestSupport
import Testing

/// The browser's `m` in a real terminal (tmux): `monitor run` full-screen on the exec feed of `MapCommandTests`.
@Suite(
    "the map in monitor run's full screen, in a real terminal (tmux)", .timeLimit(.minutes(5)),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed (scripts/setup installs it): skipped"))
struct MapTerminalTests {
    /// The screen with the clock of its title row and of its log row written `HH:MM:SS`.
    static func withoutClock(_ screen: String) -> String {
        screen.replacingOccurrences(of: #"\d\d:\d\d:\d\d"#, with: "HH:MM:SS", options: .regularExpression)
    }

    @Test("m on the feed maps its items; m goes back; m on a group maps it first in the legend; z zooms, z back; Esc")
    func map() async throws {
        let directory = try await MapCommandTests.prepare()
        let tmux = try await TmuxSession(in: directory.url, width: 60, height: 16)
        defer {
            tmux.kill()
            // The directory holds the server's socket: it goes only after the server.
            withExtendedLifetime(directory) {}
        }
        try await tmux.send(
            "clear; echo PRE-RUN TEXT; '\(MonitorProcess.executable.path)' run --config feeds.yaml --state state",
            literal: true)
        try await tmux.send("Enter")
        _ = try await tmux.waitForScreen("the poll to finish") { $0.contains("> quakes  ok ") }

        try await tmux.send("m")
        let feedMap = try await tmux.waitForScreen("the feed's map, its items read") {
            $0.contains("monitor › quakes › map") && $0.contains("Big quakes: ")
        }
        print("the feed's map:\n\(feedMap)")
        let lines = feedMap.split(separator: "\n", omittingEmptySubsequences: false)
        // 16 rows: the title, 11 of map, 2 of legend, the log and the keys.
        #expect(
            MapCell.marks(Array(lines.dropFirst()), rows: 11, symbols: ["*", "+"])
                == MapCommandTests.expectedMarks(groups: ["big", "small"], days: nil, columns: 60, rows: 11))
        #expect(
            Self.withoutClock(feedMap) == """
                monitor › quakes › map                all days  HH:MM:SS UTC
                         ⣀⣀⣤⣤⣤⣴⣶⣖⡶⣶⣶⣒⠒⠲⠒⠒⠲⣶⠦   ⠠⣤⣤⠤  ⠤⢤⣀⣀⡀ ⣀⣀⣤⣤⣤⣀⡀⢀ ⢀⣀⣀⡀
                ⠷⠶⣾⣏⣉+⣹⣚⠉⠋⠛⠛⠛⠛⣿⠿⢯⡿⣽⣖⠈⢯⣠⠖⠒⠚+⠶ ⣀⢠⣤⣶⣿⣿⠷⠶⠒⠚⠛⠛⠛⠛⠉    ⠈⠈⠉⠉⠉⢉⣉⣉⣽⣝⣫⠽
                  ⠈⠉⠁  ⠘⠓⡦⠤⠤⠤⠤⠮⠭⣟⣡⣴⡾⠿⠆      ⣛⣿⣓⣯⣿⣿⣿⣷⣶⣰⣶⣲⣋⣉⣉⡲⠶⢖⣒⣒⣲⠶⡛⣲⣬⣿⡄⠘⠊⠁
                         ⠙⢦⣤⡤⣄⠤⠤⣴⡋         ⢀⣽⡾⠛⢿⠿⠽⡿⢶⡿⢽⣝⣉⣿⣽⠿⢦⣄⣠⡄  ⢘⡏⠻⠞*
                   ⠙⠃      ⠉⠓⠺⠾⢯⣝⣛⣖⣂⡀      ⣿⣥⣯⣷⠭⣝⣱⣋⣩⢿⣶⣾⠛ ⠉⢇⣴⠋⠹⣿⣿⡟⢩⣧⡀
                                ⣽⢯⡟⠛⠛⠳⠤⢤⡀  ⠈⠉⠉*⢿⣿⣛⢹⡿⣿⠟⠁   ⠈⠉ ⠈⠻⣧⣶⣿⣿⠧⣤⣤⣄⣤⣀
                ⠆               ⠈*⣿⣳⣆ ⣀⡜⠁      ⠰⡧⡼⣿⣿⠽⣖⡇         ⢈⣩⠽⠛⠙⠽⢯⡁⠈⣵ ⠠
                                 ⢠⡏⣀⣿⠟⠁         ⠙⠯⠵⠋ ⠉          ⠈⠧⠤⠒⠦⣄⣀*  ⢠⣄
                                 ⢾⣷⡫⠄                    ⠶            ⠉  ⠐⠋⠁
                        ⢀⣀⡀ ⢀⣀⣀⣀⣀⣀⣤⢶⠂      ⣀⣀⣀⣀⣀⣀⣀⣀⡤⡤⠤⠤⠤⠤⣤⣠⠤⠤⠤⠤⠤⠤⠤⠤⠤⠴⠤⠤⠤⢄⣀⣀
                ⠤⠤⠴⠾⠿⠿⠍⠉⠉⠉⠉⠉⠉⠁  ⠑⠛⠛⠻⠶⠖⠲⠒⠚⠋⠉⠁                            ⠐⠿⠥⠤
                  * Big quakes: 4 on the map, 1 without a position
                  + Small quakes: 3 on the map, 1 without a position

                m or Esc back  z zoom  d days  q quit

                """)

        // m goes back; Enter opens the groups, Big quakes selected; m maps it, first and marked in the legend.
        try await tmux.send("m")
        _ = try await tmux.waitForScreen("the feeds again") {
            $0.contains("> quakes  ok ") && $0.contains("Enter open")
        }
        try await tmux.send("Enter")
        _ = try await tmux.waitForScreen("the groups") { $0.contains("> Big quakes") }
        try await tmux.send("Down")
        _ = try await tmux.waitForScreen("Small quakes selected") { $0.contains("> Small quakes") }
        try await tmux.send("m")
        let groupMap = try await tmux.waitForScreen("the group's map") {
            $0.contains("monitor › quakes › Small quakes › map")
        }
        print("the group's map:\n\(groupMap)")
        let groupLines = groupMap.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            MapCell.marks(Array(groupLines.dropFirst()), rows: 11, symbols: ["*", "+"])
                == MapCommandTests.expectedMarks(groups: ["small", "big"], days: nil, columns: 60, rows: 11))
        #expect(
            Array(groupLines[12...13]) == [
                "> + Small quakes: 3 on the map, 1 without a position",
                "  * Big quakes: 4 on the map, 1 without a position",
            ])
        // z zooms to the box of the group's items (a line under the legend gives it); z again shows the world map as
        // before.
        try await tmux.send("z")
        let zoomed = try await tmux.waitForScreen("the zoomed map") { $0.contains("z: the world") }
        print("the zoomed map:\n\(zoomed)")
        let zoomedLines = zoomed.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            Array(zoomedLines[11...13]) == [
                "> + Small quakes: 3 on the map, 1 without a position",
                "  * Big quakes: 1 on the map, 4 without a position",
                "  zoomed to 6°S–71°N, 165°W–16°E; z: the world",
            ])
        #expect(zoomedLines[15] == "m or Esc back  z world  d days  q quit")
        try await tmux.send("z")
        let world = try await tmux.waitForScreen("the world map again") { !$0.contains("z: the world") }
        #expect(Self.withoutClock(world) == Self.withoutClock(groupMap))
        try await tmux.send("Escape")
        let back = try await tmux.waitForScreen("the groups again") { $0.contains("items in 2 groups") }
        #expect(back.contains("> Small quakes"))
        try await tmux.send("q")
        _ = try await tmux.waitForScreen("the shell again") { $0.contains("PRE-RUN TEXT\n$") }
    }
}
