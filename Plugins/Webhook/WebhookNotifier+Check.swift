import Foundation
import MonitorConcurrency
import MonitorCore
import MonitorText

// MARK: - Online check

extension WebhookNotifier {
    /// The URL's host resolves (`getaddrinfo`), within the notifier's timeout; nothing is sent (`notify test` does
    /// that). Only the host is named.
    package func checkOnline() async -> OnlineCheck {
        guard let origin = URLOrigin(url) else { return .wrong("'url' has no host") }
        let host = origin.host.hasPrefix("[") ? String(origin.host.dropFirst().dropLast()) : origin.host
        let shown = TerminalText.sanitized(origin.host)
        struct Expired: Error {}
        do {
            // getaddrinfo cannot be cancelled: past the deadline it is left to end on its own thread.
            let answer = try await withDeadline(timeout, orThrow: Expired(), leaving: { _ in }) {
                await offThePool { Self.resolve(host) }
            }
            switch answer {
            case .resolved: return .ok("host \(shown) resolves (nothing sent)")
            case .unknown: return .wrong("host \(shown) does not resolve (no such host)")
            case .failed(let detail): return .notChecked("resolving host \(shown) failed: \(detail)")
            }
        } catch {
            return .notChecked("resolving host \(shown) failed: no answer within \(DurationFormat.string(timeout))")
        }
    }

    /// What the system's resolver says of a host name.
    enum Resolution: Sendable {
        case resolved
        /// The name does not exist (`EAI_NONAME`): a `.invalid` name, a typo.
        case unknown
        /// The resolver could not say (no network, a DNS server not answering).
        case failed(String)
    }

    /// Asks the system's resolver for `host`'s addresses (blocking). A `.invalid` name is unknown without asking, as
    /// RFC 6761 wants of resolvers (a machine without network would otherwise answer "try again").
    static func resolve(_ host: String) -> Resolution {
        let lowered = host.lowercased()
        if lowered == "invalid" || lowered.hasSuffix(".invalid") || lowered.hasSuffix(".invalid.") { return .unknown }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &found)
        defer { if let found { freeaddrinfo(found) } }
        switch status {
        case 0: return .resolved
        case EAI_NONAME: return .unknown
        default: return .failed(String(cString: gai_strerror(status)).lowercased())
        }
    }
}
