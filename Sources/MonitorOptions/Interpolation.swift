import Foundation

/// `${VAR}`, `${VAR:-default}` and `${VAR:?message}` in configuration values; `$${` stands for a literal `${`.
package enum Interpolation {
    /// Why a value could not be expanded, and where in it (a character offset).
    package struct Failure: Error, Sendable, Hashable {
        package var message: String
        /// The offset, in characters, of the `${` that failed.
        package var offset: Int
    }

    /// `text` with every reference replaced from `environment`.
    package static func expand(_ text: String, environment: [String: String]) -> Result<String, Failure> {
        guard text.contains("$") else { return .success(text) }
        var output = ""
        var index = text.startIndex
        var offset = 0
        func advance(_ count: Int) {
            index = text.index(index, offsetBy: count)
            offset += count
        }
        while index < text.endIndex {
            let rest = text[index...]
            if rest.hasPrefix("$${") {
                output += "${"
                advance(3)
            } else if rest.hasPrefix("${") {
                guard let close = closingBrace(of: rest) else {
                    return .failure(Failure(message: "'${' is not closed by '}'", offset: offset))
                }
                let body = String(rest[rest.index(rest.startIndex, offsetBy: 2)..<close])
                switch resolve(body, environment: environment) {
                case .success(let value): output += value
                case .failure(let message): return .failure(Failure(message: message, offset: offset))
                }
                advance(rest.distance(from: rest.startIndex, to: close) + 1)
            } else {
                output.append(text[index])
                advance(1)
            }
        }
        return .success(output)
    }

    /// The `}` that closes the `${` at the start of `text`: braces inside it pair up, so that a message or a
    /// default may hold `{…}` (`${T:?set T, see {docs}}`).
    private static func closingBrace(of text: Substring) -> Substring.Index? {
        var depth = 0
        for index in text.indices.dropFirst(2) {
            switch text[index] {
            case "{": depth += 1
            case "}" where depth == 0: return index
            case "}": depth -= 1
            default: break
            }
        }
        return nil
    }

    private enum Resolution {
        case success(String)
        case failure(String)
    }

    private static func resolve(_ body: String, environment: [String: String]) -> Resolution {
        let name: Substring
        var fallback: String?
        var requirement: String?
        if let range = body.range(of: ":-") {
            name = body[..<range.lowerBound]
            fallback = String(body[range.upperBound...])
        } else if let range = body.range(of: ":?") {
            name = body[..<range.lowerBound]
            requirement = String(body[range.upperBound...])
        } else {
            name = Substring(body)
        }
        guard isVariableName(name) else {
            return .failure(
                "'${\(body)}' is not a variable reference; write ${NAME}, ${NAME:-default} or ${NAME:?message}")
        }
        let value = environment[String(name)]
        if let fallback {
            return .success(value.flatMap { $0.isEmpty ? nil : $0 } ?? fallback)
        }
        if let requirement {
            guard let value, !value.isEmpty else {
                let detail = requirement.isEmpty ? "" : ": \(requirement)"
                return .failure("environment variable '\(name)' is not set\(detail)")
            }
            return .success(value)
        }
        guard let value else {
            return .failure("environment variable '\(name)' is not set (write ${\(name):-} to allow it to be unset)")
        }
        return .success(value)
    }

    private static func isVariableName(_ name: Substring) -> Bool {
        guard let first = name.first, first == "_" || (first.isASCII && first.isLetter) else { return false }
        return name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }
}
