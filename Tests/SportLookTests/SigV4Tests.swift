import Foundation
import Testing

@testable import SportLook

/// The signer against the worked examples AWS publishes for S3 ("Signature
/// Calculations for the Authorization Header: Transferring Payload in a Single Chunk"):
/// the same inputs must give the same signatures, to the hex digit.
@Suite("AWS Signature Version 4")
struct SigV4Tests {
    static let signer = SigV4(accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")
    static let date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    static let credential = "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request"

    @Test("the dates of the scope and of x-amz-date")
    func stamps() {
        #expect(SigV4.stamps(Self.date) == ("20130524", "20130524T000000Z"))
        #expect(SigV4.stamps(Date(timeIntervalSince1970: 1_700_000_000.9)) == ("20231114", "20231114T221320Z"))
    }

    @Test("GET Object with a range")
    func getObject() {
        let authorization = Self.signer.authorization(
            method: "GET", path: "/test.txt",
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
                ("x-amz-content-sha256", Self.emptyHash), ("x-amz-date", "20130524T000000Z"),
            ], payloadHash: Self.emptyHash, date: Self.date)
        #expect(
            authorization == Self.credential
                + ",SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        )
    }

    @Test("PUT Object, a path with a character to encode and a header S3 adds to the signature")
    func putObject() {
        let payload = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"  // SHA-256 of "Welcome to Amazon S3."
        let authorization = Self.signer.authorization(
            method: "PUT", path: "/test$file.text",
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("Date", "Fri, 24 May 2013 00:00:00 GMT"),
                ("x-amz-date", "20130524T000000Z"), ("x-amz-storage-class", "REDUCED_REDUNDANCY"), ("x-amz-content-sha256", payload),
            ], payloadHash: payload, date: Self.date)
        #expect(
            authorization == Self.credential
                + ",SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"
        )
    }

    @Test("GET Bucket lifecycle: a query parameter without a value")
    func lifecycle() {
        let authorization = Self.signer.authorization(
            method: "GET", path: "/", query: [("lifecycle", "")],
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("x-amz-date", "20130524T000000Z"), ("x-amz-content-sha256", Self.emptyHash),
            ], payloadHash: Self.emptyHash, date: Self.date)
        #expect(
            authorization == Self.credential
                + ",SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"
        )
    }

    @Test("List Objects: query parameters sorted")
    func listObjects() {
        let authorization = Self.signer.authorization(
            method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")],
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("x-amz-date", "20130524T000000Z"), ("x-amz-content-sha256", Self.emptyHash),
            ], payloadHash: Self.emptyHash, date: Self.date)
        #expect(
            authorization == Self.credential
                + ",SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"
        )
    }

    @Test("MEDIA_STORE: file and s3 forms; an s3 endpoint off loopback must be https; credentials required")
    func setting() throws {
        #expect(try MediaStoreSetting(parsing: "file:/var/media") == .file(path: "/var/media"))
        #expect(
            try MediaStoreSetting(parsing: "s3://photos?region=eu-west-1")
                == .s3(bucket: "photos", endpoint: URL(string: "https://s3.eu-west-1.amazonaws.com")!, region: "eu-west-1"))
        #expect(
            try MediaStoreSetting(parsing: "s3://photos?endpoint=http://127.0.0.1:9000")
                == .s3(bucket: "photos", endpoint: URL(string: "http://127.0.0.1:9000")!, region: "us-east-1"))
        for bad in ["s3://photos?endpoint=http://minio.example.com", "s3://Photos", "ftp://x", "file:", "s3://ab"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try MediaStoreSetting(parsing: bad) }
        }
        #expect(throws: ConfigurationError.self) { try AppConfiguration(environment: ["MEDIA_STORE": "s3://photos"]) }
        #expect(
            try AppConfiguration(environment: ["MEDIA_STORE": "s3://photos", "MEDIA_S3_ACCESS_KEY": "a", "MEDIA_S3_SECRET_KEY": "b"])
                .mediaStore != .file(path: nil))
    }
}

@Suite("Threads sized to the CPUs allowed")
struct ThreadSizingTests {
    @Test("Linux CPU lists are counted")
    func cpuLists() {
        #expect(cpuCount(list: "0") == 1)
        #expect(cpuCount(list: "0-3,8,10-11") == 7)
        #expect(cpuCount(list: "1") == 1)
        #expect(cpuCount(list: "3-1") == nil)
        #expect(cpuCount(list: "x") == nil)
    }
}
