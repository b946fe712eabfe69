/// The UTF-8 bytes handed to libyaml, with the position arithmetic libyaml's marks need.
///
/// libyaml 0.2.5 counts `mark.index` and `mark.column` in characters (Unicode scalars), a CR LF pair counts as
/// two, and CR, LF, CR LF, NEL (U+0085), LS (U+2028) and PS (U+2029) each end a line. Reader errors instead give
/// a byte offset.
struct SourceText {
    let bytes: UnsafeBufferPointer<UInt8>
    /// A character index and its byte offset, moved to wherever the last lookup was (lookups are mostly ascending).
    private var cursorIndex = 0
    private var cursorOffset = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The byte offset of the character with libyaml index `index`, clamped to the end of the text.
    mutating func byteOffset(ofCharacterIndex index: Int) -> Int {
        while cursorIndex < index && cursorOffset < bytes.count {
            cursorOffset += 1
            while cursorOffset < bytes.count && Self.isContinuation(bytes[cursorOffset]) { cursorOffset += 1 }
            cursorIndex += 1
        }
        while cursorIndex > index && cursorOffset > 0 {
            cursorOffset -= 1
            while cursorOffset > 0 && Self.isContinuation(bytes[cursorOffset]) { cursorOffset -= 1 }
            cursorIndex -= 1
        }
        return cursorOffset
    }

    /// The byte at `offset`, or nil past the end.
    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    /// The 1-based mark of byte `offset`, counting lines and characters the way libyaml does.
    func mark(ofByteOffset offset: Int) -> Mark {
        var line = 1
        var column = 1
        var position = 0
        let limit = min(max(offset, 0), bytes.count)
        while position < limit {
            if let breakLength = lineBreakLength(at: position) {
                line += 1
                column = 1
                position += breakLength
            } else {
                column += 1
                position = nextCharacter(after: position)
            }
        }
        return Mark(line: line, column: column)
    }

    /// Where the content of a node starts when libyaml's start mark is at its anchor or tag.
    ///
    /// Skips anchors, tags, blanks, comments and line breaks from `start` (a 0-based libyaml mark at byte
    /// `startOffset`). Returns nil when the first content character is not before `endOffset`, i.e. the node
    /// has no content of its own (an empty scalar).
    func contentStart(startOffset: Int, line startLine: Int, column startColumn: Int, endOffset: Int) -> Mark? {
        var position = startOffset
        var line = startLine
        var column = startColumn
        var atLineStartOrBlank = true
        while position < endOffset && position < bytes.count {
            let byte = bytes[position]
            if let breakLength = lineBreakLength(at: position) {
                position += breakLength
                line += 1
                column = 0
                atLineStartOrBlank = true
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                position += 1
                column += 1
                atLineStartOrBlank = true
            } else if byte == UInt8(ascii: "#") && atLineStartOrBlank {
                while position < bytes.count && lineBreakLength(at: position) == nil {
                    position = nextCharacter(after: position)
                    column += 1
                }
            } else if byte == UInt8(ascii: "&") || byte == UInt8(ascii: "!") {
                // An anchor or a tag runs to the next blank or line break (a verbatim tag `!<...>` to its `>`).
                let verbatim = byte == UInt8(ascii: "!") && self.byte(at: position + 1) == UInt8(ascii: "<")
                while position < bytes.count {
                    let current = bytes[position]
                    if verbatim && current == UInt8(ascii: ">") {
                        position += 1
                        column += 1
                        break
                    }
                    if !verbatim && (current == UInt8(ascii: " ") || current == UInt8(ascii: "\t")) { break }
                    if lineBreakLength(at: position) != nil { break }
                    position = nextCharacter(after: position)
                    column += 1
                }
                atLineStartOrBlank = false
            } else {
                return Mark(line: line + 1, column: column + 1)
            }
        }
        return nil
    }

    /// The length in bytes of the line break at `position`, or nil if there is none.
    private func lineBreakLength(at position: Int) -> Int? {
        switch bytes[position] {
        case 0x0A:
            return 1
        case 0x0D:
            return byte(at: position + 1) == 0x0A ? 2 : 1
        case 0xC2 where byte(at: position + 1) == 0x85:
            return 2
        case 0xE2 where byte(at: position + 1) == 0x80:
            // U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR.
            let third = byte(at: position + 2)
            return third == 0xA8 || third == 0xA9 ? 3 : nil
        default:
            return nil
        }
    }

    /// The offset of the character after the one starting at `position`.
    private func nextCharacter(after position: Int) -> Int {
        var next = position + 1
        while next < bytes.count && Self.isContinuation(bytes[next]) { next += 1 }
        return next
    }

    private static func isContinuation(_ byte: UInt8) -> Bool {
        byte & 0xC0 == 0x80
    }
}
