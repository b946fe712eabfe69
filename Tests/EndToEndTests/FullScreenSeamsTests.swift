import Foundation
import TestSupport
import Testing

/// The seams of `monitor run`'s full screen in a real terminal (tmux): hostile progress counts, paging through a
/// long list, colour, the keys `run --help` and `?` list, maps without positions or with a filter (#34).
@Suite(
    "the full screen's seams in a real terminal (tmux)", .timeLimit(.minutes(5)),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed (scripts/setup installs it): skipped"))
struct FullScreenSeamsTests {
    /// The screen with every clock time written `hh:mm:ss`.
    static func masked(_ screen: String) -> String {
        screen.replacingOccurrences(of: #"\d\d:\d\d:\d\d"#, with: "hh:mm:ss", options: .regularExpression)
    }

    /// A tmux session of `width`×`height` in `directory` running `monitor run` (with `environment` before it) on its
    /// feeds file, and the screen once `ready` holds.
    static func start(
        _ directory: TemporaryDirectory, width: Int, height: Int, environment: String = "", command: String = "run",
        ready: @escaping (String) -> Bool
    ) async throws -> (TmuxSession, String) {
        let tmux = try await TmuxSession(in: directory.url, width: width, height: height)
        try await tmux.send(
            "clear; echo PRE-RUN TEXT; \(environment) '\(MonitorProcess.executable.path)' \(command) --config feeds.yaml "
                + "--state state",
            literal: true)
        try await tmux.send("Enter")
        return (tmux, try await tmux.waitForScreen("the full screen", ready))
    }

    @Test("a program's progress beyond any bound is clamped: no overflow, the bar full, done within the total")
    func hostileProgress() async throws {
        let directory = try TemporaryDirectory()
        let program = #"""
            import json, signal, sys
            done, total = int(sys.argv[1]), int(sys.argv[2])
            # The hostile step right behind a first one: the screen, which drew the first, draws it 50 ms later.
            print(json.dumps({"progress": {"done": 0, "total": 1}}), flush=True)
            print(json.dumps({"progress": {"done": done, "total": total}}), flush=True)
            signal.pause()
            """#
        try directory.write("progress.py", program)
        try directory.write(
            "feeds.yaml",
            """
            feeds:
              - name: over
                type: exec
                command: [python3, progress.py, "9223372036854775807", "1"]
              - name: huge
                type: exec
                command: [python3, progress.py, "9223372036854775807", "9223372036854775807"]
            """)
        let (tmux, _) = try await Self.start(directory, width: 80, height: 8) {
            $0.contains("over  polling [##########] 1/1 ") && $0.contains("] 1000000000/1000000000 ")
        }
        defer {
            tmux.kill()
            withExtendedLifetime(directory) {}
        }
        let screen = try await tmux.screen()
        // Which feed is selected (the one that reported last) is left out.
        let rows = screen.components(separatedBy: "\n").map { " " + $0.dropFirst() }
        #expect(
            Array(rows[1...2]) == [
                "  over  polling [##########] 1/1    0 items",
                "  huge  polling [##########] 1000000000/1000000000  0 items",
            ], "\(screen)")
        try await tmux.send("q")
        _ = try await tmux.waitForScreen("the shell again") { $0.contains("PRE-RUN TEXT\n$") }
    }

    /// The screen of the Wildfires items at 60×20 (12 rows of the list) from item `first` on, item `selected` marked.
    static func fires(first: Int, selected: Int) -> String {
        let rows = (first..<first + 12).map { number in
            let hour = (100 - number) % 24
            let day = 16 + (100 - number) / 24
            let stamp = "2026-11-\(day) \(hour < 10 ? "0" : "")\(hour):00"
            return (number == selected ? "> " : "  ") + "\(stamp)  fire \(String(format: "%03d", number))"
        }
        return
            (["monitor › fires › Wildfires           all days  hh:mm:ss UTC", "100 items, newest first, all days", ""]
            + rows + ["", "", "  no link", "<log>", "↑↓ select  Enter open  Esc back  d days  / filter  r poll  …", ""])
            .joined(separator: "\n")
    }

    @Test("PgDn and PgUp move a page of a long list, End and G to its last row, Home and g to its first")
    func paging() async throws {
        let directory = try TemporaryDirectory()
        // 100 wildfires an hour apart, fire 001 the newest.
        let program = #"""
            import json
            print(json.dumps({"group": {"id": "fires", "title": "Wildfires"}}))
            for number in range(1, 101):
                hours = 100 - number
                date = "2026-11-%02dT%02d:00:00Z" % (16 + hours // 24, hours % 24)
                print(json.dumps({"item": {"id": str(number), "title": "fire %03d" % number, "date": date,
                    "groups": ["fires"]}}))
            """#
        try directory.write("fires.py", program)
        try directory.write(
            "feeds.yaml",
            """
            feeds:
              - name: fires
                type: exec
                command: [python3, fires.py]
            """)
        let (tmux, _) = try await Self.start(directory, width: 60, height: 20, environment: "TZ=UTC") {
            $0.contains("fires  ok ")
        }
        defer {
            tmux.kill()
            withExtendedLifetime(directory) {}
        }
        try await tmux.send("Enter")
        _ = try await tmux.waitForScreen("the groups") { $0.contains("> Wildfires") }
        try await tmux.send("Enter")
        _ = try await tmux.waitForScreen("the items") { $0.contains("> 2026-11-20 03:00  fire 001") }
        let steps: [(key: String, first: Int, selected: Int)] = [
            ("PageDown", 2, 13), ("PageDown", 14, 25), ("End", 89, 100), ("PageUp", 77, 88), ("Home", 1, 1),
            ("G", 89, 100), ("g", 1, 1),
        ]
        for (key, first, selected) in steps {
            try await tmux.send(key)
            let screen = try await tmux.waitForScreen("fire \(selected) after \(key)") {
                $0.range(of: String(format: #"> \S+ \S+  fire %03d"#, selected), options: .regularExpression) != nil
            }
            var rows = Self.masked(screen).components(separatedBy: "\n")
            rows[18] = "<log>"
            #expect(rows.joined(separator: "\n") == Self.fires(first: first, selected: selected), "after \(key)")
        }
        try await tmux.send("q")
        _ = try await tmux.waitForScreen("the shell again") { $0.contains("PRE-RUN TEXT\n$") }
    }

    @Test("monitor browse opens the full screen; a feed without positions maps to a sentence; m keeps the filter")
    func browseAndMaps() async throws {
        let directory = try await MapCommandTests.prepare()
        try directory.write(
            "plain.py",
            #"""
            import json
            print(json.dumps({"group": {"id": "notes", "title": "Notes"}}))
            for number in (1, 2):
                print(json.dumps({"item": {"id": str(number), "title": "note %d" % number,
                    "date": "2026-11-2%dT00:00:00Z" % number, "groups": ["notes"]}}))
            """#)
        try directory.write(
            "feeds.yaml",
            """
            feeds:
              - name: quakes
                type: exec
                command: [python3, quakes.py]
              - name: plain
                type: exec
                command: [python3, plain.py]
            """)
        let (tmux, _) = try await Self.start(directory, width: 60, height: 16, command: "browse") {
            $0.contains("quakes  ok") && $0.contains("plain   ok")
        }
        defer {
            tmux.kill()
            withExtendedLifetime(directory) {}
        }
        // The feed without positions: a sentence, then the legend.
        try await tmux.send("j")
        _ = try await tmux.waitForScreen("plain selected") { $0.contains("> plain") }
        try await tmux.send("m")
        let plain = try await tmux.waitForScreen("the map of plain") { $0.contains("Notes: 0 on the map") }
        var plainRows = Self.masked(plain).components(separatedBy: "\n")
        plainRows[14] = "<log>"
        #expect(
            plainRows.joined(separator: "\n") == """
                monitor › plain › map                 all days  hh:mm:ss UTC
                  nothing to map: no item has a position (lat and lon)

                  * Notes: 0 on the map, 2 without a position










                <log>
                m or Esc back  z zoom  d days  q quit

                """)

        // The groups of quakes filtered to Small: m maps that group alone; z zooms to its items.
        try await tmux.send("Escape")
        try await tmux.send("k")
        try await tmux.send("Enter")
        _ = try await tmux.waitForScreen("the groups") { $0.contains("> Big quakes") }
        try await tmux.send("/")
        try await tmux.send("Small", literal: true)
        try await tmux.send("Enter")
        _ = try await tmux.waitForScreen("the filtered groups") { $0.contains("filter: Small") }
        try await tmux.send("m")
        let small = try await tmux.waitForScreen("the filtered map") { $0.contains("Small quakes: 3 on the map") }
        print("the filtered map:\n\(small)")
        let lines = small.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            MapCell.marks(Array(lines.dropFirst()), rows: 12, symbols: ["*", "+"])
                == MapCommandTests.expectedMarks(groups: ["small"], days: nil, columns: 60, rows: 12))
        #expect(lines[13] == "> + Small quakes: 3 on the map, 1 without a position")
        #expect(lines[15] == "filter: Small  m or Esc back  z zoom  d days  q quit")
        try await tmux.send("z")
        let zoomed = try await tmux.waitForScreen("the zoomed map") { $0.contains("z: the world") }
        #expect(
            zoomed.split(separator: "\n", omittingEmptySubsequences: false)[12...13] == [
                "> + Small quakes: 3 on the map, 1 without a position",
                "  zoomed to 6°S–71°N, 165°W–16°E; z: the world",
            ])
        try await tmux.send("q")
        _ = try await tmux.waitForScreen("the shell again") { $0.contains("PRE-RUN TEXT\n$") }
    }

    @Test("run --help lists every key that ? lists, and says that run on a terminal is the browser, named browse too")
    func runHelp() async throws {
        let directory = try TemporaryDirectory()
        let result = try await MonitorProcess.run(["run", "--help"], in: directory.url)
        #expect(result.status == 0)
        let discussion = result.stdout.components(separatedBy: "When standard input and output are terminals").last
        #expect(
            discussion?.components(separatedBy: "\nUSAGE:").first == """
                , `run` is the full-screen browser
                (`monitor browse` names the same command). Its keys:
                  ↑/↓ or k/j   select
                  PgUp/PgDn    a page up or down; Home/End or g/G: the first or the last
                  Enter or →   open a feed's groups, a group's items, an item's details
                  Esc or ←     back (Esc first clears a filter)
                  d            days window: 1, 7, 30, 90, 360, all
                  /            filter the list as you type; Enter keeps it, Esc clears it
                  r            poll the selected feed now
                  o            print the selected item's link (it is never opened)
                  m            the map of the selected feed or group; m or Esc goes back
                  z            zoom the map to the group's items (or all); z again: the world
                  ?            these keys
                  q            quit
                  Ctrl-Z       suspend (the shell's fg comes back)

                """)
    }

    @Test(
        "colour: states and the map's groups coloured, the selection in reverse video; NO_COLOR: two tones",
        arguments: [false, true])
    func colour(noColour: Bool) async throws {
        let directory = try await MapCommandTests.prepare()
        try directory.write(
            "feeds.yaml",
            """
            feeds:
              - name: quakes
                type: exec
                command: [python3, quakes.py]
              - name: broken
                type: exec
                command: [sh, -c, "exit 3"]
            """)
        let (tmux, _) = try await Self.start(
            directory, width: 60, height: 16, environment: noColour ? "NO_COLOR=1" : "env -u NO_COLOR"
        ) {
            $0.contains("quakes  ok") && $0.contains("broken  failed")
        }
        defer {
            tmux.kill()
            withExtendedLifetime(directory) {}
        }
        try await tmux.send("k")
        _ = try await tmux.waitForScreen("quakes selected") { $0.contains("> quakes") }
        let feeds = Self.masked(try await tmux.screen(escapes: true)).components(separatedBy: "\n")
        print("the feeds:\n\(feeds.joined(separator: "\n"))")
        // The selected row in reverse video; a failed state in bold (red in colour), ok green in colour.
        let reset = "\u{1B}[0m\u{1B}[39m\u{1B}[49m"
        let (ok, failed) =
            noColour ? ("ok", "\u{1B}[1mfailed") : ("\u{1B}[32mok\u{1B}[39m", "\u{1B}[1m\u{1B}[31mfailed")
        #expect(
            Array(feeds[1...2]) == [
                "\u{1B}[7m> quakes  \(ok)           8 items                 next hh:mm:ss",
                "\(reset)  broken  \(failed)\(reset)       0 items                 next hh:mm:ss",
            ])

        // The group map of Small quakes: its symbol is + as in monitor map, coloured as there.
        try await tmux.send("Enter")
        _ = try await tmux.waitForScreen("the groups") { $0.contains("> Big quakes") }
        try await tmux.send("j")
        _ = try await tmux.waitForScreen("Small quakes selected") { $0.contains("> Small quakes") }
        try await tmux.send("m")
        _ = try await tmux.waitForScreen("the group's map") { $0.contains("Small quakes: 3 on the map") }
        let map = try await tmux.screen(escapes: true).components(separatedBy: "\n")
        print("the map:\n\(map.joined(separator: "\n"))")
        let (small, big) =
            noColour
            ? ("+ ", "* ")
            : ("\u{1B}[1m\u{1B}[32m+\u{1B}[0;7m\u{1B}[39m\u{1B}[49m ", "\u{1B}[1m\u{1B}[31m*\(reset) ")
        #expect(
            Array(map[12...13]) == [
                "\u{1B}[7m> \(small)Small quakes: 3 on the map, 1 without a position",
                "\(reset)  \(big)Big quakes: 4 on the map, 1 without a position",
            ])
        try await tmux.send("q")
        _ = try await tmux.waitForScreen("the shell again") { $0.contains("PRE-RUN TEXT\n$") }
    }
}
