import ArgumentParser
import Foundation

/// Where `run --metrics` listens: `[HOST:]PORT`.
///
/// A bare port, or `localhost`, listens on 127.0.0.1 only. Another address — one of this machine's, `0.0.0.0` or
/// `[::]` for every interface — is used only when written out: an empty host (`:9464`) or `*` is refused rather
/// than read as "every interface", and so is a host name, which could resolve to an address reachable from other
/// machines. An IPv6 address is written in brackets (`[::1]:9464`). Port 0 picks a free port.
struct MetricsAddress: Sendable, Hashable {
    /// The IP address to bind, without brackets.
    var host: String
    /// The port; 0 until bound picks one.
    var port: Int

    /// Whether only this machine can connect: 127.0.0.0/8 or ::1.
    var isLoopback: Bool {
        host == "::1" || host.hasPrefix("127.")
    }

    /// `http://HOST:PORT/metrics`, with an IPv6 address in brackets.
    var url: String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/metrics"
    }

    /// The address `text` names, or a usage error saying what is wrong with it.
    static func parse(_ text: String) throws -> MetricsAddress {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[close...].hasPrefix("]:") else {
                throw ValidationError("write an IPv6 address as [ADDRESS]:PORT, such as [::1]:9464")
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
            guard isAddress(host, family: AF_INET6) else {
                throw ValidationError("'\(host)' is not an IPv6 address")
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            if host.contains(":") {
                throw ValidationError("write an IPv6 address in brackets, such as [::1]:9464")
            }
        } else {
            host = "127.0.0.1"
            port = Substring(text)
        }
        guard !port.isEmpty, port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), number <= 65535
        else {
            throw ValidationError("the port must be a number from 0 to 65535")
        }
        if host.isEmpty || host == "*" {
            throw ValidationError(
                "name the address to listen on: \(number) alone listens on 127.0.0.1 only, "
                    + "0.0.0.0:\(number) or [::]:\(number) on every interface")
        }
        if host.lowercased() == "localhost" {
            return MetricsAddress(host: "127.0.0.1", port: number)
        }
        guard text.hasPrefix("[") || isAddress(host, family: AF_INET) else {
            throw ValidationError(
                "'\(host)' is not an IP address; give localhost, an address of this machine, "
                    + "or 0.0.0.0 for every interface")
        }
        return MetricsAddress(host: String(host), port: number)
    }

    /// Whether `text` is an address of `family` (`AF_INET`, `AF_INET6`) in its literal form.
    private static func isAddress(_ text: Substring, family: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(family, String(text), &buffer) == 1
    }
}
