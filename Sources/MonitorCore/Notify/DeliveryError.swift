import Foundation

/// Why a delivery failed, and whether a later attempt may succeed. Its message never holds a secret.
package enum DeliveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A later attempt may succeed (a connection error, a timeout, a 5xx, a 408 or 429, a command's non-zero exit);
    /// `after` is how long the receiver asked to wait (`Retry-After`), already capped.
    case retry(String, after: Duration? = nil)
    /// The receiver refused the notification (a 4xx other than 408 and 429): it is not sent again.
    case permanent(String)

    /// What failed.
    var message: String {
        switch self {
        case .retry(let message, _), .permanent(let message): message
        }
    }

    package var description: String { message }
}
