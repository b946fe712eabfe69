import Testing

@testable import MonitorApp

@Suite("run --once: the progress lines")
struct ProgressTextTests {
    @Test("the feed names are padded in terminal cells: a wide character or an emoji takes two (#29 review)")
    func wideNames() {
        #expect(
            ProgressText.block(feeds: ["地震", "usgs", "火山🌋"], views: [:]) == """
                  地震    waiting
                  usgs    waiting
                  火山🌋  waiting

                """)
    }
}
