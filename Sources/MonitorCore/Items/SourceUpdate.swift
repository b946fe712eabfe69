/// What a source's poll produces, as responses arrive.
public enum SourceUpdate: Sendable {
    /// The groups known up front (EONET's categories, with titles); a group without items still shows with 0.
    case groups([ItemGroup])
    /// Requests done out of the total known so far (nil while the total is unknown).
    case progress(done: Int, total: Int?)
    /// Items from one response; an item seen again replaces the earlier one with the same id.
    case items([Item])
    /// A sub-request failed; the poll goes on and ends `partial`.
    case failure(SubRequestFailure)
    /// The items of these groups are all in (a category's response arrived, even an empty one).
    case completed(groups: [String])
}

/// A failed sub-request of a poll, such as one EONET category.
public struct SubRequestFailure: Sendable, Hashable, Error {
    /// What failed, for people: "category 'wildfires'".
    public var what: String
    /// Why.
    public var message: String
    /// The group whose items could not be fetched; its stored items are kept.
    public var group: String?

    /// A failure.
    public init(what: String, message: String, group: String? = nil) {
        self.what = what
        self.message = message
        self.group = group
    }
}
