import Foundation
import MonitorJSON
import TestSupport
import Testing

@testable import MonitorCore
@testable import WebhookNotifier

@Suite("HMAC-SHA256 against RFC 4231 and Python's hmac")
struct HMACSHA256Tests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// RFC 4231 section 4, test cases 1–7 (case 5 compares the first 128 bits, as the RFC gives only those).
    static let rfc4231: [(name: String, key: [UInt8], data: [UInt8], mac: String)] = [
        (
            "1", [UInt8](repeating: 0x0b, count: 20), bytes("Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            "2", bytes("Jefe"), bytes("what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            "3", [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            "4", Array(1...25), [UInt8](repeating: 0xcd, count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        ("5", [UInt8](repeating: 0x0c, count: 20), bytes("Test With Truncation"), "a3b6167473100ee06e0c796c2955552b"),
        (
            "6", [UInt8](repeating: 0xaa, count: 131), bytes("Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            "7", [UInt8](repeating: 0xaa, count: 131),
            bytes(
                "This is a test using a larger than block-size key and a larger than block-size data. The key needs to "
                    + "be hashed before being used by the HMAC algorithm."),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ]

    @Test("RFC 4231 test cases 1–7", arguments: 0..<7)
    func rfc4231(_ index: Int) {
        let vector = Self.rfc4231[index]
        let mac = HMACSHA256.hex(key: vector.key, message: vector.data)
        #expect(mac.count == 64)
        #expect(mac.hasPrefix(vector.mac), "test case \(vector.name)")
        if vector.mac.count == 64 { #expect(mac == vector.mac, "test case \(vector.name)") }
    }

    @Test("the signature header of a body, as GitHub documents its webhook signatures")
    func header() {
        let header = HMACSHA256.signatureHeader(secret: "It's a Secret to Everybody", body: Self.bytes("Hello, World!"))
        #expect(header.name == "X-Monitor-Signature-256")
        #expect(header.value == "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")
    }

    @Test("random keys and bodies of every length from 0 to 300 bytes give the MAC python3's hmac gives")
    func python() async throws {
        var generator = SystemRandomNumberGenerator()
        let cases = (0...300).map { length in
            (
                key: (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) },
                body: (0..<(300 - length)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            )
        }
        let input =
            cases.map { $0.key.hexadecimal + ":" + $0.body.hexadecimal }
            .joined(separator: "\n") + "\n"
        let program = """
            import hashlib, hmac, sys
            for line in sys.stdin:
                key, body = line.strip().split(":")
                print(hmac.new(bytes.fromhex(key), bytes.fromhex(body), hashlib.sha256).hexdigest())
            """
        let output = try await Python.run(program, input: Array(input.utf8))
        let expected = output.split(separator: "\n").map(String.init)
        try #require(expected.count == 301)
        for (index, pair) in cases.enumerated() {
            #expect(
                HMACSHA256.hex(key: pair.key, message: pair.body) == expected[index],
                "key \(pair.key.hexadecimal) body \(pair.body.hexadecimal)")
        }
    }
}
