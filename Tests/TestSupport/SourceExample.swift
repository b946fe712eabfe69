import MonitorCore
import MonitorOptions

/// A recorded exchange a source must handle, the way a lint rule ships examples: a feed's options, then one
/// or more polls against the same state, each with the server's answer to every URL it asks and what the poll
/// must produce. One generic test (`SourceExamplesTests`) runs every example of every registered source.
package struct SourceExample: Sendable {
    /// One poll of an example.
    package struct Poll: Sendable {
        /// The answer to each URL the source may ask, by URL; any other URL is an error of the example.
        package var answers: [String: HTTPResponse]
        /// What the poll must produce.
        package var expect: Expectation

        /// A poll answered with `answers` that must produce `expect`.
        package init(answers: [String: HTTPResponse], expect: Expectation) {
            self.answers = answers
            self.expect = expect
        }
    }

    /// What a poll must produce.
    package struct Expectation: Sendable, Hashable {
        package var status: PollReport.Status
        /// The ids of the feed's items after the poll, newest first.
        package var items: [String]
        /// The count of each group in the report (a failed poll reports none).
        package var groups: [String: Int]
        package var new: Int

        package init(status: PollReport.Status, items: [String], groups: [String: Int] = [:], new: Int) {
            self.status = status
            self.items = items
            self.groups = groups
            self.new = new
        }
    }

    /// What the example shows, as the test's name.
    package var name: String
    /// The feed's options over the declared defaults.
    package var options: [String: OptionValue]
    /// The polls, in order, against one state.
    package var polls: [Poll]

    package init(_ name: String, options: [String: OptionValue] = [:], polls: [Poll]) {
        self.name = name
        self.options = options
        self.polls = polls
    }

    /// A 200 answer with a JSON body and an ETag (so the next request is conditional).
    package static func json(_ body: String, etag: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["Content-Type": "application/json", "ETag": etag], body: Array(body.utf8))
    }

    /// A 304 Not Modified answer.
    package static let notModified = HTTPResponse(status: 304)

    /// An error answer with a JSON `message`.
    package static func error(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["Content-Type": "application/json"],
            body: Array(#"{"message":"\#(message)"}"#.utf8))
    }
}
