import MonitorText

/// The end of a program's standard error, kept in bounded memory however much it writes, with the values of its
/// `env` hidden (see ``Redaction``): an exec source shows its last lines, a command notifier its last characters.
package struct StderrTail: Sendable {
    /// The most lines ``lines`` shows.
    static let lineCount = 5

    let redaction: Redaction
    /// The most bytes kept, before the room for a secret straddling the start.
    let capacity: Int
    var kept: [UInt8] = []
    /// Whether earlier bytes were dropped, so that the kept ones may start inside a secret.
    var cut = false

    /// The most bytes kept: the capacity, and room for a secret straddling its start.
    private var window: Int { capacity + redaction.longest }

    /// Takes one chunk of standard error, dropping what falls out of the window.
    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        if chunk.count > window { cut = true }
        kept.append(contentsOf: chunk.suffix(window))
        if kept.count > window {
            kept.removeFirst(kept.count - window)
            cut = true
        }
    }

    /// The last non-blank lines, without control characters or secrets, joined with ` | `; empty when there were
    /// none. The secrets are hidden in the whole tail, then again in each line once its control characters are taken
    /// out (they could have split one).
    package var lines: String {
        redaction.redacted(String(decoding: kept, as: UTF8.self), cutBefore: cut)
            .split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { redaction.redacted(TerminalText.sanitized(String($0))).trimmingWhitespace() }
            .filter { !$0.isEmpty }
            .suffix(Self.lineCount)
            .joined(separator: " | ")
    }

    /// Its last `capacity` characters as a message shows them, its secrets hidden, the end of one at its start too.
    package var last: String {
        redaction.message(String(decoding: kept, as: UTF8.self), limit: capacity, keeping: .last, cutBefore: cut)
    }
}
