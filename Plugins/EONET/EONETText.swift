import Foundation
import MonitorJSON

/// The one text EONET's responses need read beyond the JSON module's clean-ups (`JSONReader.cleanedString()`,
/// `referenceURL()`, `trimmedString(_:)`): dates, of the fixed shape or any of ISO 8601's.
enum EONETText {
    /// The ISO-8601 date that must come next as a string (with or without fractional seconds), whitespace
    /// around it ignored.
    static func date(_ reader: inout JSONReader) throws(JSONError) -> Date {
        let span = try reader.stringText()
        if !span.escaped, let date = reader.withBytes(of: span, ISO8601.fixedDate) { return date }
        let text = try reader.decoded(span).trimmingAllWhitespace()
        switch ISO8601.parse(text) {
        case .success(let date): return date
        case .failure(.shape): throw .value("not an ISO-8601 date: '\(text)'")
        case .failure(.impossible(let reason)): throw .value("not a date of the calendar (\(reason)): '\(text)'")
        }
    }
}
