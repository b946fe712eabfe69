/// A node of a YAML document: a scalar, a sequence or a mapping, with where it starts in the source.
package struct Node: Sendable, Hashable {
    /// What a node holds.
    package enum Content: Sendable, Hashable {
        /// A scalar's string value (after unescaping and folding) and how it was written.
        case scalar(String, ScalarStyle)
        /// A sequence's items, in order.
        case sequence([Node])
        /// A mapping's pairs in source order; duplicate keys are kept, merge keys (`<<`) are already applied.
        case mapping([Pair])
    }

    /// One key/value entry of a mapping.
    package struct Pair: Sendable, Hashable {
        package var key: Node
        package var value: Node
    }

    package var content: Content
    /// Where the node starts.
    ///
    /// For a block mapping or sequence: its first key or `-`; for a flow collection: the opening bracket;
    /// for a scalar: its first character (the quote of a quoted scalar, the `|` or `>` of a block scalar).
    /// An anchor or tag in front of the node is not part of it. A node copied from an alias keeps the mark
    /// of the anchored node.
    package var mark: Mark
    /// The explicit tag, resolved (`!!str` is `tag:yaml.org,2002:str`); nil for none or the non-specific `!`.
    package var tag: String?
    /// The anchor name (`&name`), if the node has one.
    package var anchor: String?

    /// The pairs if this is a mapping, else nil.
    package var mapping: [Pair]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    /// Whether this is a YAML null: a plain `""`, `~`, `null`, `Null` or `NULL` without a tag, or tagged `!!null`.
    package var isNull: Bool {
        if tag == "tag:yaml.org,2002:null" { return true }
        guard tag == nil, case .scalar(let value, .plain) = content else { return false }
        return value.isEmpty || value == "~" || value == "null" || value == "Null" || value == "NULL"
    }
}
