import Foundation

/// The scheme, host and port of a URL: what rate budgets, metrics labels and a source's "is this our own server"
/// check go by.
///
/// The host is read as written when it is plain ASCII. `URLComponents.host` decodes every host through ICU's IDNA
/// mapping, which maps ICU's code and data into the process on the first request of every poll; `encodedHost`
/// gives the same text for any host without a `%` escape or an `xn--` label, so only those — percent-encoded and
/// internationalised names — are decoded, and each host gets the name `URLComponents.host` gives it, lowercased.
package struct URLOrigin: Sendable, Hashable {
    /// The scheme, lowercased.
    var scheme: String
    /// The host, lowercased; an IPv6 address keeps its brackets.
    package var host: String
    /// The port the URL names, nil when it names none.
    var port: Int?

    /// The origin of `url`; nil when it is not a URL with a scheme and a host.
    package init?(_ url: String) {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            let host = Self.host(of: components)
        else { return nil }
        self.scheme = scheme.lowercased()
        self.host = host.lowercased()
        port = components.port
    }

    /// The port, or the scheme's default one (443 for `https`, 80 for `http`, else 0) when the URL names none.
    var effectivePort: Int {
        port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : 0)
    }

    /// `components.host` — decoded only when the written host needs it (see the type's documentation).
    package static func host(of components: URLComponents) -> String? {
        guard let written = components.encodedHost else { return nil }
        if written.utf8.contains(UInt8(ascii: "%")) || written.lowercased().contains("xn--") { return components.host }
        return written
    }
}
