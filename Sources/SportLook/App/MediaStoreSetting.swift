import AsyncHTTPClient
import Foundation

/// Where uploaded media are kept, as `MEDIA_STORE` names it.
public enum MediaStoreSetting: Sendable, Equatable {
    /// A folder (nil: the default beside the database).
    case file(path: String?)
    /// An S3-compatible bucket, path-style at `endpoint`.
    case s3(bucket: String, endpoint: URL, region: String)

    /// Reads `file:PATH` or `s3://BUCKET?endpoint=URL&region=REGION` (endpoint
    /// default: AWS's for the region; region default `us-east-1`).
    public init(parsing text: String) throws {
        if text.hasPrefix("file:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else {
                throw ConfigurationError(setting: "MEDIA_STORE", message: "file: needs a folder, as in file:/var/lib/sportlook/media")
            }
            self = .file(path: path)
            return
        }
        guard text.hasPrefix("s3://"), let components = URLComponents(string: text), let bucket = components.host, !bucket.isEmpty else {
            throw ConfigurationError(setting: "MEDIA_STORE", message: "must be file:PATH or s3://BUCKET?endpoint=URL&region=REGION")
        }
        // Bucket names: 3–63 lowercase letters, digits, dots and hyphens.
        guard (3...63).contains(bucket.count), bucket.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "." || $0 == "-" }) else {
            throw ConfigurationError(setting: "MEDIA_STORE", message: "'\(bucket.prefix(70))' is not an S3 bucket name")
        }
        let items = components.queryItems ?? []
        let region = items.first { $0.name == "region" }?.value ?? "us-east-1"
        let endpointText = items.first { $0.name == "endpoint" }?.value ?? "https://s3.\(region).amazonaws.com"
        guard let endpoint = URL(string: endpointText), endpoint.scheme == "http" || endpoint.scheme == "https", let host = endpoint.host
        else {
            throw ConfigurationError(setting: "MEDIA_STORE", message: "endpoint must be an http(s) URL")
        }
        guard endpoint.scheme == "https" || AddressRange.isLoopback(host: host) else {
            throw ConfigurationError(
                setting: "MEDIA_STORE", message: "endpoint must be https unless its host is loopback (127.0.0.1, ::1, localhost)")
        }
        self = .s3(bucket: bucket, endpoint: endpoint, region: region)
    }
}

/// The blob store a configuration names.
func makeBlobStore(_ configuration: AppConfiguration, client: HTTPClient) throws -> any BlobStore {
    switch configuration.mediaStore {
    case .file:
        return try FileBlobStore(root: configuration.effectiveMediaStorePath ?? "media")
    case .s3(let bucket, let endpoint, let region):
        return S3BlobStore(
            endpoint: endpoint, bucket: bucket,
            signer: SigV4(accessKey: configuration.mediaS3AccessKey, secretKey: configuration.mediaS3SecretKey, region: region),
            client: client)
    }
}
