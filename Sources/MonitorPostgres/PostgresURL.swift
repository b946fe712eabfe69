import Foundation
import MonitorCore
import MonitorText

/// A PostgreSQL database named by `postgres://USER[:PASSWORD]@HOST[:PORT]/DB` (or `postgresql://`), parsed strictly.
///
/// The password is kept for connecting and never shown: ``description`` is `postgres://USER@HOST:PORT/DB`, and a
/// malformed URL is named in errors without anything that could be its password.
package struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    /// How the connection is encrypted (`?sslmode=`), as libpq's modes of the same names.
    package enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// Never.
        case disable
        /// When the server offers it, its certificate not checked (the default).
        case prefer
        /// Always, its certificate not checked: the connection fails when the server does not offer it.
        case require
        /// Always, the server's certificate checked against the system's trusted authorities and the host name.
        case verifyFull = "verify-full"
    }

    /// The user name.
    package var user: String
    /// The password, nil when the URL has none.
    package var password: String?
    /// The host name or address (an IPv6 address without its brackets).
    package var host: String
    /// The port.
    package var port = 5432
    /// The database.
    package var database: String
    /// How the connection is encrypted.
    package var tls = TLSMode.prefer

    /// The URL's schemes.
    package static let schemes = ["postgres", "postgresql"]

    /// Whether `text` names a PostgreSQL database by its scheme (`postgres:` or `postgresql:`), well formed or not.
    package static func names(_ text: String) -> Bool {
        schemes.contains { text.lowercased().hasPrefix($0 + ":") }
    }

    /// The URL, without its password: `postgres://USER@HOST:PORT/DB`.
    package var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(user)@\(shownHost):\(port)/\(database)"
    }

    /// `text` without its password, nor any other part that could hold one: the part of the user information after
    /// its first colon is dropped, as is the query; when there is no `@`, so no telling a password from a port,
    /// everything after the host's first colon is dropped. Control characters are removed.
    package static func masked(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else {
            return TerminalText.sanitized(String(text.prefix { $0 != ":" && $0 != "@" }))
        }
        let parts = parts(text[schemeEnd.upperBound...])
        var shown = String(text[..<schemeEnd.upperBound])
        if let userInfo = parts.userInfo {
            shown += (userInfo.firstIndex(of: ":").map { userInfo[..<$0] } ?? userInfo) + "@" + parts.hostPort
        } else if let colon = parts.hostPort.firstIndex(of: ":"), !parts.hostPort.hasPrefix("[") {
            let port = parts.hostPort[parts.hostPort.index(after: colon)...]
            shown += port.allSatisfy(\.isNumber) ? parts.hostPort : parts.hostPort[..<colon]
        } else {
            shown += parts.hostPort
        }
        if let path = parts.path { shown += "/" + path }
        return TerminalText.sanitized(shown)
    }

    /// The parts of what follows `scheme://`: the user information ends at the last `@`, so that a password
    /// holding `/`, `?` or `#` unencoded stays in it; the host and port end at the next `/`, `?` or `#`.
    private static func parts(_ rest: Substring) -> (
        userInfo: Substring?, hostPort: Substring, path: Substring?, query: Substring?, fragment: Bool
    ) {
        var rest = rest
        var userInfo: Substring?
        if let at = rest.lastIndex(of: "@") {
            userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
        }
        var fragment = false
        if let hash = rest.firstIndex(of: "#") {
            fragment = true
            rest = rest[..<hash]
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path: Substring?
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        return (userInfo, rest, path, query, fragment)
    }

    /// Percent-decoded `text`, nil when it is not valid percent-encoding or decodes to control characters.
    private static func decoded(_ text: Substring) -> String? {
        guard let decoded = String(text).removingPercentEncoding else { return nil }
        guard !decoded.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        return decoded
    }
}

extension PostgresURL {
    /// Parses `text`; a malformed URL throws a ``StateError`` that says what is wrong and shows the URL without its
    /// password.
    package init(parsing text: String) throws {
        let shown = Self.masked(text)
        func invalid(_ problem: String) -> StateError {
            StateError(
                "invalid PostgreSQL URL \(shown): \(problem) (the form is postgres://USER[:PASSWORD]@HOST[:PORT]/DB)")
        }
        guard let schemeEnd = text.range(of: "://"),
            Self.schemes.contains(text[..<schemeEnd.lowerBound].lowercased())
        else {
            throw invalid("it does not start with postgres:// or postgresql://")
        }
        let parts = Self.parts(text[schemeEnd.upperBound...])
        if parts.fragment { throw invalid("it has a fragment (#)") }
        guard let path = parts.path else { throw invalid("it names no database (/DB)") }
        guard let userInfo = parts.userInfo else { throw invalid("it names no user (USER@)") }
        var hostPort = parts.hostPort
        let query = parts.query

        let rawUser: Substring
        var rawPassword: Substring?
        if let colon = userInfo.firstIndex(of: ":") {
            rawUser = userInfo[..<colon]
            rawPassword = userInfo[userInfo.index(after: colon)...]
        } else {
            rawUser = userInfo
        }
        guard let user = Self.decoded(rawUser), !user.isEmpty else {
            throw invalid(
                rawUser.isEmpty
                    ? "it names no user (USER@)" : "the user name holds invalid percent-encoding or control characters")
        }
        // The password's own text is never shown, not even as the reason.
        let password = try rawPassword.map { raw -> String in
            guard let decoded = Self.decoded(raw) else {
                throw invalid("the password holds invalid percent-encoding or control characters")
            }
            return decoded
        }

        var host: String
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw invalid("the IPv6 address has no closing ]") }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            hostPort = hostPort[hostPort.index(after: close)...]
            if !hostPort.isEmpty {
                guard hostPort.hasPrefix(":") else { throw invalid("unexpected text after the IPv6 address") }
                portText = hostPort.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw invalid("the IPv6 address is not valid")
            }
        } else {
            if let colon = hostPort.firstIndex(of: ":") {
                portText = hostPort[hostPort.index(after: colon)...]
                hostPort = hostPort[..<colon]
            }
            host = String(hostPort)
            guard !host.isEmpty else { throw invalid("it names no host") }
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._"))
            guard host.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }) else {
                throw invalid("the host name is not valid")
            }
        }
        var port = 5432
        if let portText {
            guard let number = Int(portText), portText.allSatisfy(\.isASCII), (1...65535).contains(number) else {
                throw invalid("the port is not a number from 1 to 65535")
            }
            port = number
        }

        guard !path.isEmpty else { throw invalid("it names no database (/DB)") }
        guard !path.contains("/") else { throw invalid("the database name contains a /") }
        guard let database = Self.decoded(path), !database.isEmpty else {
            throw invalid("the database name holds invalid percent-encoding or control characters")
        }

        var tls = TLSMode.prefer
        var given: Set<String> = []
        for parameter in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0])
            guard name == "sslmode" else {
                // Only the name is shown: the value could be a password (libpq's `?password=`).
                throw invalid("unknown parameter '\(TerminalText.sanitized(name))' (only sslmode is understood)")
            }
            // Refused rather than the last one taken: `sslmode=require&sslmode=disable` would connect without TLS.
            guard given.insert(name).inserted else { throw invalid("the parameter '\(name)' is given more than once") }
            guard pair.count == 2, let mode = TLSMode(rawValue: String(pair[1])) else {
                throw invalid("sslmode must be one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            tls = mode
        }
        self.init(user: user, password: password, host: host, port: port, database: database, tls: tls)
    }
}
