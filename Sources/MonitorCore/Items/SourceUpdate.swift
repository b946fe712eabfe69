import MonitorItems
import MonitorText

/// What a source's poll reports, in order, through its `Findings`: the core folds these into the poll's tally.
package enum SourceUpdate: Sendable {
    /// The groups known up front (EONET's categories, with titles); a group without items still shows with 0.
    case groups([ItemGroup])
    /// Requests done out of the total known so far (nil while the total is unknown).
    case progress(done: Int, total: Int?)
    /// Items from one response; an item seen again replaces the earlier one with the same id.
    case items([Item])
    /// A sub-request failed; the poll goes on and ends `partial` (or `failed` when nothing else succeeded). The
    /// stored items of the group it names are kept.
    case failure(SubRequestFailure)
    /// A sub-request succeeded and the items of these groups are all in (a category's response arrived, even an
    /// empty one); no groups: a sub-request that fills no group of its own succeeded.
    case completed(groups: [String])
    /// The requests of these groups were answered 304 Not Modified: their stored items count again.
    case unchanged(groups: [String])
    /// The feed's request was answered 304 Not Modified: every stored item counts again.
    case feedUnchanged
    /// Events may have been missed (not a failure): the answers reached back only to the gap's `until`, or the
    /// source said so in words.
    case gap(PollGap)
    /// Something the poll's reader should know that is neither a failure nor a gap (items left without details).
    case note(String)
}

/// A failed sub-request of a poll, such as one EONET category.
package struct SubRequestFailure: Sendable, Hashable, Error {
    /// What failed, for people: "category 'wildfires'".
    var what: String
    package var message: String
    /// The group whose items could not be fetched; its stored items are kept.
    var group: String?

    /// A failure of `what`; both texts are capped (``TerminalText/capped(_:to:)``).
    package init(what: String, message: String, group: String? = nil) {
        self.what = TerminalText.capped(what)
        self.message = TerminalText.capped(message)
        self.group = group
    }
}
