import Testing

// containsASCII replaces String.contains(String) (from _StringProcessing) in the core.
@testable import NetCore
@testable import NetCoreBase

@Suite struct ASCIISearchTests {
    @Test func findsTheNeedleAnywhere() {
        #expect("http://h/p".containsASCII("://"))
        #expect("my_password_2".containsASCII("password"))
        #expect("password".containsASCII("password"))
        #expect("xx://".containsASCII("://"))
        #expect("a".containsASCII(""))
    }

    @Test func partialAndRestartedMatches() {
        #expect(!"http:/h".containsASCII("://"))
        #expect(!"passwor".containsASCII("password"))
        #expect("pappassword".containsASCII("password"))   // restarts after a failed "pa…"
        #expect(!"".containsASCII("x"))
        #expect("é://ü"[...].containsASCII("://"))   // non-ASCII around the needle, on a Substring
    }

    @Test func redactionStillFindsPasswordNamesAndURLsInText() {
        #expect(Redaction.isSecret(name: "User_Password_Hash"))
        #expect(!Redaction.isSecret(name: "pass"))
        #expect(Redaction.text("no url here") == "no url here")
        #expect(Redaction.text("see http://h/x?db_password=1 now") == "see http://h/x?db_password=REDACTED now")
    }
}
