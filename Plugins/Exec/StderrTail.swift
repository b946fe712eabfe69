import MonitorCore

/// The end of a program's standard error, kept in bounded memory however much it writes: the last lines of it
/// make the error of a failed run, with the feed's `env` values hidden (see ``Redaction``).
struct StderrTail {
    /// The most bytes kept.
    static let capacity = 4096
    /// The most lines shown.
    static let lineCount = 5

    private let redaction: Redaction
    private var kept: [UInt8] = []
    /// Whether earlier bytes were dropped, so that the kept ones may start inside a secret.
    private var cut = false

    /// An empty tail hiding what `redaction` hides.
    init(redaction: Redaction = Redaction(values: [])) {
        self.redaction = redaction
    }

    /// The most bytes kept: the capacity, and room for a secret straddling its start.
    private var window: Int { Self.capacity + redaction.longest }

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
    var text: String {
        redaction.redacted(String(decoding: kept, as: UTF8.self), cutBefore: cut)
            .split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { redaction.redacted(TerminalText.sanitized($0)).trimmingWhitespace() }
            .filter { !$0.isEmpty }
            .suffix(Self.lineCount)
            .joined(separator: " | ")
    }
}
