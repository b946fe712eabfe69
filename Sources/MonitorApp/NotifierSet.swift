import Foundation
import MonitorCore
import MonitorJSON
import MonitorText

/// The notifiers of a feeds file, made for one run with the HTTP transport they share.
enum NotifierSet {
    /// The transport of the notifiers: the feeds' client stack (body caps), without redirects, so that a webhook's
    /// URL, signature and headers only ever go where the feeds file says. Each delivery's deadline (its notifier's
    /// `timeout`, which may exceed `settings.timeout` and change with a reload) bounds it, never the client's own.
    static func transport() -> HTTPClientTransport {
        HTTPClientTransport(timeout: .seconds(86_400), concurrency: 4, followRedirects: false)
    }

    /// A notifier for each of `configs`, by name (validation guarantees every type is registered).
    static func make(
        _ configs: [NotifierConfig], settings: Settings, transport: any HTTPTransport,
        types: [any Notifier.Type] = Registry.notifiers,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String: any Notifier] {
        let context = NotifierContext(
            transport: transport, timeout: settings.timeout, maxBody: settings.maxBody, environment: environment)
        return Dictionary(
            configs.compactMap { config in
                types.first { $0.type == config.type }.map {
                    (config.name, $0.init(name: config.name, options: config.options, context: context))
                }
            }, uniquingKeysWith: { $1 })
    }

    /// The outbox bounds of each of `configs`, by name.
    static func bounds(_ configs: [NotifierConfig]) -> [String: OutboxBounds] {
        Dictionary(configs.map { ($0.name, $0.bounds) }, uniquingKeysWith: { $1 })
    }

    /// The digest period of each of `configs` that has one, by name.
    static func digests(_ configs: [NotifierConfig]) -> [String: Duration] {
        Dictionary(
            configs.compactMap { config in config.digestPeriod.map { (config.name, $0) } }, uniquingKeysWith: { $1 })
    }

    /// What a notification is about, in a line: `new of rx`, or `digest of 3 notifications`.
    static func subject(_ notification: FeedNotification) -> String {
        guard notification.event == .digest else { return "\(notification.event.rawValue) of \(notification.feed)" }
        return "digest of \(notification.total) notification\(notification.total == 1 ? "" : "s")"
    }

    /// Where each of `configs` delivers, safe to show (a webhook's URL masked), by name.
    static func targets(_ configs: [NotifierConfig]) -> [String: String] {
        make(configs, settings: Settings(), transport: OfflineTransport(), environment: [:]).mapValues(\.target)
    }

    /// The line `run` shows for a delivery attempt.
    static func notice(_ attempt: NotificationDelivery.Attempt) -> String {
        let notification = attempt.notification
        let what =
            "\(notification.notifier): notification \(notification.id) (\(subject(notification)))"
        switch attempt.result {
        case .delivered(let answer):
            return "\(what) delivered: \(TerminalText.sanitized(answer))"
        case .willRetry(let message, let next):
            return
                "\(what) not delivered: \(TerminalText.sanitized(message)); next attempt at \(UTCTime.full(next))"
        case .refused(let message):
            return "\(what) refused: \(TerminalText.sanitized(message)); not sent again"
        case .dropped(let reason):
            return "\(what) dropped: \(reason)"
        }
    }

    /// The JSON line `run --format json` prints for an attempt or a drop:
    /// `{"notification":{"id","notifier","feed","event","result","answer"|"error","next_attempt"}}`, `result` being
    /// `delivered` (with the receiver's `answer`), `retry` (with the `error` and the `next_attempt`), `refused`
    /// (with the `error`) or `dropped` (with why as the `error`); `next_attempt` is null but for a retry.
    static func json(_ attempt: NotificationDelivery.Attempt) -> JSONValue {
        let notification = attempt.notification
        var fields: [(key: String, value: JSONValue)] = [
            ("id", .string(notification.id)), ("notifier", .string(notification.notifier)),
            ("feed", notification.event == .digest ? .null : .string(notification.feed)),
            ("event", .string(notification.event.rawValue)),
        ]
        let (result, detail, retry): (JSONValue, (key: String, value: JSONValue), JSONValue) =
            switch attempt.result {
            case .delivered(let answer): ("delivered", ("answer", .string(TerminalText.sanitized(answer))), nil)
            case .willRetry(let message, let next):
                ("retry", ("error", .string(TerminalText.sanitized(message))), .date(next))
            case .refused(let message): ("refused", ("error", .string(TerminalText.sanitized(message))), nil)
            case .dropped(let reason): ("dropped", ("error", .string(reason)), nil)
            }
        fields += [("result", result), detail, ("next_attempt", retry)]
        return .object([("notification", .object(fields))])
    }

    /// The line `run --once` prints on standard error for a notification it could not deliver; for one not
    /// delivered, `waiting` more of its notifier wait behind it (said in the same line, not one line each).
    static func undeliveredLine(_ attempt: NotificationDelivery.Attempt, waiting: Int = 0) -> String? {
        let notification = attempt.notification
        let what =
            "monitor: notification \(notification.id) (\(subject(notification))) "
            + "to \(notification.notifier)"
        switch attempt.result {
        case .delivered:
            return nil
        case .willRetry(let message, _):
            let behind =
                switch waiting {
                case ..<1: ""
                case 1: "; 1 more waits behind it"
                default: "; \(waiting) more wait behind it"
                }
            return "\(what) not delivered: \(TerminalText.sanitized(message)); kept for the next run\(behind)\n"
        case .refused(let message):
            return "\(what) refused: \(TerminalText.sanitized(message)); not sent again\n"
        case .dropped(let reason):
            return "\(what) dropped: \(reason)\n"
        }
    }
}

/// A transport that sends nothing: the notifiers made only to show where they deliver.
private struct OfflineTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw TransportError.invalid("not sent: offline")
    }
}
