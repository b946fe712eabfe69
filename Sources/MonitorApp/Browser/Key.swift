/// A key pressed in the full-screen view.
package enum Key: Sendable, Hashable {
    case up, down, left, right, enter, escape, backspace
    case pageUp, pageDown, home, end
    /// Ctrl-C (raw mode delivers it as a byte, not a signal).
    case interrupt
    /// Ctrl-Z (as Ctrl-C, a byte).
    case suspend
    /// A printable character.
    case character(Character)

    /// The keys in `bytes`, one read from a terminal in raw mode: arrows arrive as `ESC [ A`… (or `ESC O A`…), PgUp
    /// and PgDn as `ESC [ 5 ~` and `ESC [ 6 ~`, Home and End as `ESC [ H`, `ESC [ 1 ~` or `ESC [ 7 ~` (`F`, `4`, `8`),
    /// a lone `ESC` is Escape, unknown sequences and control bytes are dropped.
    package static func parse(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x1B:
                guard index + 1 < bytes.count, bytes[index + 1] == 0x5B || bytes[index + 1] == 0x4F else {
                    keys.append(.escape)
                    index += 1
                    continue
                }
                // A control sequence: parameters, then one final byte in 0x40…0x7E.
                var end = index + 2
                while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
                guard end < bytes.count else { return keys }
                let parameters = bytes[(index + 2)..<end]
                if bytes[end] == 0x7E {
                    // `ESC [ 5 ~` and the like: the key's number, before any modifier.
                    switch Int(String(decoding: parameters.prefix { $0 != 0x3B }, as: UTF8.self)) {
                    case 5: keys.append(.pageUp)
                    case 6: keys.append(.pageDown)
                    case 1, 7: keys.append(.home)
                    case 4, 8: keys.append(.end)
                    default: break
                    }
                } else if parameters.isEmpty || parameters.allSatisfy({ $0 == 0x31 || $0 == 0x3B }) {
                    switch bytes[end] {
                    case 0x41: keys.append(.up)
                    case 0x42: keys.append(.down)
                    case 0x43: keys.append(.right)
                    case 0x44: keys.append(.left)
                    case 0x48: keys.append(.home)
                    case 0x46: keys.append(.end)
                    default: break
                    }
                }
                index = end + 1
                continue
            case 0x0D, 0x0A:
                keys.append(.enter)
            case 0x7F, 0x08:
                keys.append(.backspace)
            case 0x03:
                keys.append(.interrupt)
            case 0x1A:
                keys.append(.suspend)
            case 0x00..<0x20:
                break
            default:
                // One UTF-8 character: its length from the lead byte.
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                let end = min(bytes.count, index + length)
                if let text = String(validating: bytes[index..<end], as: UTF8.self), let character = text.first {
                    keys.append(.character(character))
                }
                index = end
                continue
            }
            index += 1
        }
        return keys
    }
}
