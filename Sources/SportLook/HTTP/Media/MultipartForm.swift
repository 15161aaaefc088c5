import Foundation

/// The one file of a `multipart/form-data` body (RFC 7578), as browsers send a form
/// with a file input.
///
/// Only what an upload needs: the first part that carries a file (a `filename` in its
/// `Content-Disposition`), or else the first part. The part's declared type is not
/// returned: what an upload is gets decided from its bytes.
enum MultipartForm {
    enum Failure: Error, Equatable {
        case noBoundary
        case malformed(String)
    }

    /// The boundary parameter of a `multipart/form-data` content type, or nil for any
    /// other type.
    static func boundary(contentType: String) throws(Failure) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "multipart/form-data" else { return nil }
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" {
                var value = pair[1].trimmingCharacters(in: .whitespaces)
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                guard (1...70).contains(value.utf8.count) else { throw .noBoundary }
                return value
            }
        }
        throw .noBoundary
    }

    /// The file's bytes.
    static func file(in body: [UInt8], boundary: String) throws(Failure) -> [UInt8] {
        let delimiter = Array("--\(boundary)".utf8)
        let separator: [UInt8] = Array("\r\n".utf8) + delimiter
        guard var start = firstIndex(of: delimiter, in: body, from: 0) else { throw .malformed("the boundary does not occur in the body") }
        var first: [UInt8]?
        while true {
            var position = start + delimiter.count
            // "--" after a delimiter closes the body.
            if body.count >= position + 2, body[position] == UInt8(ascii: "-"), body[position + 1] == UInt8(ascii: "-") { break }
            // Skip transport padding and the line break after the delimiter.
            while position < body.count, body[position] == UInt8(ascii: " ") || body[position] == UInt8(ascii: "\t") { position += 1 }
            guard body.count >= position + 2, body[position] == 13, body[position + 1] == 10 else {
                throw .malformed("a boundary line does not end in CRLF")
            }
            position += 2
            // Headers end at an empty line; a part may have none.
            let headers: String
            let contentStart: Int
            if body.count >= position + 2, body[position] == 13, body[position + 1] == 10 {
                headers = ""
                contentStart = position + 2
            } else {
                guard let headersEnd = firstIndex(of: Array("\r\n\r\n".utf8), in: body, from: position) else {
                    throw .malformed("a part has no end of headers")
                }
                headers = String(decoding: body[position..<headersEnd], as: UTF8.self)
                contentStart = headersEnd + 4
            }
            guard let end = firstIndex(of: separator, in: body, from: contentStart) else {
                throw .malformed("a part is not closed by the boundary")
            }
            let content = Array(body[contentStart..<end])
            if hasFilename(headers) { return content }
            if first == nil { first = content }
            start = end + 2
        }
        guard let first else { throw .malformed("the form has no part") }
        return first
    }

    static func hasFilename(_ headers: String) -> Bool {
        headers.split(separator: "\r\n").contains { line in
            let lower = line.lowercased()
            return lower.hasPrefix("content-disposition:") && (lower.contains("filename=") || lower.contains("filename*="))
        }
    }

    /// Where `needle` first occurs in `haystack` at or after `from`
    /// (Boyer–Moore–Horspool: a delimiter of tens of bytes is found skipping most of
    /// the bytes before it).
    static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        let m = needle.count
        guard m > 0, from >= 0, haystack.count - from >= m else { return nil }
        var skip = [Int](repeating: m, count: 256)
        for (i, byte) in needle.dropLast().enumerated() { skip[Int(byte)] = m - 1 - i }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                var at = from
                while at <= hay.count - m {
                    var j = m - 1
                    while hay[at + j] == pin[j] {
                        if j == 0 { return at }
                        j -= 1
                    }
                    at += skip[Int(hay[at + m - 1])]
                }
                return nil
            }
        }
    }
}
