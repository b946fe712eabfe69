/// A recorded exchange a source must handle, the way a lint rule ships examples: a feed's options, then one
/// or more polls against the same state, each with the server's answer to every URL it asks and what the poll
/// must produce. One generic test runs every example of every registered source.
public struct SourceExample: Sendable {
    /// One poll of an example.
    public struct Poll: Sendable {
        /// The answer to each URL the source may ask, by URL; any other URL is an error of the example.
        public var answers: [String: HTTPResponse]
        /// What the poll must produce.
        public var expect: Expectation

        /// A poll answered with `answers` that must produce `expect`.
        public init(answers: [String: HTTPResponse], expect: Expectation) {
            self.answers = answers
            self.expect = expect
        }
    }

    /// What a poll must produce.
    public struct Expectation: Sendable, Hashable {
        /// How it ends.
        public var status: PollReport.Status
        /// The ids of the feed's items after the poll, newest first.
        public var items: [String]
        /// The count of each group in the report (a failed poll reports none).
        public var groups: [String: Int]
        /// How many items are new.
        public var new: Int

        /// An expectation.
        public init(status: PollReport.Status, items: [String], groups: [String: Int] = [:], new: Int) {
            self.status = status
            self.items = items
            self.groups = groups
            self.new = new
        }
    }

    /// What the example shows, as the test's name.
    public var name: String
    /// The feed's options over the declared defaults.
    public var options: [String: OptionValue]
    /// The polls, in order, against one state.
    public var polls: [Poll]

    /// An example.
    public init(_ name: String, options: [String: OptionValue] = [:], polls: [Poll]) {
        self.name = name
        self.options = options
        self.polls = polls
    }

    /// A 200 answer with a JSON body and an ETag (so the next request is conditional).
    public static func json(_ body: String, etag: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["Content-Type": "application/json", "ETag": etag], body: Array(body.utf8))
    }

    /// A 304 Not Modified answer.
    public static let notModified = HTTPResponse(status: 304)

    /// An error answer with a JSON `message`.
    public static func error(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["Content-Type": "application/json"],
            body: Array(#"{"message":"\#(message)"}"#.utf8))
    }
}
