import MonitorCore
import MonitorText

/// A program's standard output cut into numbered lines as it arrives, held to a size limit.
///
/// Lines end with `\n` (a `\r` before it is dropped); blank lines are skipped but counted, so that the numbers
/// are those an editor shows; a last line without a line break counts once the output ends.
package struct OutputLines {
    /// The most bytes accepted in all (`settings.max_body`).
    let limit: Int
    /// Bytes received so far.
    private(set) var bytes = 0
    /// The number of the last line cut.
    private(set) var number = 0
    private var pending: [UInt8] = []

    /// Cuts lines up to `limit` bytes in all.
    package init(limit: Int) {
        self.limit = limit
    }

    /// Takes one chunk of output and hands each complete, non-blank line to `line` with its number. Throws when
    /// the output grows past the limit, or what `line` throws.
    package mutating func append(
        _ chunk: UnsafeRawBufferPointer, _ line: (_ number: Int, _ text: [UInt8]) throws -> Void
    ) throws {
        bytes += chunk.count
        guard bytes <= limit else {
            throw SourceError(
                "the program wrote more than settings.max_body (\(ByteSizeFormat.string(limit))) on its output")
        }
        var start = chunk.startIndex
        while let newline = chunk[start...].firstIndex(of: 0x0A) {
            pending.append(contentsOf: chunk[start..<newline])
            try cut(line)
            start = newline + 1
        }
        pending.append(contentsOf: chunk[start...])
    }

    /// The output ended: hands over a last line that had no line break.
    package mutating func finish(_ line: (_ number: Int, _ text: [UInt8]) throws -> Void) throws {
        if !pending.isEmpty { try cut(line) }
    }

    private mutating func cut(_ line: (_ number: Int, _ text: [UInt8]) throws -> Void) throws {
        number += 1
        if pending.last == 0x0D { pending.removeLast() }
        defer { pending.removeAll(keepingCapacity: true) }
        guard pending.contains(where: { ![0x20, 0x09].contains($0) }) else { return }
        try line(number, pending)
    }
}
