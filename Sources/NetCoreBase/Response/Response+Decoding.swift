/// `Decodable` business data.
extension Response {
    /// Decodes the business data (the envelope's data field — JSON null when the
    /// field is absent — or the whole body in raw mode) as `type`.
    ///
    /// Throws: a PARSE-domain `NetError` with code `ParseCode.decodingFailed` whose
    /// message names the failing key path, e.g.
    /// `Could not decode User: data.user.age: expected Int, found string.`; its
    /// `httpStatus`, `body`, `data` and `response` are this response's; `attempts`
    /// is 1 (a response was received).
    /// Thread: any; the response is immutable.
    public func decode<T: Decodable>(
        _ type: T.Type = T.self,
        using decoder: JSONValueDecoder = JSONValueDecoder()
    ) throws(NetError) -> T {
        guard let pointer = dataPointer else {
            throw dataMismatch("Could not decode \(T.self): data: the body is not JSON.")
        }
        do {
            return try withExtendedLifetime(self) { try decoder.decode(type, from: pointer) }
        } catch let error as DecodingError {
            throw dataMismatch(
                "Could not decode \(T.self): \(JSONValueDecoder.describe(error, root: "data")). Check that the Swift type matches the server's data."
            )
        } catch {
            throw dataMismatch("Could not decode \(T.self): \(error)")
        }
    }

    /// A PARSE `decodingFailed` error about this response's data, with `message`:
    /// what `decode` throws, and what C's nc_response_data_unpack gives on a mismatch.
    package func dataMismatch(_ message: String) -> NetError {
        var error = NetError.decodingFailed(message)
        error.httpStatus = status
        error.body = body
        error.data = data
        error.response = self
        error.attempts = 1
        return error
    }
}
