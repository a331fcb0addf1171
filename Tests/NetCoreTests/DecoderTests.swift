import MockServerSupport
import Testing

@testable import NetCore
@testable import NetCoreBase

/// `JSONValueDecoder` on parsed values, and `Response.decode` / `NetClient.decode`
/// against the loopback server.
@Suite struct DecoderTests {
    func value(_ json: String) throws -> JSONValue { try JSONValue.parse(json).get() }

    func decode<T: Decodable>(_ type: T.Type, _ json: String, userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws
        -> T
    {
        try JSONValueDecoder(userInfo: userInfo).decode(type, from: value(json))
    }

    /// The decoding error for `json`, rendered as `Response.decode` does.
    func failure<T: Decodable>(_ type: T.Type, _ json: String) throws -> (error: DecodingError, text: String)? {
        do {
            let v = try decode(type, json)
            Issue.record("expected a DecodingError, decoded \(v)")
            return nil
        } catch let error as DecodingError {
            return (error, JSONValueDecoder.describe(error, root: "data"))
        }
    }

    // MARK: scalars

    @Test func topLevelScalars() throws {
        #expect(try decode(Int.self, "42") == 42)
        #expect(try decode(String.self, #""héllo\u0000x""#) == "héllo\u{0}x")
        #expect(try decode(Bool.self, "true") == true)
        #expect(try decode(Double.self, "1.5") == 1.5)
        #expect(try decode(Double.self, "2") == 2.0)
        #expect(try decode(Float.self, "0.25") == 0.25)
        #expect(try decode(Float.self, "-3") == -3)
        #expect(try decode(Int?.self, "null") == nil)
        #expect(try decode(Int?.self, "5") == 5)
    }

    @Test func integersAreRangeChecked() throws {
        #expect(try decode(UInt8.self, "255") == 255)
        #expect(try decode(Int8.self, "-128") == -128)
        #expect(try decode(Int32.self, "2147483647") == Int32.max)
        #expect(try decode(Int64.self, "-9223372036854775808") == Int64.min)
        #expect(try decode(UInt64.self, "9223372036854775807") == UInt64(Int64.max))
        #expect(try decode(UInt16.self, "7.0") == 7)

        let tooBig = try #require(try failure(UInt8.self, "300"))
        guard case .dataCorrupted = tooBig.error else { Issue.record("\(tooBig.error)"); return }
        #expect(tooBig.text == "data: 300 does not fit in UInt8")
        #expect(try failure(Int8.self, "-129")?.text == "data: -129 does not fit in Int8")
        #expect(try failure(UInt.self, "-1")?.text == "data: -1 does not fit in UInt")
        #expect(try failure(Int32.self, "2147483648")?.text == "data: 2147483648 does not fit in Int32")
        #expect(try failure(Int.self, "2.5")?.text == "data: 2.5 is not a whole number that fits in Int")
        #expect(try failure(Float.self, "1e300")?.text == "data: 1e+300 does not fit in Float")
    }

    @Test func noImplicitConversions() throws {
        #expect(try failure(Bool.self, "1")?.text == "data: expected Bool, found integer")
        #expect(try failure(Int.self, #""7""#)?.text == "data: expected Int, found string")
        #expect(try failure(String.self, "7")?.text == "data: expected String, found integer")
        #expect(try failure(Double.self, "true")?.text == "data: expected Double, found boolean")
        guard case .typeMismatch(let type, _) = try failure(UInt32.self, "[]")?.error else {
            Issue.record("expected typeMismatch"); return
        }
        #expect(type is UInt32.Type)
    }

    // MARK: keyed

    struct Person: Decodable, Equatable {
        var id: Int
        var name: String
        var email: String?
        var age: UInt8?
    }

    @Test func keyedWithOptionals() throws {
        #expect(try decode(Person.self, #"{"id":1,"name":"Ada"}"#) == Person(id: 1, name: "Ada"))
        #expect(
            try decode(Person.self, #"{"id":1,"name":"Ada","email":null,"age":36,"extra":[1]}"#)
                == Person(id: 1, name: "Ada", email: nil, age: 36))
        // decodeIfPresent does not hide a wrong type.
        #expect(
            try failure(Person.self, #"{"id":1,"name":"Ada","email":5}"#)?.text
                == "data.email: expected String, found integer")
        #expect(
            try failure(Person.self, #"{"id":1,"name":"Ada","age":999}"#)?.text
                == "data.age: 999 does not fit in UInt8")
    }

    @Test func nullForANonOptionalIsValueNotFound() throws {
        let f = try #require(try failure(Person.self, #"{"id":null,"name":"Ada"}"#))
        guard case .valueNotFound(let type, let context) = f.error else { Issue.record("\(f.error)"); return }
        #expect(type is Int.Type)
        #expect(context.codingPath.map(\.stringValue) == ["id"])
        #expect(f.text == "data.id: expected Int, found null")
        #expect(try failure(Person.self, "null")?.text == "data: expected object, found null")
    }

    @Test func missingKeyIsKeyNotFound() throws {
        let f = try #require(try failure(Person.self, #"{"id":1}"#))
        guard case .keyNotFound(let key, let context) = f.error else { Issue.record("\(f.error)"); return }
        #expect(key.stringValue == "name")
        #expect(context.codingPath.isEmpty)
        #expect(f.text == "data.name: key not found")
    }

    @Test func wrongContainerTypes() throws {
        #expect(try failure(Person.self, "[1]")?.text == "data: expected object, found array")
        #expect(try failure([Int].self, #"{"a":1}"#)?.text == "data: expected array, found object")
    }

    @Test func keysAreMatchedByBytes() throws {
        struct Odd: Decodable, Equatable {
            var a: Int
            enum CodingKeys: String, CodingKey { case a = "ä k" }
        }
        #expect(try decode(Odd.self, #"{"ä k":3,"a":4}"#) == Odd(a: 3))
        struct Empty: Decodable { var v: Int; enum CodingKeys: String, CodingKey { case v = "" } }
        #expect(try decode(Empty.self, #"{"":9}"#).v == 9)
    }

    // MARK: unkeyed

    @Test func arrays() throws {
        #expect(try decode([Int].self, "[1,2,3]") == [1, 2, 3])
        #expect(try decode([[Int]].self, "[[1],[],[2,3]]") == [[1], [], [2, 3]])
        #expect(try decode([String?].self, #"["a",null,"b"]"#) == ["a", nil, "b"])
        #expect(try decode([Double].self, "[1,2.5]") == [1, 2.5])
        #expect(try decode([Bool].self, "[]") == [])
    }

    @Test func arrayErrorsNameTheIndex() throws {
        struct Item: Decodable { var name: String }
        struct List: Decodable { var items: [Item] }
        let f = try #require(try failure(List.self, #"{"items":[{"name":"a"},{"name":3}]}"#))
        #expect(f.text == "data.items[1].name: expected String, found integer")
        #expect(try failure([[Int]].self, "[[1],[2,null]]")?.text == "data[1][1]: expected Int, found null")
    }

    /// A hand-written `init(from:)` exercising every container kind.
    struct Shape: Decodable, Equatable {
        var kind: String
        var point: [Int]
        var size: (w: Int, h: Int)
        var rows: [[Int]]
        var labels: [String: Int]
        var paths: [String]

        enum Keys: String, CodingKey { case kind, geometry, rows, meta }
        enum Geometry: String, CodingKey { case point, size }
        enum Size: String, CodingKey { case w, h }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            kind = try c.decode(String.self, forKey: .kind)
            let g = try c.nestedContainer(keyedBy: Geometry.self, forKey: .geometry)
            var p = try g.nestedUnkeyedContainer(forKey: .point)
            #expect(p.count == 2)
            point = [try p.decode(Int.self), try p.decode(Int.self)]
            #expect(p.isAtEnd)
            let s = try g.nestedContainer(keyedBy: Size.self, forKey: .size)
            size = (try s.decode(Int.self, forKey: .w), try s.decode(Int.self, forKey: .h))
            var paths = [JSONValueDecoder.path(s.codingPath, root: "data")]

            var rowsC = try c.nestedUnkeyedContainer(forKey: .rows)
            rows = []
            while !rowsC.isAtEnd {
                if try rowsC.decodeNil() { rows.append([]); continue }
                var row = try rowsC.nestedUnkeyedContainer()
                paths.append(JSONValueDecoder.path(row.codingPath, root: "data"))
                var values: [Int] = []
                while !row.isAtEnd { values.append(try row.decode(Int.self)) }
                rows.append(values)
            }
            var metaC = try c.nestedUnkeyedContainer(forKey: .meta)
            let labelsC = try metaC.nestedContainer(keyedBy: AnyKey.self)
            paths.append(JSONValueDecoder.path(labelsC.codingPath, root: "data"))
            labels = [:]
            for key in labelsC.allKeys { labels[key.stringValue] = try labelsC.decode(Int.self, forKey: key) }
            self.paths = paths
        }

        static func == (a: Shape, b: Shape) -> Bool {
            a.kind == b.kind && a.point == b.point && a.size == b.size && a.rows == b.rows
                && a.labels == b.labels && a.paths == b.paths
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { return nil }
    }

    @Test func nestedKeyedAndUnkeyedContainers() throws {
        let json =
            #"{"kind":"box","geometry":{"point":[3,4],"size":{"w":5,"h":6}},"rows":[[1,2],null,[3]],"meta":[{"x":1,"y":2}]}"#
        let shape = try decode(Shape.self, json)
        #expect(shape.kind == "box")
        #expect(shape.point == [3, 4])
        #expect(shape.size == (5, 6))
        #expect(shape.rows == [[1, 2], [], [3]])
        #expect(shape.labels == ["x": 1, "y": 2])
        #expect(shape.paths == ["data.geometry.size", "data.rows[0]", "data.rows[2]", "data.meta[0]"])
    }

    @Test func unkeyedIndexAdvancesOnlyOnSuccess() throws {
        struct Probe: Decodable {
            var log: [String] = []
            init(from decoder: any Decoder) throws {
                var c = try decoder.unkeyedContainer()
                #expect(throws: DecodingError.self) { try c.decode(Int.self) }
                log.append("index \(c.currentIndex)")
                #expect(try c.decodeNil() == false)
                log.append(try c.decode(String.self))
                #expect(try c.decodeNil())
                #expect(try c.decodeIfPresent(Int.self) == 4)
                #expect(c.isAtEnd)
                do {
                    _ = try c.decode(Int.self)
                } catch let error as DecodingError {
                    log.append(JSONValueDecoder.describe(error, root: "data"))
                }
            }
        }
        let probe = try decode(Probe.self, #"["s",null,4]"#)
        #expect(probe.log == ["index 0", "s", "data[3]: expected Int, found the end of the array (3 elements)"])
    }

    // MARK: standard library types and extras

    enum Color: String, Decodable { case red, green }
    enum Figure: Decodable, Equatable { case circle(radius: Double), square(side: Int) }

    @Test func enumsAndDictionaries() throws {
        #expect(try decode([Color].self, #"["red","green"]"#) == [.red, .green])
        #expect(try failure(Color.self, #""blue""#) != nil)
        #expect(try decode(Figure.self, #"{"circle":{"radius":2}}"#) == .circle(radius: 2))
        #expect(try decode([String: Int].self, #"{"a":1,"b":2}"#) == ["a": 1, "b": 2])
        #expect(try decode([Int: String].self, #"{"1":"one","2":"two"}"#) == [1: "one", 2: "two"])
        #expect(try failure([String: Int].self, #"{"a":1,"b":"x"}"#)?.text == "data.b: expected Int, found string")
    }

    class Base: Decodable {
        var id: Int
        enum CodingKeys: String, CodingKey { case id }
    }

    final class Derived: Base {
        var extra: String
        var superPath = ""
        enum Keys: String, CodingKey { case extra, parent }
        required init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            extra = try c.decode(String.self, forKey: .extra)
            let parent = try c.superDecoder(forKey: .parent)
            superPath = JSONValueDecoder.path(parent.codingPath, root: "data")
            try super.init(from: parent)
        }
    }

    @Test func superDecoders() throws {
        let d = try decode(Derived.self, #"{"extra":"x","parent":{"id":5}}"#)
        #expect(d.id == 5 && d.extra == "x" && d.superPath == "data.parent")

        struct Wrapper: Decodable {
            var fromSuper: Int
            var fromArray: Int
            var missingIsNull: Bool
            enum Keys: String, CodingKey { case list, absent }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: Keys.self)
                fromSuper = try c.superDecoder().singleValueContainer().decode(Int.self)
                var list = try c.nestedUnkeyedContainer(forKey: .list)
                fromArray = try Int(from: list.superDecoder())
                missingIsNull = try c.superDecoder(forKey: .absent).singleValueContainer().decodeNil()
            }
        }
        let w = try decode(Wrapper.self, #"{"super":1,"list":[2]}"#)
        #expect(w.fromSuper == 1 && w.fromArray == 2 && w.missingIsNull)
    }

    @Test func userInfoReachesNestedDecoders() throws {
        let key = try #require(CodingUserInfoKey(rawValue: "unit"))
        struct Reading: Decodable {
            static let unit = CodingUserInfoKey(rawValue: "unit")
            var text: String
            init(from decoder: any Decoder) throws {
                let unit = Self.unit.flatMap { decoder.userInfo[$0] } as? String ?? "?"
                text = "\(try decoder.singleValueContainer().decode(Int.self)) \(unit)"
            }
        }
        struct Report: Decodable { var readings: [Reading] }
        let report = try decode(Report.self, #"{"readings":[3,4]}"#, userInfo: [key: "mm"])
        #expect(report.readings.map(\.text) == ["3 mm", "4 mm"])
    }

    @Test func decodingFromABorrowedPointer() throws {
        let v = try value(#"{"id":1,"name":"Ada"}"#)
        let p = try withExtendedLifetime(v) { try JSONValueDecoder().decode(Person.self, from: v.opaque) }
        #expect(p == Person(id: 1, name: "Ada"))
    }

    // MARK: through the client

    @Suite struct ThroughTheServer {
        let server = MockServer.shared

        func client(_ envelope: EnvelopeSchema? = EnvelopeSchema()) throws -> NetClient {
            try NetClient(configuration: Configuration(baseURL: server.baseURL, envelope: envelope))
        }

        struct User: Decodable, Equatable { let id: Int; let name: String }

        @Test func decodesTheEnvelopeData() async throws {
            let c = try client()
            defer { c.shutdown() }
            let response = try await c.send(Request(method: "GET", target: "/env/code/ok"))
            #expect(try response.decode(User.self) == User(id: 7, name: "Ada"))
            let user: User = try response.decode()
            #expect(user.name == "Ada")
        }

        struct Echo: Decodable { let method: String; let json: Order }
        struct Order: Decodable {
            let id: Int64
            let customer: Customer
            let lines: [Line]
            let tags: [String?]
            let note: String?
            let total: Double
            let paid: Bool
        }
        struct Customer: Decodable { let name: String; let vip: Bool? }
        struct Line: Decodable { let sku: String; let qty: UInt16; let price: Float }

        @Test func decodesNestedStructsArraysAndOptionals() async throws {
            let c = try client()
            defer { c.shutdown() }
            var request = try Request(method: "POST", target: "/echo")
            request.encoding = .json
            try request.setParams(
                JSONValue.parse(
                    #"""
                    {"id":9007199254740993,"customer":{"name":"Ada","vip":null},
                     "lines":[{"sku":"A-1","qty":2,"price":9.5},{"sku":"B-2","qty":1,"price":3}],
                     "tags":["new",null],"note":null,"total":22,"paid":true}
                    """#
                ).get())
            let echo = try await c.decode(Echo.self, from: request)
            #expect(echo.method == "POST")
            let order = echo.json
            #expect(order.id == 9_007_199_254_740_993)
            #expect(order.customer.name == "Ada" && order.customer.vip == nil)   // null members are dropped
            #expect(order.lines.map(\.sku) == ["A-1", "B-2"])
            #expect(order.lines.map(\.qty) == [2, 1])
            #expect(order.lines.map(\.price) == [9.5, 3])
            #expect(order.tags == ["new", nil])   // array nulls are kept
            #expect(order.note == nil)
            #expect(order.total == 22)
            #expect(order.paid)
        }

        @Test func decodingFailureIsAParseErrorNamingTheKeyPath() async throws {
            struct WrongUser: Decodable { let id: String }
            let c = try client()
            defer { c.shutdown() }
            let request = try Request(method: "GET", target: "/env/code/ok")
            do throws(NetError) {
                _ = try await c.decode(WrongUser.self, from: request)
                Issue.record("expected a decoding failure")
            } catch {
                #expect(error.domain == .parse)
                #expect(error.code == NetError.ParseCode.decodingFailed.rawValue)
                #expect(error.matches(.parse, code: 5))
                #expect(error.message.contains("data.id: expected String, found integer"), "\(error.message)")
                #expect(error.message.contains("WrongUser"))
                #expect(error.httpStatus == 200)
                #expect(error.body?.text == #"{"code":0,"msg":"ok","data":{"id":7,"name":"Ada"}}"#)
                #expect(error.data?.text == #"{"id":7,"name":"Ada"}"#)
                #expect(error.response?.status == 200)
            }
        }

        @Test func absentDataIsNull() async throws {
            let c = try client()
            defer { c.shutdown() }
            let response = try await c.send(Request(method: "GET", target: "/env/code/nodata"))
            #expect(try response.decode(User?.self) == nil)
            #expect(throws: NetError.self) { try response.decode(User.self) }
            do throws(NetError) {
                _ = try response.decode(User.self)
            } catch {
                #expect(error.message.contains("data: expected object, found null"))
            }
        }

        @Test func rawModeDecodesTheWholeBody() async throws {
            let c = try client(nil)
            defer { c.shutdown() }
            let object = try await c.decode([String: String].self, from: Request(method: "GET", target: "/object"))
            #expect(object == ["hello": "world"])
            let numbers = try await c.decode([Int].self, from: Request(method: "GET", target: "/array"))
            #expect(numbers == [1, 2, 3])
            let text = try await c.send(Request(method: "GET", target: "/text"))
            do throws(NetError) {
                _ = try text.decode(String.self)
                Issue.record("a text body is not JSON")
            } catch {
                #expect(error.code == NetError.ParseCode.decodingFailed.rawValue)
                #expect(error.message.contains("the body is not JSON"))
            }
        }
    }
}
