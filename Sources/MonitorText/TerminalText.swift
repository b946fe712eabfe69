/// Text made safe for a terminal.
package enum TerminalText {
    /// `text` without control characters and escape sequences: a remote title cannot move the cursor, clear
    /// the screen or change colours. Tabs become spaces; line breaks become spaces unless `keepNewlines`.
    package static func sanitized(_ text: String, keepNewlines: Bool = false) -> String {
        // Printable ASCII (nearly always) has nothing to change.
        if isPrintableASCII(text) { return text }
        var output = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x1B:
                skipEscapeSequence(&scalars)
            case 0x9B:  // C1 CSI
                skipControlSequence(&scalars)
            case 0x90, 0x98, 0x9D, 0x9E, 0x9F:  // C1 DCS, SOS, OSC, PM, APC: their string goes too
                skipString(&scalars)
            case 0x09:
                output.append(" ")
            case 0x0A where keepNewlines:
                output.append(scalar)
            case 0x0A, 0x0D:
                output.append(" ")
            case 0x00..<0x20, 0x7F, 0x80..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                // C0/C1 controls, line/paragraph separators and bidirectional overrides are dropped.
                continue
            default:
                output.append(scalar)
            }
        }
        return String(output)
    }

    /// The longest text of a source's or a program's kept as a feed's error or a gap's message, in characters.
    package static let maximumMessage = 500

    /// `text` without control characters, cut to `limit` characters (the last of them `…`) when it is longer. Only its
    /// start is read, so that a message of megabytes costs no more than a short one.
    package static func capped(_ text: String, to limit: Int = maximumMessage) -> String {
        // A short printable ASCII text (nearly all) is its own result.
        if text.utf8.count <= limit, isPrintableASCII(text) { return text }
        // Four times the limit, counted in scalars, leaves room for the control sequences taken out and bounds a
        // character made of endless combining marks.
        let scalars = text.unicodeScalars
        let end =
            scalars.index(scalars.startIndex, offsetBy: limit * 4, limitedBy: scalars.endIndex) ?? scalars.endIndex
        let clean = sanitized(String(String.UnicodeScalarView(scalars[..<end])))
        guard clean.count > limit || end != scalars.endIndex else { return clean }
        return String(clean.prefix(limit - 1)) + "…"
    }

    /// Whether `scalar` is a control character (C0, DEL or C1), which no terminal line, HTTP header or request line
    /// may hold.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value)
    }

    /// Whether `text` is printable ASCII only, which `sanitized(_:keepNewlines:)` leaves as it is; false also when its
    /// bytes are not contiguous (it is then sanitized, which changes nothing of printable ASCII).
    package static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } } == true
    }

    private static func skipEscapeSequence(_ scalars: inout String.UnicodeScalarView.Iterator) {
        guard let next = scalars.next() else { return }
        switch next {
        case "[":
            skipControlSequence(&scalars)
        case "]", "P", "X", "^", "_":
            skipString(&scalars)
        default:
            // A two-character escape (ESC c, ESC 7, ESC ( B …): intermediates 0x20–0x2F then one final.
            var scalar = next
            while (0x20...0x2F).contains(scalar.value), let following = scalars.next() {
                scalar = following
            }
        }
    }

    /// The string of an OSC, DCS, SOS, PM or APC (an OSC 52 reaching the clipboard, an OSC 0 or 2 setting the title),
    /// ended by BEL, ESC \ or the C1 string terminator.
    private static func skipString(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next() {
            if scalar.value == 0x07 || scalar.value == 0x9C { return }
            if scalar.value == 0x1B {
                _ = scalars.next()
                return
            }
        }
    }

    private static func skipControlSequence(_ scalars: inout String.UnicodeScalarView.Iterator) {
        // Parameters and intermediates, then one final byte in 0x40–0x7E.
        while let scalar = scalars.next() {
            if (0x40...0x7E).contains(scalar.value) { return }
        }
    }
}
