import Foundation
import MonitorCore
import MonitorItems
import MonitorText

/// The state of the full-screen view of `monitor run`: what is known of the feeds (`live`), which list is
/// open, what is selected, the days window, the filter. Keys change it through `handle(_:)`, a pure reducer
/// that returns the effects the driver must perform; `BrowserScreen` renders it.
package struct BrowserState: Sendable {
    /// Which list is open.
    package enum Level: Sendable, Equatable {
        /// The feeds, with the panel of the selected one.
        case feeds
        case groups(feed: String)
        /// A group's items.
        case items(feed: String, group: String)
        /// One item's details, opened from its group's items.
        case item(feed: String, group: String, id: String)
    }

    /// What the driver must do after a key.
    package enum Effect: Sendable, Equatable {
        /// Read a feed's stored items and groups into `stored`.
        case load(feed: String)
        /// Poll a feed now (within its rate limits).
        case poll(feed: String)
        /// Leave the full-screen view and stop.
        case quit
    }

    /// The map `m` shows: a feed's items, one of its groups standing out (none: the feed's).
    package struct MapView: Sendable, Equatable {
        package var feed: String
        package var group: String?
        /// Whether `z` zoomed to the box around the items shown.
        package var zoomed = false
    }

    /// The days windows `d` steps through; nil is every day.
    package static let windows: [Int?] = [1, 7, 30, 90, 360, nil]

    /// The feeds and their polls.
    package var live: LiveState
    package var level: Level = .feeds
    /// The feed chosen with the keys; nil until a key is pressed (the view then follows the feed that changed last).
    package var chosenFeed: String?
    /// The selected row of the groups list.
    package var groupRow = 0
    /// The selected row of the items list.
    package var itemRow = 0
    /// The index in `windows` of the window in force.
    package var window = BrowserState.windows.count - 1
    /// The filter of the open list.
    package var filter = ""
    /// Whether the filter is being typed.
    package var filtering = false
    /// Whether the keys are shown.
    package var help = false
    /// The map shown over the open list, until `m` or `Esc`.
    package var map: MapView?
    /// The stored items of the open feed, once read.
    package var stored: StoredFeed?
    /// The latest lines of the log, oldest first.
    package var log: [String] = []
    /// The time the view is drawn at (the days window counts back from it).
    package var now: Date
    /// The rows of the screen (PgUp and PgDn move by the rows of the list it shows).
    package var height = 24

    /// The days of the window in force; nil for every day.
    package var days: Int? { Self.windows[window] }

    /// `last N days` or `all days`.
    package var windowLabel: String {
        guard let days else { return "all days" }
        return days == 1 ? "last 1 day" : "last \(days) days"
    }

    // MARK: - The lists

    /// The feeds shown (filtered when the feeds list is open).
    package var feeds: [LiveView.FeedLine] {
        guard level == .feeds, !filter.isEmpty else { return live.lines }
        return live.lines.filter { matches($0.name) }
    }

    /// The selected feed: the one chosen, or the one that changed last, or the first.
    package var selectedFeed: String? {
        let names = feeds.map(\.name)
        if let chosenFeed, names.contains(chosenFeed) { return chosenFeed }
        if chosenFeed == nil, let focus = live.focus, names.contains(focus) { return focus }
        return names.first
    }

    /// The groups of the open feed within the window (filtered when the groups list is open).
    package var groups: [StoredFeed.GroupRow] {
        guard case .groups(let feed) = level, let stored, stored.feed == feed else { return [] }
        return stored.groups(within: days, now: now).filter { filter.isEmpty || matches($0.title) }
    }

    /// The items of the open group within the window, newest first (filtered by title).
    package var items: [Item] {
        guard case .items(let feed, let group) = level, let stored, stored.feed == feed else { return [] }
        return stored.items(of: group, within: days, now: now).filter { filter.isEmpty || matches($0.title) }
    }

    /// The item whose details are open.
    package var openItem: Item? {
        guard case .item(let feed, _, let id) = level, let stored, stored.feed == feed else { return nil }
        return stored.items.first { $0.id == id }
    }

    /// The item selected: the one whose details are open, or the one selected in the items list.
    package var selectedItem: Item? {
        if case .item = level { return openItem }
        let items = items
        return items.indices.contains(itemRow) ? items[itemRow] : nil
    }

    /// The feed the open list belongs to.
    package var currentFeed: String? {
        switch level {
        case .feeds: selectedFeed
        case .groups(let feed), .items(let feed, _), .item(let feed, _, _): feed
        }
    }

    private func matches(_ text: String) -> Bool {
        text.range(of: filter, options: [.caseInsensitive, .diacriticInsensitive]) != nil
    }

    // MARK: - Keys

    /// The state after `key`, with what the driver must do.
    package mutating func handle(_ key: Key) -> [Effect] {
        if key == .interrupt || (key == .character("q") && !filtering) { return [.quit] }
        if help {
            help = false
            return []
        }
        if filtering {
            switch key {
            case .character(let character):
                filter.append(character)
                select(0)
            case .backspace:
                if !filter.isEmpty { filter.removeLast() }
                select(0)
            case .enter:
                filtering = false
                select(0)
            case .escape:
                filtering = false
                filter = ""
            case .up:
                move(-1)
            case .down:
                move(1)
            default:
                break
            }
            return []
        }
        if map != nil {
            switch key {
            case .character("m"), .escape, .left:
                map = nil
            case .character("z"):
                map?.zoomed.toggle()
            case .character("d"):
                window = (window + 1) % Self.windows.count
            default:
                break
            }
            return []
        }
        if case .item = level, key == .escape || key == .left || key == .character("/") {
            // The details have no filter of their own: Esc goes back to the list, as it was.
            if key != .character("/") { back() }
            return []
        }
        switch key {
        case .up, .character("k"):
            move(-1)
        case .down, .character("j"):
            move(1)
        case .pageUp, .pageDown:
            let page = BrowserScreen.listRows(level, height: height)
            move(key == .pageUp ? -page : page)
        case .home, .character("g"):
            move(-.max)
        case .end, .character("G"):
            move(.max)
        case .enter, .right:
            return open()
        case .escape where !filter.isEmpty:
            filter = ""
        case .escape, .left:
            back()
        case .character("d"):
            window = (window + 1) % Self.windows.count
            select(0)
        case .character("/"):
            filtering = true
            filter = ""
        case .character("r"):
            // A feed being polled is not asked again.
            if let feed = currentFeed, live.lines.first(where: { $0.name == feed })?.phase != .polling {
                return [.poll(feed: feed)]
            }
        case .character("o"):
            // The link is printed, never opened: the log row shows it whole enough to copy (the details show it
            // wrapped).
            if let item = selectedItem {
                let link = item.url.map { "link: " + TerminalText.sanitized($0) } ?? "no link"
                log.append("\(UTCTime.clock(now)) \(link)")
            }
        case .character("m"):
            return showMap()
        case .character("?"):
            help = true
        default:
            break
        }
        return []
    }

    private mutating func open() -> [Effect] {
        switch level {
        case .feeds:
            guard let feed = selectedFeed else { return [] }
            chosenFeed = feed
            filter = ""
            level = .groups(feed: feed)
            groupRow = 0
            return [.load(feed: feed)]
        case .groups(let feed):
            let rows = groups
            guard rows.indices.contains(groupRow) else { return [] }
            filter = ""
            level = .items(feed: feed, group: rows[groupRow].id)
            itemRow = 0
        case .items(let feed, let group):
            guard let item = selectedItem else { return [] }
            level = .item(feed: feed, group: group, id: item.id)
        case .item:
            break
        }
        return []
    }

    /// Shows the map of what is selected: the feed (its items read first), the group selected in its groups, or the
    /// group whose items are open.
    private mutating func showMap() -> [Effect] {
        switch level {
        case .feeds:
            guard let feed = selectedFeed else { return [] }
            chosenFeed = feed
            map = MapView(feed: feed, group: nil)
            return [.load(feed: feed)]
        case .groups(let feed):
            let rows = groups
            map = MapView(feed: feed, group: rows.indices.contains(groupRow) ? rows[groupRow].id : nil)
        case .items(let feed, let group), .item(let feed, let group, _):
            map = MapView(feed: feed, group: group)
        }
        return []
    }

    private mutating func back() {
        switch level {
        case .feeds:
            break
        case .groups:
            level = .feeds
        case .items(let feed, let group):
            level = .groups(feed: feed)
            groupRow = groups.firstIndex { $0.id == group } ?? 0
        case .item(let feed, let group, _):
            // Back to the list as it was: its filter and selected row are kept.
            level = .items(feed: feed, group: group)
            return
        }
        filter = ""
    }

    /// Moves the selection `step` rows, kept within the list (`.max` and `-.max` go to its ends).
    private mutating func move(_ step: Int) {
        func moved(_ index: Int, _ count: Int) -> Int {
            min(max(index + min(max(step, -count), count), 0), max(count - 1, 0))
        }
        switch level {
        case .feeds:
            let names = feeds.map(\.name)
            guard !names.isEmpty else { return }
            chosenFeed = names[moved(selectedFeed.flatMap { names.firstIndex(of: $0) } ?? 0, names.count)]
        case .groups:
            groupRow = moved(groupRow, groups.count)
        case .items:
            itemRow = moved(itemRow, items.count)
        case .item:
            break
        }
    }

    private mutating func select(_ row: Int) {
        switch level {
        case .feeds:
            if filtering || !filter.isEmpty, let first = feeds.first { chosenFeed = first.name }
        case .groups:
            groupRow = row
        case .items, .item:
            itemRow = row
        }
    }
}
