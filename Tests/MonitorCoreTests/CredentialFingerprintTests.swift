import Testing

@testable import MonitorCore

@Suite("The fingerprint of a credential, as the state stores it")
struct CredentialFingerprintTests {
    @Test(
        "the SHA-256 of `monitor-credential:` and the credential in lower-case hexadecimal, as python3's hashlib gives",
        arguments: [
            ("ghp_x", "8e0698f9973a22d0c500125ac075ce62afd8717adf3d9252d10267a6584d35ab"),
            (
                "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
                "0520fdcfb4afa35b2bc15e1e38b8b34c5de3b42cd68a084a23581df408bf5526"
            ),
            ("tökén ✓", "417a04e59796433af7e0a663afd1dfdea43352abaea48c8dc4cd17eaf06f5cb9"),
        ])
    func stored(_ credential: String, _ fingerprint: String) {
        #expect(ValidatorKey.fingerprint(credential) == fingerprint)
        #expect(ValidatorKey(url: "https://api.github.com/", credential: fingerprint).isCurrent)
    }

    @Test("no credential has the empty fingerprint")
    func none() {
        #expect(ValidatorKey.fingerprint("") == "")
        #expect(ValidatorKey(url: "https://api.github.com/", credentialValue: nil).credential == "")
    }
}
