import Testing

@testable import MonitorCore

@Suite("SHA-256 against the FIPS 180 examples")
struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String { HMACSHA256.hexadecimal(bytes) }

    @Test(
        "the digests of the FIPS 180 example messages",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ])
    func examples(_ message: String, _ digest: String) {
        #expect(Self.hex(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test("the digest of 1,000,000 × \"a\", in one piece and fed in uneven pieces")
    func millionA() {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Self.hex(SHA256.hash(message)) == expected)
        var hasher = SHA256()
        var start = 0
        var size = 1
        while start < message.count {
            let end = min(message.count, start + size)
            hasher.update(message[start..<end])
            start = end
            size = size * 3 % 997 + 1  // 1, 4, 13, 40, … every size from a byte to more than a block
        }
        #expect(Self.hex(hasher.finalize()) == expected)
    }

    @Test("a message cut at every place gives the digest of the whole, around the 55/56/64-byte padding edges")
    func pieces() {
        let message = (0..<130).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 130] {
            let whole = Self.hex(SHA256.hash(message[..<length]))
            for cut in 0...length {
                var hasher = SHA256()
                hasher.update(message[..<cut])
                hasher.update(message[cut..<length])
                #expect(Self.hex(hasher.finalize()) == whole, "length \(length) cut at \(cut)")
            }
        }
    }
}
