import ExecSource
import Foundation
import MonitorOptions
import TestSupport

@testable import MonitorCore

#if canImport(Glibc)
    import Glibc
#endif

/// Scripts written by a test into a directory of its own, and feeds that run them.
struct ExecScripts {
    /// The directory; scripts write what they saw here.
    let directory = try! TemporaryDirectory()

    /// Writes `text` as `name` and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try directory.write(name, text).path
    }

    /// The path of `name` in the directory.
    func path(_ name: String) -> String { directory.url.appendingPathComponent(name).path }

    /// An exec feed named `name` running `command`, with `options` over the defaults.
    func feed(_ command: [String], name: String = "test", options: [String: OptionValue] = [:]) -> FeedConfig {
        PollHarness.feed(ExecSource.self, name: name, options: options.merging(["command": .list(command)]) { $1 })
    }

    /// An exec feed running the Python 3 program `program`, written as `name.py`.
    func python(_ program: String, name: String = "test", options: [String: OptionValue] = [:]) throws
        -> FeedConfig
    {
        let script = try write("\(name).py", program)
        return feed(["python3", script], name: name, options: options)
    }

    /// Makes the named pipe `name` (a script writing to it waits for the test to read); returns its path.
    func fifo(_ name: String) throws -> String {
        let path = path(name)
        guard mkfifo(path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return path
    }

    /// The whole numbers of the text file `name`, e.g. the pids a script wrote.
    func numbers(_ name: String) throws -> [Int32] {
        try directory.read(name).split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
    }
}
