import Foundation

/// A directory of its own for one test, removed when the test ends.
package final class TemporaryDirectory: Sendable {
    /// The directory.
    package let url: URL

    /// Creates a new, empty directory.
    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("monitor-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `text` to `name` inside the directory and returns its URL; `atomically`, through a temporary file
    /// renamed over it (as most editors save), so that a reader never sees it half written.
    @discardableResult
    package func write(_ name: String, _ text: String, atomically: Bool = false) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file, options: atomically ? .atomic : [])
        return file
    }

    /// The text of `name` inside the directory.
    package func read(_ name: String) throws -> String {
        try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)
    }
}
