import MonitorCore

/// The end of a program's standard error, kept in bounded memory however much it writes: the last lines of it
/// make the error of a failed run.
struct StderrTail {
    /// The most bytes kept.
    static let capacity = 4096
    /// The most lines shown.
    static let lineCount = 5

    private var kept: [UInt8] = []

    /// An empty tail.
    init() {}

    /// Takes one chunk of standard error, dropping what falls out of the capacity.
    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        kept.append(contentsOf: chunk.suffix(Self.capacity))
        if kept.count > Self.capacity { kept.removeFirst(kept.count - Self.capacity) }
    }

    /// The last non-blank lines, without control characters, joined with ` | `; empty when there were none.
    var text: String {
        String(decoding: kept, as: UTF8.self)
            .split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { TerminalText.sanitized($0).trimmingWhitespace() }
            .filter { !$0.isEmpty }
            .suffix(Self.lineCount)
            .joined(separator: " | ")
    }
}
