import ExecSource
import Foundation
import MonitorCore
import TestSupport

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

    /// The whole numbers of the text file `name`, e.g. the pids a script wrote.
    func numbers(_ name: String) throws -> [Int32] {
        try directory.read(name).split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
    }
}

/// Whether process `pid` has ended: it is gone (`kill(pid, 0)` fails with ESRCH), or it is a zombie — dead,
/// waiting to be reaped by its parent (in this container PID 1 never reaps the orphans it adopts).
func hasEnded(_ pid: Int32) -> Bool {
    if kill(pid, 0) == -1, errno == ESRCH { return true }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return true }
    return stat[stat.index(close, offsetBy: 2)] == "Z"
}

/// Whether process `pid` is gone altogether, reaped: `kill(pid, 0)` fails with ESRCH.
func isReaped(_ pid: Int32) -> Bool {
    kill(pid, 0) == -1 && errno == ESRCH
}
