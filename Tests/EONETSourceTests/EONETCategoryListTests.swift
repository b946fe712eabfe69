import Testing

@testable import EONETSource
@testable import MonitorCore

@Suite("Reading EONET's category list from the response's bytes, and the list kept between polls")
struct EONETCategoryListTests {
    static func read(_ text: String) throws(SourceError) -> [EONETCategoryList.Category] {
        try EONETJSON.decode(EONETCategoryList.self, from: Array(text.utf8)).categories
    }

    @Test("ids are trimmed, titles collapsed; a null, missing or blank title is the id; other members skipped")
    func categories() throws {
        let text = #"""
            {"title": "EONET Event Categories", "link": "x", "categories": [
              {"id": " wildfires ", "title": "Wild\n  fires", "layers": [{"name": "a", "parameters": [1, 2.5]}]},
              {"id": "snow", "title": null}, {"id": "drought"}, {"id": "floods", "title": "  "},
              {"id": "seaLakeIce", "title": "Sea and Lake Ice \u00e9/\u2603"}]}
            """#
        #expect(
            try Self.read(text) == [
                .init(id: "wildfires", title: "Wild fires"), .init(id: "snow", title: "snow"),
                .init(id: "drought", title: "drought"), .init(id: "floods", title: "floods"),
                .init(id: "seaLakeIce", title: "Sea and Lake Ice é/☃"),
            ])
    }

    @Test(
        "a list that is not one is refused with what and where",
        arguments: [
            ("<html>maintenance</html>", "not valid JSON"),
            (#"{"categories": [{"id": "snow"}"#, "not valid JSON"),
            ("", "not valid JSON"),
            (#"{"title": "EONET Event Categories"}"#, "missing 'categories'"),
            (#"{"categories": null}"#, "at categories: null where a value is needed"),
            (#"{"categories": [{"id": "snow"}, {"title": "Drought"}]}"#, "at categories[1]: missing 'id'"),
            (#"{"categories": [{"id": 7}]}"#, "at categories[0].id: expected a string"),
            (#"{"categories": [{"id": null}]}"#, "at categories[0].id: null where a value is needed"),
            (#"{"categories": [{"id": "snow", "title": 3}]}"#, "at categories[0].title: expected a string"),
            (#"{"categories": {}}"#, "at categories: expected a list"),
        ])
    func refused(text: String, message: String) {
        #expect(throws: SourceError(message)) { try Self.read(text) }
    }

    @Test("the kept list is compact JSON with escapes, and reads back to the same (cleaned) categories")
    func saved() throws {
        let categories: [EONETCategoryList.Category] = [
            .init(id: "wildfires", title: "Wildfires"), .init(id: "odd", title: "A \"quoted\"\\ title é"),
        ]
        let text = EONETJSON.saved(categories)
        #expect(
            text == #"[{"id":"wildfires","title":"Wildfires"},{"id":"odd","title":"A \"quoted\"\\ title é"}]"#)
        #expect(try EONETJSON.catalog(fromSaved: text) == categories)
        // What the list kept by the JSONEncoder of earlier versions looks like (keys sorted, `/` escaped).
        #expect(
            try EONETJSON.catalog(fromSaved: #"[{"id":"dustHaze","title":"Dust and Haze \/ smoke"}]"#)
                == [.init(id: "dustHaze", title: "Dust and Haze / smoke")])
        #expect(throws: SourceError("at [0]: missing 'id'")) { try EONETJSON.catalog(fromSaved: #"[{"title":"x"}]"#) }
    }
}
